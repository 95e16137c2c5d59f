"""Blocked seats, the table rotation and the blocked end (R24-R26)."""

from nertz.engine import Card, Deal, EndReason, Hand, Rotated, Rules, waste_reachable
from nertz.engine.hand import SETTLE_MS

from .helpers import make_hand, play, refused_unchanged

C = Card.parse
# Nothing here fits anything: ends 5H 9C 7D JS take a black 4, red 8, black 6, red 10;
# the Nertz QD needs a black king; no aces anywhere.
STUCK_SEAT = "nertz: 2H QD; work: 5H / 9C / 7D / JS; stock: 3S 8S 2C KC"


def cards(text: str) -> list[Card]:
    return [C(t) for t in text.split()]


def test_a_seat_with_nothing_to_do_is_blocked_r24() -> None:
    hand = make_hand(STUCK_SEAT)
    assert hand.is_blocked(0)
    # R24: a blocked seat waits; turning is all it can do, which reorders nothing.
    assert {str(m) for m in hand.legal_moves(0)} == {"T", "STUCK"}


def test_cards_reachable_by_turning_three_r24() -> None:
    """R21-R23: with six cards and draw 3, only the 3rd and 6th ever reach the top."""
    stock = cards("6C 5C 4C 3C 2C AC")  # bottom..top: AC is turned first
    assert waste_reachable(stock, [], 3) == cards("3C 6C 3C 6C")
    assert set(waste_reachable(stock, [], 1)) == set(stock)
    # Mid-pass: waste top, rest of this pass (R22: a lone last card), then every pass.
    assert waste_reachable(cards("7D"), cards("AC 2C 3C"), 3) == cards("3C 7D 3C 7D")


def test_a_card_deep_in_the_stock_cycle_unblocks_r24() -> None:
    """R24 counts cycling the whole stock: a 4S that turning reaches can go on the 5H."""
    reachable = STUCK_SEAT.replace("stock: 3S 8S 2C KC", "stock: 3D 8S KC 4S 2C QH")
    unreachable = STUCK_SEAT.replace("stock: 3S 8S 2C KC", "stock: 3D 8S KC 2C QH 4S")
    assert not make_hand(reachable).is_blocked(0)
    assert make_hand(unreachable).is_blocked(0)


def test_rearranging_work_piles_counts_r24() -> None:
    """Moving the 7H off the 8C (onto the 8S) exposes the 8C, which the middle takes."""
    seat = "nertz: QD; work: 8C 7H / 8S / 5H / JS"
    clubs = "AC@0 2C@0 3C@0 4C@0 5C@0 6C@0 7C@0"
    assert not make_hand(seat, middle=[clubs]).is_blocked(0)
    assert make_hand(seat, middle=[clubs.replace(" 7C@0", "")]).is_blocked(0)


def test_a_space_made_by_moving_a_whole_pile_counts_r24() -> None:
    """Moving 9H 8S onto the 10C empties a space, and the Nertz QD can go there."""
    assert not make_hand("nertz: QD; work: 9H 8S / 10C / 5H / JH").is_blocked(0)
    assert make_hand("nertz: QD; work: 9H 8S / 10D / 5H / JH").is_blocked(0)


def test_an_empty_space_means_the_nertz_card_can_move_r24() -> None:
    assert not make_hand("nertz: QD; work: 5H / 9C / - / JS").is_blocked(0)


def test_a_card_from_someone_else_can_unblock_a_seat() -> None:
    hand = make_hand(STUCK_SEAT.replace("JS", "2S"), "nertz: AS; work: -")
    assert hand.is_blocked(0)
    assert play(hand, 1, "N>F", 10).ok
    assert not hand.is_blocked(0)  # its 2S can follow the ace


def blocked_table(rules: Rules | None = None) -> Hand:
    return make_hand(
        STUCK_SEAT, STUCK_SEAT.replace("2H QD", "3H QS").replace("JS", "JC"), rules=rules
    )


def test_an_all_blocked_table_rotates_r25() -> None:
    """R25: every seat turns its stock onto its waste, turns the waste over and moves the
    new stock's top card to the bottom. Nertz piles stay as they are."""
    hand = make_hand(
        "nertz: 2H QD; work: 5H / 9C / 7D / JS; stock: KC 2C; waste: 3S 8S",
        STUCK_SEAT,
    )
    nertz = [s.nertz[:] for s in hand.seats]
    assert hand.all_blocked()
    assert hand.tick(SETTLE_MS - 1).events == ()  # people notice after a moment
    outcome = hand.tick(SETTLE_MS)
    assert outcome.events == (Rotated(1, False),)
    seat = hand.seats[0]
    # Next pass was 3S 8S (waste, from its bottom) then 2C KC (stock, from its top);
    # after the rotation the first card of that order has gone to the end.
    order = seat.stock[::-1]
    assert [str(c) for c in order] == ["8S", "2C", "KC", "3S"]
    assert seat.waste == [] and [s.nertz for s in hand.seats] == nertz


def test_every_seat_saying_stuck_rotates_at_once_r25() -> None:
    hand = make_hand("nertz: 2H; work: 5C; stock: 9D 8D 7D", "nertz: 3H; work: 5S")
    assert play(hand, 0, "STUCK", 5).events[0].seat == 0  # type: ignore[attr-defined]
    play(hand, 0, "STUCK", 6)
    outcome = play(hand, 1, "STUCK", 7)
    assert outcome.ok and isinstance(outcome.events[-1], Rotated)
    assert not any(s.stuck for s in hand.seats)


def test_idle_table_rotates_after_idle_rotate_s_r25() -> None:
    """R25 (online): no card moving for ``idle_rotate_s`` counts as everyone stopping;
    turning the stock is not a card moving."""
    hand = make_hand("nertz: 2H; work: 5C; stock: 9D 8D 7D 6D", rules=Rules(idle_rotate_s=5))
    assert not hand.is_blocked(0)
    play(hand, 0, "T", 4_000)
    assert hand.tick(4_999).events == ()
    assert hand.tick(5_000).events == (Rotated(1, True),)
    off = make_hand("nertz: 2H; work: 5C; stock: 9D 8D", rules=Rules(idle_rotate_s=0))
    assert off.tick(10**9).events == ()


def test_still_blocked_after_the_rotation_ends_the_hand_without_a_call_r26() -> None:
    """R26: with ``max_rotations`` 1, a table still blocked after one rotation ends."""
    hand = blocked_table(Rules(caller_bonus=10))
    assert isinstance(hand.tick(SETTLE_MS).events[0], Rotated)
    outcome = hand.tick(2 * SETTLE_MS)
    assert hand.over and hand.end_reason is EndReason.BLOCKED
    assert outcome.events[0].caller is None  # type: ignore[attr-defined]
    assert all(s.bonus == 0 for s in hand.scores())
    refused_unchanged(hand, 0, "T", "hand_over")


def test_max_rotations_counts_rotations_per_blocked_spell_r26() -> None:
    hand = blocked_table(Rules(max_rotations=2))
    kinds = [type(hand.tick(SETTLE_MS * n).events[0]).__name__ for n in (1, 2, 3)]
    assert kinds == ["Rotated", "Rotated", "HandEnded"]
    hand = blocked_table(Rules(max_rotations=0))
    assert type(hand.tick(SETTLE_MS).events[0]).__name__ == "HandEnded"


def test_progress_between_rotations_starts_a_new_spell_r26() -> None:
    """After the rotation seat 1 can reach its 9H; playing it ends the blocked spell, so
    the next blocked table rotates again instead of ending the hand."""
    # Seat 1 turns 9H 2S 3S | 2C 3C 7S: only the 3S and 7S reach the top, and fit nothing.
    hand = make_hand(STUCK_SEAT, "nertz: KD; work: 10S / 10C / 6S / 6C; stock: 7S 3C 2C 3S 2S 9H")
    assert hand.is_blocked(1)
    assert hand.tick(SETTLE_MS).events == (Rotated(1, False),)
    assert not hand.is_blocked(1)  # now 2S 3S 2C | 3C 7S 9H: the 9H reaches the top
    play(hand, 1, "T", 1100)
    play(hand, 1, "T", 1200)
    assert play(hand, 1, "W>1", 1300).ok
    assert hand.all_blocked()
    assert hand.tick(1300 + SETTLE_MS).events == (Rotated(2, False),)


def test_a_deal_is_never_blocked_before_go() -> None:
    hand = Hand(Deal.from_layouts([STUCK_SEAT]))
    assert hand.tick(10**6).events == ()


def test_turning_past_a_loose_waste_card_can_block_a_seat_r24() -> None:
    """The 8H on the waste fits the 9C, but once turned under it never comes back to the
    top (the waste's groups of three fall elsewhere): after the turn the seat is blocked."""
    hand = make_hand("nertz: KH; work: 9C / 5S / 6S / 2S; stock: 3C 10C JC; waste: QC 8H")
    assert not hand.is_blocked(0)
    play(hand, 0, "T", 1)
    assert hand.is_blocked(0)
    assert hand.tick(1 + SETTLE_MS).events == (Rotated(1, False),)


def test_a_waste_card_where_every_pass_stops_stays_in_reach_r24() -> None:
    """The 8H is the third card of the cycle: every pass from the full stock stops on it,
    so after turning past it the seat can still reach it and is not blocked."""
    hand = make_hand("nertz: KH; work: 9C / 5S / 6S / 2S; stock: 3C 10C JC; waste: QC 2D 8H")
    assert not hand.is_blocked(0)
    play(hand, 0, "T", 1)
    assert hand.seats[0].waste[-1] != C("8H") and not hand.is_blocked(0)
    assert C("8H") in waste_reachable(hand.seats[0].stock, hand.seats[0].waste, 3)


def test_saying_stuck_twice_is_refused_and_a_card_move_clears_it_r25() -> None:
    hand = make_hand("nertz: 2H; work: 5C; stock: 9D 8D 7D", "nertz: 3H; work: 5S")
    assert play(hand, 0, "STUCK", 5).ok
    refused_unchanged(hand, 0, "STUCK", "already_stuck", 6)
    assert play(hand, 0, "T", 7).ok and hand.seats[0].stuck  # turning is not a card move
    assert play(hand, 0, "W>2", 8).ok and not hand.seats[0].stuck
    assert play(hand, 0, "STUCK", 9).ok
