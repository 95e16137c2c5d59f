"""Calling Nertz and the cards still in the air (R27, R28)."""

from nertz.engine import Called, EndReason, HandEnded, Rules

from .helpers import make_hand, play, refused_unchanged

SEATS = ("nertz: 5S AH; work: 4D", "nertz: AC; work: 10H; waste: 9C")


def test_a_call_with_cards_in_the_nertz_pile_is_refused_r27() -> None:
    hand = make_hand(*SEATS)
    reason = refused_unchanged(hand, 0, "NERTZ", "nertz_not_empty", 10)
    assert "2 card(s) still in your Nertz pile" in reason


def test_the_call_is_never_compulsory_r27() -> None:
    """R27: a seat with an empty Nertz pile may play on for more points and call later."""
    hand = make_hand(*SEATS)
    assert play(hand, 1, "N>F", 10).ok
    assert "NERTZ" in {str(m) for m in hand.legal_moves(1)}
    assert play(hand, 1, "W>1", 20).ok  # plays on; nothing forces the call
    assert hand.tick(10_000).events == ()
    outcome = play(hand, 1, "NERTZ", 10_001)
    assert outcome.ok and outcome.events == (Called(1),)
    assert hand.caller == 1


def test_play_stops_at_the_call_but_cards_in_the_air_land_r28() -> None:
    """R28 (online): a legal move received within ``landing_ms`` of the call still lands."""
    hand = make_hand(*SEATS)
    play(hand, 1, "N>F", 10)
    assert play(hand, 1, "NERTZ", 1_000).ok
    refused_unchanged(hand, 0, "NERTZ", "already_called", 1_100)
    refused_unchanged(hand, 1, "STUCK", "already_called", 1_100)
    assert play(hand, 0, "N>F", 1_250).ok  # 250 ms after the call: lands
    refused_unchanged(hand, 0, "N>1", "hand_over", 1_251)
    assert hand.middle == [1, 1]


def test_the_landing_window_closes_the_hand() -> None:
    hand = make_hand(*SEATS, rules=Rules(landing_ms=100))
    play(hand, 1, "N>F", 10)
    play(hand, 1, "NERTZ", 500)
    assert hand.tick(599).events == ()
    outcome = hand.tick(600)
    assert outcome.events == (HandEnded(EndReason.CALLED, 1),)
    assert hand.over
    refused_unchanged(hand, 0, "N>F", "hand_over", 600)
    assert hand.legal_moves(0) == []


def test_a_second_seat_cannot_call_too() -> None:
    hand = make_hand("nertz: AH; work: -", "nertz: AS; work: -")
    play(hand, 0, "N>F", 1)
    play(hand, 1, "N>F", 2)
    assert play(hand, 0, "NERTZ", 3).ok
    refused_unchanged(hand, 1, "NERTZ", "already_called", 4)


def test_next_deadline_tells_a_driver_when_to_tick() -> None:
    """R28, R25: the end of the landing window, the settle check and the idle rotation."""
    hand = make_hand(*SEATS, go=False)
    assert hand.next_deadline() is None  # before Go only Go can change anything
    hand.start(0)
    assert hand.next_deadline() == 1_000  # SETTLE_MS after the last card moved
    play(hand, 1, "N>F", 400)
    assert hand.next_deadline() == 1_400
    hand.tick(1_400)
    assert hand.next_deadline() == 30_400  # then the idle rotation (idle_rotate_s 30)
    play(hand, 1, "NERTZ", 2_000)
    assert hand.next_deadline() == 2_250  # the landing window
    hand.tick(2_250)
    assert hand.over and hand.next_deadline() is None
