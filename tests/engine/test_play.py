"""Playing cards: the start, the middle, work piles, Nertz pile, stock and waste (R4, R8-R23)."""

import pytest

from nertz.engine import Card, CardsMoved, Hand, Move, Rules, StockTurned, deal

from .helpers import make_hand, play, refused_unchanged

C = Card.parse


def test_no_move_before_go_r8() -> None:
    """R8: everyone starts on the same signal; a move before Go is refused."""
    hand = make_hand("nertz: AH; work: -", go=False)
    refused_unchanged(hand, 0, "N>F", "not_started")
    assert hand.start(10).ok
    assert play(hand, 0, "N>F", 10).ok
    assert not hand.start(20).ok


def test_nobody_takes_turns_and_waiting_is_allowed_r9() -> None:
    """R9: seats play at once in any order, as often as they like; nobody must play."""
    hand = make_hand(
        "nertz: 5C AH; work: -; stock: 9D 8D 7D",
        "nertz: 3C 2D AD; work: -",
    )
    for at in (1, 2, 3):
        assert play(hand, 1, ["N>F", "N>F", "N>1"][at - 1], at).ok, at
    assert play(hand, 0, "N>F", 4).ok  # seat 0 waited, then plays
    assert hand.tick(5).events == ()  # waiting changes nothing
    assert [str(m) for m in hand.legal_moves(0)][-1] == "STUCK"


def test_one_card_at_a_time_r10() -> None:
    """R10: one card moves at a time; only a run between work piles moves several."""
    for text in ("N/2>1", "W/2>1"):
        with pytest.raises(ValueError, match="not a move"):
            Move.parse(text)
    hand = make_hand("nertz: 9D; work: 8H 7S / - / 9C / -; waste: 2C 6H")
    outcome = play(hand, 0, "W>1")
    assert outcome.ok and isinstance(outcome.events[0], CardsMoved)
    assert outcome.events[0].cards == (C("6H"),)
    assert hand.seats[0].waste == [C("2C")]
    outcome = play(hand, 0, "1/3>3")
    assert outcome.ok and len(outcome.events[0].cards) == 3
    assert [str(c) for c in hand.seats[0].work[2]] == ["9C", "8H", "7S", "6H"]


def test_a_seat_touches_only_its_own_layout_and_the_middle_r11() -> None:
    """R11: a seat moves only its own cards; nothing comes back out of the middle."""
    hand = make_hand("nertz: 2H AH; work: 5C", "nertz: 3H; work: 4D")
    other = hand.seats[1].to_text()
    assert play(hand, 0, "N>F").ok and play(hand, 0, "N>F").ok
    assert hand.seats[1].to_text() == other
    for text in ("F1>2", "F>N"):
        with pytest.raises(ValueError):
            Move.parse(text)


def test_any_ace_starts_a_new_foundation_and_suits_repeat_r12() -> None:
    """R12: an ace starts a foundation; several foundations of one suit grow side by side."""
    hand = make_hand("nertz: AH; work: -", "nertz: AH; work: -")
    assert play(hand, 0, "N>F", 1).ok and play(hand, 1, "N>F", 2).ok
    assert [(f.number, str(f.cards[0]), f.cards[0].owner) for f in hand.foundations] == [
        (0, "AH", 0),
        (1, "AH", 1),
    ]
    hand = make_hand("nertz: AS; work: -", middle=["AH@0"])
    reason = refused_unchanged(hand, 0, "N>F1", "does_not_fit")
    assert "starts a new foundation" in reason


def test_foundations_take_the_next_rank_of_their_suit_from_anyone_r13() -> None:
    """R13: exactly the next rank of its own suit; anyone may build on any foundation."""
    hand = make_hand("nertz: 3H 2H; work: 2D / 3S", "nertz: AH; work: -")
    assert play(hand, 1, "N>F", 1).ok  # seat 1 starts it
    refused_unchanged(hand, 0, "1>F1", "does_not_fit", 2)  # 2D on AH: wrong suit
    refused_unchanged(hand, 0, "2>F", "does_not_fit", 2)  # 3S: nothing takes it
    assert play(hand, 0, "N>F1", 3).ok  # seat 0 builds on seat 1's ace
    assert play(hand, 0, "N>F", 4).ok
    assert [c.tagged for c in hand.foundations[0].cards] == ["AH@1", "2H@0", "3H@0"]


def test_only_the_tops_and_end_cards_go_to_the_middle_r14() -> None:
    """R14: Nertz top, waste top, and each work pile's end card; nothing buried."""
    hand = make_hand("nertz: AS 9H; work: 2D AC / KH; waste: AH 7C")
    legal = {str(m) for m in hand.legal_moves(0)}
    assert "1>F" in legal  # the AC ends pile 1
    assert "W>F" not in legal and "N>F" not in legal  # AH is under 7C, AS under 9H
    assert play(hand, 0, "1>F").ok
    assert [str(c) for c in hand.seats[0].work[0]] == ["2D"]


def test_a_foundation_at_its_king_is_finished_but_still_counts_r15() -> None:
    """R15: a foundation that reaches its king is set aside; its cards still score."""
    spades = " ".join(
        f"{r}S@0" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"]
    )
    hand = make_hand("nertz: KS; work: -", middle=[spades])
    assert play(hand, 0, "N>F1").ok
    assert hand.foundations[0].finished and hand.wants == {}
    assert hand.middle == [13]
    assert hand.scores()[0].middle == 13


def test_work_piles_build_down_in_alternating_colours_r17() -> None:
    """R17: a red 6 on a black 7, never black on black or a rank apart."""
    hand = make_hand("nertz: 6D; work: 7C / 8S / 8H / 9C; waste: 6C")
    refused_unchanged(hand, 0, "W>1", "does_not_fit")  # black 6 on black 7
    refused_unchanged(hand, 0, "N>2", "does_not_fit")  # 6 on 8
    assert play(hand, 0, "N>1").ok
    assert play(hand, 0, "1/2>3").ok  # black 7 and red 6 onto the red 8
    assert [str(c) for c in hand.seats[0].work[2]] == ["8H", "7C", "6D"]


def test_runs_move_with_every_card_on_top_r17() -> None:
    """R17: a card moves together with every card on top of it, onto a fitting end card."""
    hand = make_hand("nertz: 2S; work: 7C / 6H 5S 4D / 8D / 9C")
    refused_unchanged(hand, 0, "2/2>4", "does_not_fit")  # 5S on 9C
    refused_unchanged(hand, 0, "2/4>1", "not_available")  # pile 2 has three cards
    refused_unchanged(hand, 0, "2/3>2", "same_pile")
    assert play(hand, 0, "2/3>1").ok  # 6H 5S 4D onto 7C
    assert [str(c) for c in hand.seats[0].work[0]] == ["7C", "6H", "5S", "4D"]
    assert hand.seats[0].work[1] == []
    assert play(hand, 0, "1/4>3").ok  # the whole pile, 7C first, onto 8D
    assert [str(c) for c in hand.seats[0].work[2]] == ["8D", "7C", "6H", "5S", "4D"]
    assert "3/2>1" in {str(m) for m in hand.legal_moves(0)}  # runs into an empty space


def test_an_empty_space_takes_any_card_r18() -> None:
    """R18: an empty space takes the Nertz top, the waste top, or any card of a work pile
    with the cards on top of it; it need not be a king."""
    hand = make_hand("nertz: 4H; work: 9S 8D 7C / - / - / -; waste: 2C")
    assert play(hand, 0, "N>2").ok
    assert play(hand, 0, "W>3").ok
    assert play(hand, 0, "1/2>4").ok  # 8D and the 7C on it
    work = [[str(c) for c in p] for p in hand.seats[0].work]
    assert work == [["9S"], ["4H"], ["2C"], ["8D", "7C"]]


def test_slide_under_needs_an_empty_space_and_never_makes_a_fifth_pile_r19() -> None:
    """R19: with a space empty, an available card slides beneath another pile's head if
    it is one rank higher and of the other colour."""
    hand = make_hand("nertz: 9C; work: 8H 7S / 7C / 6H / -; waste: 9S")
    refused_unchanged(hand, 0, "W<3", "does_not_fit")  # 9S under 6H: not one higher
    refused_unchanged(hand, 0, "W<4", "not_available")  # nothing to slide under
    assert play(hand, 0, "N<1").ok
    assert [str(c) for c in hand.seats[0].work[0]] == ["9C", "8H", "7S"]
    assert len(hand.seats[0].work) == 4 and hand.seats[0].work[3] == []
    assert play(hand, 0, "2<3").ok  # a work pile's end card slides under too
    assert [str(c) for c in hand.seats[0].work[2]] == ["7C", "6H"]
    assert hand.seats[0].work[1] == []


def test_slide_under_is_refused_without_an_empty_space_r19() -> None:
    hand = make_hand("nertz: 9C; work: 8H / 5C / 6H / 2S")
    reason = refused_unchanged(hand, 0, "N<1", "no_empty_space")
    assert "empty work space" in reason


def test_the_nertz_card_goes_anywhere_and_the_next_turns_up_r20_r4() -> None:
    """R20: the top Nertz card may go to a foundation, a work pile or a space;
    R4: when it leaves, the next card turns face up at once."""
    hand = make_hand("nertz: QS 4C 5H 2H AH; work: 6C / - / 3D / 9D")
    events = [play(hand, 0, t).events[0] for t in ("N>F", "N>F", "N>1", "N>1", "N>2")]
    revealed = [e.revealed for e in events if isinstance(e, CardsMoved)]
    assert [str(c) if c else None for c in revealed] == ["2H", "5H", "4C", "QS", None]
    assert hand.seats[0].nertz == []


def test_the_stock_turns_three_at_a_time_third_card_on_top_r21() -> None:
    """R21: three cards in order, the third ends on top; only the top is in play."""
    hand = make_hand("nertz: KS; work: -; stock: 9H 8H 7H 6H 5H")
    outcome = play(hand, 0, "T")
    assert isinstance(outcome.events[0], StockTurned)
    assert [str(c) for c in outcome.events[0].cards] == ["5H", "6H", "7H"]
    assert hand.seats[0].waste[-1] == C("7H")
    assert play(hand, 0, "W>1").ok  # playing it exposes the one beneath
    assert hand.seats[0].waste[-1] == C("6H")


def test_the_last_one_or_two_stock_cards_turn_alone_r22() -> None:
    """R22: with only one or two stock cards left, turn just those."""
    hand = make_hand("nertz: KS; work: -; stock: 9H 8H 7H 6H 5H")
    play(hand, 0, "T")
    outcome = play(hand, 0, "T")
    assert [str(c) for c in outcome.events[0].cards] == ["8H", "9H"]
    assert hand.seats[0].stock == [] and hand.seats[0].waste[-1] == C("9H")


def test_an_empty_stock_turns_the_waste_over_unchanged_r23() -> None:
    """R23: the whole waste becomes the stock, order unchanged, no shuffle, no tuck."""
    hand = make_hand("nertz: KS; work: -; stock: 9H 8H 7H 6H 5H")
    first = [play(hand, 0, "T").events[0].cards for _ in range(2)]
    outcome = play(hand, 0, "T")
    assert outcome.events[0].cards == ()  # the waste turned over
    assert hand.seats[0].waste == [] and len(hand.seats[0].stock) == 5
    again = [play(hand, 0, "T").events[0].cards for _ in range(2)]
    assert again == first


def test_nothing_to_turn() -> None:
    hand = make_hand("nertz: KS; work: -")
    refused_unchanged(hand, 0, "T", "nothing_to_turn")


def test_a_missing_source_card_is_not_available() -> None:
    hand = make_hand("nertz: KS; work: 5H / - / - / -")
    for text in ("W>F", "W>1", "2>F", "2>1", "W<1"):
        refused_unchanged(hand, 0, text, "not_available")


def test_unknown_foundation_and_seat() -> None:
    hand = make_hand("nertz: 2H; work: -", middle=["AH@0"])
    refused_unchanged(hand, 0, "N>F2", "no_such_foundation")
    assert not hand.play(3, Move.parse("N>F1"), 0).ok
    assert hand.play(3, Move.parse("N>F1"), 0).code.value == "no_such_seat"


def test_a_dealt_hand_offers_turns_and_stuck_at_first() -> None:
    hand = Hand(deal(2, Rules(), seed=4))
    hand.start(0)
    assert "T" in {str(m) for m in hand.legal_moves(0)}
