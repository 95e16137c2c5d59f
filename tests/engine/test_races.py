"""Two cards for one foundation: the first stays, or a true tie (R16)."""

from nertz.engine import CardsMoved, Rules

from .helpers import make_hand, play, refused_unchanged

TWO_SEATS = ("nertz: 3H 2H; work: -", "nertz: 2H; work: 3H")


def test_the_first_card_down_stays_the_other_goes_back_r16() -> None:
    """R16: the second card is refused as ``beaten`` and stays where it came from."""
    hand = make_hand(*TWO_SEATS, middle=["AH@0"])
    assert play(hand, 0, "N>F1", 100).ok
    reason = refused_unchanged(hand, 1, "N>F1", "beaten", 141)
    assert "beaten to it" in reason and "2 of hearts" in reason
    assert [str(c) for c in hand.seats[1].nertz] == ["2H"]
    assert hand.middle == [2, 0]


def test_beaten_when_aiming_at_any_foundation_too() -> None:
    hand = make_hand(*TWO_SEATS, middle=["AH@0"])
    assert play(hand, 0, "N>F", 100).ok
    refused_unchanged(hand, 1, "N>F", "beaten", 500)


def test_a_true_tie_keeps_both_cards_and_both_owners_score_r16() -> None:
    """R16 (online): a same-rank card within ``tie_window_ms`` of the first is a true tie:
    the foundation holds that rank twice and the next card continues from that rank."""
    hand = make_hand(*TWO_SEATS, middle=["AH@0"])
    assert play(hand, 0, "N>F1", 100).ok
    outcome = play(hand, 1, "N>F1", 140)  # exactly 40 ms later: still a tie
    assert outcome.ok
    event = outcome.events[0]
    assert isinstance(event, CardsMoved) and event.tie and event.foundation == 0
    assert [c.tagged for c in hand.foundations[0].cards] == ["AH@0", "2H@0", "2H@1"]
    assert hand.middle == [2, 1]
    assert play(hand, 0, "N>F1", 150).ok  # the 3 continues from the tied 2
    refused_unchanged(hand, 1, "1>F1", "beaten", 200)  # 50 ms after the 3: too late


def test_a_tie_when_aiming_at_any_foundation() -> None:
    hand = make_hand(*TWO_SEATS, middle=["AH@0"])
    assert play(hand, 0, "N>F", 100).ok
    assert play(hand, 1, "N>F", 120).events[0].tie  # type: ignore[attr-defined]


def test_ties_can_be_turned_off_and_the_window_is_exact() -> None:
    """``tie_window_ms`` 0 turns ties off; 41 ms after a 40 ms window is too late."""
    hand = make_hand(*TWO_SEATS, middle=["AH@0"], rules=Rules(tie_window_ms=0))
    assert play(hand, 0, "N>F1", 100).ok
    refused_unchanged(hand, 1, "N>F1", "beaten", 100)
    hand = make_hand(*TWO_SEATS, middle=["AH@0"])
    assert play(hand, 0, "N>F1", 100).ok
    refused_unchanged(hand, 1, "N>F1", "beaten", 141)


def test_a_tie_on_the_king_finishes_the_foundation_with_both_kings() -> None:
    spades = " ".join(
        f"{r}S@0" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"]
    )
    hand = make_hand("nertz: KS; work: -", "nertz: KS; work: -", middle=[spades])
    assert play(hand, 0, "N>F1", 10).ok and play(hand, 1, "N>F1", 30).ok
    assert hand.foundations[0].finished and hand.middle == [13, 1]


def test_the_window_counts_from_the_first_card_of_that_rank() -> None:
    """A third card of the same rank still ties if it lands within the window of the first."""
    hand = make_hand(
        "nertz: 2H; work: -", "nertz: 2H; work: -", "nertz: 2H; work: -", middle=["AH@0"]
    )
    assert play(hand, 0, "N>F1", 100).ok
    assert play(hand, 1, "N>F1", 130).ok
    refused_unchanged(hand, 2, "N>F1", "beaten", 145)  # 45 ms after the first
    hand = make_hand(
        "nertz: 2H; work: -", "nertz: 2H; work: -", "nertz: 2H; work: -", middle=["AH@0"]
    )
    assert play(hand, 0, "N>F1", 100).ok
    assert play(hand, 1, "N>F1", 130).ok and play(hand, 2, "N>F1", 140).ok
    assert hand.middle == [2, 1, 1]
