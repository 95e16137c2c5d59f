"""R41: jokers. Every clause of the rule has a test here that names it.

"Each deck carries two jokers (54 cards, stock 37). A joker stands for any card. On work
piles it may be placed on any end card or space and anything may be placed on it; a real
card laid on a joker pins the joker's rank and colour (one above, other colour) until
that card is lifted off. To a foundation, the joker's rank and suit must be announced
while it is still on its source pile; for joker_announce_ms (default 1500) any seat
holding that real card may play it there first, after which the joker no longer fits and
stays home. A joker in the middle scores like any card; one left in the Nertz pile costs
the penalty like any card."
"""

from __future__ import annotations

import pytest

from nertz.engine import (
    Card,
    CardsMoved,
    Deal,
    Hand,
    JokerAnnounced,
    JokerStayed,
    Kind,
    Move,
    Rules,
    deal,
    full_deck,
    replay,
    view,
)

from .helpers import make_hand, play, refused_unchanged

JOKERS = Rules(jokers=True)
HEARTS_TO_6 = "AH@1 2H@1 3H@1 4H@1 5H@1 6H@1"
"""A foundation (F1) that takes the 7H next."""


def joker_hand(*layouts: str, middle: tuple[str, ...] = (), rules: Rules = JOKERS) -> Hand:
    return make_hand(*layouts, middle=middle, rules=rules)


def pinned(hand: Hand, seat: int = 0) -> list[list[str | None]]:
    return view(hand, seat)["seats"][seat]["pinned"]  # type: ignore[no-any-return]


# ---------------------------------------------------------------- the deck


def test_each_deck_carries_two_jokers_54_cards_stock_37_r41() -> None:
    hand = Hand(deal(3, JOKERS, seed=5), JOKERS)
    for seat, layout in enumerate(hand.seats):
        cards = layout.cards()
        assert len(cards) == 54
        assert sorted(str(c) for c in cards if c.is_joker) == ["JK1", "JK2"]
        assert all(c.owner == seat for c in cards)
        assert len(layout.stock) == 37 and len(layout.nertz) == 13
    assert len(full_deck(0, jokers=True)) == 54 and len(full_deck(0)) == 52


def test_without_the_option_no_deck_has_a_joker_and_a_joker_deal_is_refused_r41() -> None:
    hand = Hand(deal(2, Rules(), seed=5))
    assert not any(c.is_joker for layout in hand.seats for c in layout.cards())
    with pytest.raises(ValueError, match="jokers off"):
        Hand(Deal.from_layouts(["nertz: JK1; work: -"]), Rules())


def test_jokers_read_and_write_as_text_with_their_owner_r41() -> None:
    joker = Card.parse("JK2@3")
    assert joker is Card.joker(2, 3) and joker.is_joker and joker.tagged == "JK2@3"
    assert str(Card.joker(1)) == "JK1" and Card.joker(1).name == "joker 1"
    with pytest.raises(ValueError, match="jokers 1 and 2"):
        Card.joker(3)


# ---------------------------------------------------------------- work piles


def test_a_joker_may_be_placed_on_any_end_card_or_space_r41() -> None:
    hand = joker_hand("nertz: 2C JK1; work: KH / 4C / - / 9S; waste: JK2")
    assert play(hand, 0, "N>1").ok  # on a king, or on anything
    assert play(hand, 0, "W>3").ok  # into an empty space
    assert view(hand, 0)["seats"][0]["work"][0] == ["KH", "JK1"]


@pytest.mark.parametrize("card", ["KS", "5D", "AC", "JK2"])
def test_anything_may_be_placed_on_a_joker_r41(card: str) -> None:
    hand = joker_hand(f"nertz: {card}; work: 9H JK1 / - / - / QC")
    assert play(hand, 0, "N>1").ok
    assert hand.seats[0].work[0][-1] == Card.parse(card)


def test_a_real_card_laid_on_a_joker_pins_it_one_above_other_colour_r41() -> None:
    hand = joker_hand("nertz: 5C; work: JK1 / 7S / 7H / 8S")
    assert pinned(hand) == [[None], [None], [None], [None]]  # free until a card lies on it
    assert play(hand, 0, "N>1").ok
    assert pinned(hand)[0] == ["red 6", None]
    # The run JK1 5C moves only where a red 6 would (R17): on a black 7.
    reason = refused_unchanged(hand, 0, "1/2>3", "does_not_fit")
    assert "joker stands for a red 6" in reason and "R41" in reason
    refused_unchanged(hand, 0, "1/2>4", "does_not_fit")
    assert play(hand, 0, "1/2>2").ok
    assert hand.seats[0].work[1] == [Card.parse("7S"), Card.joker(1), Card.parse("5C")]


def test_the_pin_lasts_until_that_card_is_lifted_off_r41() -> None:
    hand = joker_hand("nertz: -; work: 9C JK1 5C / - / 6H / 2D")
    assert pinned(hand)[0] == [None, "red 6", None]
    assert play(hand, 0, "1>3").ok  # the 5C lifted off onto the red 6
    assert pinned(hand)[0] == [None, None]
    assert play(hand, 0, "1>4").ok  # free again: a joker goes on any end card
    assert hand.seats[0].work[3] == [Card.parse("2D"), Card.joker(1)]


def test_jokers_on_jokers_pin_in_a_chain_r41() -> None:
    hand = joker_hand("nertz: -; work: JK1 JK2 5C / 8D / 8S / -")
    assert pinned(hand)[0] == ["black 7", "red 6", None]
    refused_unchanged(hand, 0, "1/3>3", "does_not_fit")  # a black 7 on a black 8
    assert play(hand, 0, "1/3>2").ok  # a black 7 on a red 8


def test_a_king_on_a_joker_leaves_nothing_it_could_lie_on_r41() -> None:
    hand = joker_hand("nertz: KD; work: JK1 / - / - / -")
    assert play(hand, 0, "N>1").ok
    assert pinned(hand)[0] == ["black above a king (nothing fits under it)", None]


def test_slide_under_a_joker_head_follows_its_pin_r19_r41() -> None:
    hand = joker_hand("nertz: 8S; work: JK1 5C / - / 4D / 3C; waste: 7S")
    # The head JK1 stands for a red 6, so a black 7 may slide under it, not a black 8.
    reason = refused_unchanged(hand, 0, "N<1", "does_not_fit")
    assert "stands for a red 6" in reason
    assert play(hand, 0, "W<1").ok
    assert hand.seats[0].work[0] == [Card.parse("7S"), Card.joker(1), Card.parse("5C")]


def test_a_free_joker_head_takes_anything_under_it_and_a_joker_slides_under_any_head_r41() -> None:
    hand = joker_hand("nertz: QD; work: JK1 / - / 9S / 4H; waste: JK2")
    assert play(hand, 0, "N<1").ok  # the head JK1 is free: the QD slides under it
    assert play(hand, 0, "W<3").ok  # a joker slides under the 9S (the 9S lies on it)
    assert hand.seats[0].work[2] == [Card.joker(2), Card.parse("9S")]
    assert pinned(hand)[2] == ["red 10", None]


# ---------------------------------------------------------------- the middle


def test_a_joker_goes_to_a_foundation_only_announced_r41() -> None:
    hand = joker_hand("nertz: JK1; work: -", "nertz: 2C; work: -", middle=(HEARTS_TO_6,))
    reason = refused_unchanged(hand, 0, "N>F", "does_not_fit")
    assert "announced" in reason and "N>F=7H" in reason


def test_an_announced_joker_lands_as_that_card_when_nobody_plays_it_first_r41() -> None:
    hand = joker_hand("nertz: 3S JK1; work: -", "nertz: 2C; work: 8H", middle=(HEARTS_TO_6,))
    outcome = play(hand, 0, "N>F=7H", at_ms=100)
    assert outcome.ok
    (announced,) = outcome.events
    assert isinstance(announced, JokerAnnounced)
    assert (announced.foundation, announced.until_ms) == (0, 100 + 1500)
    # While it is announced the joker is still on its pile (R41) and everyone sees it.
    seen = view(hand, 1)
    assert seen["seats"][0]["nertz_top"] == "JK1"
    assert seen["announcements"] == [
        {
            "seat": 0,
            "move": "N>F1=7H",
            "joker": "JK1",
            "as": "7H",
            "foundation": 1,
            "until_ms": 1600,
        }
    ]
    hand.tick(1000)  # the table's look for a blocked table (R25) comes and goes
    assert hand.next_deadline() == 1600  # then the announcement's end is the next timer
    assert hand.tick(1599).events == ()
    landed = hand.tick(1600).events
    assert len(landed) == 1 and isinstance(landed[0], CardsMoved)
    assert landed[0].cards == (Card.joker(1, 0),) and landed[0].foundation == 0
    assert landed[0].revealed == Card.parse("3S")
    seen = view(hand, 1)
    assert seen["foundations"][0]["top"] == "JK1" and seen["foundations"][0]["top_as"] == "7H"
    assert seen["announcements"] == []
    # The joker stands for the 7H: the 8H goes on it; the real 7H no longer fits.
    assert play(hand, 1, "1>F1", at_ms=1700).ok


def test_a_seat_holding_the_real_card_may_play_it_first_and_the_joker_stays_home_r41() -> None:
    hand = joker_hand("nertz: 3S JK1; work: -", "nertz: 7H; work: -", middle=(HEARTS_TO_6,))
    assert play(hand, 0, "N>F1=7H", at_ms=100).ok
    assert play(hand, 1, "N>F1", at_ms=900).ok  # the real 7H, within the window
    (stayed,) = hand.tick(1600).events
    assert isinstance(stayed, JokerStayed)
    assert stayed.joker == Card.joker(1) and "7 of hearts reached F1 first" in stayed.reason
    assert hand.seats[0].nertz[-1] == Card.joker(1)  # home: still on its Nertz pile
    assert [str(c) for c in hand.foundations[0].cards][-1] == "7H"
    assert hand.middle == [0, 7]  # seat 1's six hearts and its 7H; nothing of seat 0


def test_after_the_window_the_real_card_is_beaten_to_it_r16_r41() -> None:
    hand = joker_hand("nertz: JK1; work: -", "nertz: 7H; work: -", middle=(HEARTS_TO_6,))
    assert play(hand, 0, "N>F1=7H", at_ms=0).ok
    hand.tick(1500)
    assert "beaten to it" in refused_unchanged(hand, 1, "N>F1", "beaten")


def test_a_joker_announced_as_an_ace_starts_a_new_foundation_r12_r41() -> None:
    hand = joker_hand("nertz: JK2; work: -", "nertz: 2S; work: -")
    assert "starts a new foundation" in refused_unchanged(hand, 0, "N>F1=AS", "does_not_fit")
    assert play(hand, 0, "N>F=AS", at_ms=10).ok
    (landed,) = hand.tick(1510).events
    assert isinstance(landed, CardsMoved) and landed.foundation == 0
    assert view(hand, 1)["foundations"][0]["top_as"] == "AS"
    assert play(hand, 1, "N>F1", at_ms=1600).ok  # the 2S follows the joker-ace


def test_an_announcement_must_name_a_card_its_foundation_takes_now_r13_r41() -> None:
    hand = joker_hand("nertz: JK1; work: 5C", "nertz: 2C; work: -", middle=(HEARTS_TO_6,))
    assert "does not take the 8 of hearts" in refused_unchanged(hand, 0, "N>F1=8H", "does_not_fit")
    assert "no foundation takes" in refused_unchanged(hand, 0, "N>F=8H", "does_not_fit")
    assert "only a joker" in refused_unchanged(hand, 0, "1>F=7H", "does_not_fit")


def test_a_joker_is_announced_once_and_lands_only_from_its_pile_r41() -> None:
    hand = joker_hand("nertz: 3S JK1; work: - / 9D", "nertz: 2C; work: -", middle=(HEARTS_TO_6,))
    assert play(hand, 0, "N>F1=7H", at_ms=0).ok
    assert "already announced" in refused_unchanged(hand, 0, "N>F=7H", "joker_announced")
    assert play(hand, 0, "N>2", at_ms=10).ok  # the seat moves the joker away meanwhile
    (stayed,) = hand.tick(1500).events
    assert isinstance(stayed, JokerStayed) and "left its pile" in stayed.reason
    assert hand.foundations[0].top_rank == 6


def test_announcements_are_listed_among_the_legal_moves_r41() -> None:
    hand = joker_hand("nertz: JK1; work: 4C", "nertz: 2D; work: -", middle=(HEARTS_TO_6,))
    legal = {m.text for m in hand.legal_moves(0)}
    assert {"N>F1=7H", "N>F=AC", "N>F=AD", "N>F=AH", "N>F=AS"} <= legal
    assert all(Move.parse(t).kind is Kind.ANNOUNCE for t in legal if "=" in t)
    assert "N>F" not in legal
    play(hand, 0, "N>F1=7H")
    assert not any("=" in m.text for m in hand.legal_moves(0))  # announced: no second one


def test_an_announcement_still_open_at_the_end_lands_if_its_place_is_free_r28_r41() -> None:
    hand = joker_hand("nertz: JK1; work: -", "nertz: -; work: -", middle=(HEARTS_TO_6,))
    assert play(hand, 0, "N>F1=7H", at_ms=0).ok
    assert play(hand, 1, "NERTZ", at_ms=100).ok
    refused_unchanged(hand, 0, "N>F1=7H", "already_called")
    events = hand.tick(100 + hand.rules.landing_ms).events
    assert [type(e).__name__ for e in events] == ["CardsMoved", "HandEnded"]
    assert hand.scores()[0].score == 1  # the joker scores in the middle, nothing left


# ---------------------------------------------------------------- scoring and blocking


def test_a_joker_in_the_middle_scores_like_any_card_and_one_left_costs_the_penalty_r30_r41() -> (
    None
):
    hand = joker_hand("nertz: JK2 JK1; work: -", "nertz: 5C; work: -", middle=(HEARTS_TO_6,))
    play(hand, 0, "N>F1=7H", at_ms=0)
    hand.tick(1500)
    scores = hand.scores()
    assert (scores[0].middle, scores[0].nertz_left, scores[0].score) == (1, 1, 1 - 2)
    assert scores[1].middle == 6  # the foundation's other cards are seat 1's


def test_a_joker_within_reach_means_the_seat_is_not_blocked_r24_r41() -> None:
    plain = make_hand("nertz: 9C; work: KD / KH / KS / KC; stock: 5C 5S; waste: 2D")
    assert plain.is_blocked(0)
    hand = joker_hand("nertz: 9C; work: KD / KH / KS / KC; stock: JK1 5C; waste: 2D")
    assert not hand.is_blocked(0)  # the joker turns up and can be announced as an ace
    deep = joker_hand("nertz: 9C; work: KD JK1 QD / KH / KS / KC; waste: 2D")
    assert not deep.is_blocked(0)  # under the QD, but work-pile moves cannot free it...
    # ...except that the QD may go on the KC or KS (R17), which exposes the joker.


def test_a_joker_hand_replays_from_its_log_r41() -> None:
    hand = joker_hand("nertz: 3S JK1; work: 4D", "nertz: 7H; work: -", middle=(HEARTS_TO_6,))
    play(hand, 0, "N>F1=7H", at_ms=5)
    hand.tick(1505)
    play(hand, 0, "N>1", at_ms=1600)
    again = replay(hand.deal, hand.rules, hand.log)
    assert again.snapshot() == hand.snapshot()


# ---------------------------------------------------------------- fits that play() once let through


def test_a_pinned_joker_moves_only_where_its_pin_fits_r41() -> None:
    """R41, R17: the 5S pins the joker as a red 6; the run it heads may go on a black 7,
    never on the ace of hearts, whose rank is one above the joker's 0."""
    hand = make_hand("nertz: 9C; work: JK1 5S / AH / 7C / 3C; stock: 5H", "nertz: 4D", rules=JOKERS)
    assert "1/2>2" not in [str(m) for m in hand.legal_moves(0)]
    reason = refused_unchanged(hand, 0, "1/2>2", "does_not_fit")
    assert "red 6" in reason
    assert play(hand, 0, "1/2>3").ok


def test_only_what_a_pinned_head_stands_for_slides_under_it_r41() -> None:
    """R41, R19: the head joker stands for a red 6 (the 5S lies on it), so the ace of
    hearts may not slide under it; a black 7 may."""
    hand = make_hand(
        "nertz: 7C; work: JK1 5S / - / KH / 3C; stock: 5H; waste: AH", "nertz: 4D", rules=JOKERS
    )
    assert "W<1" not in [str(m) for m in hand.legal_moves(0)]
    assert "red 6" in refused_unchanged(hand, 0, "W<1", "does_not_fit")
    assert play(hand, 0, "N<1").ok


def test_an_announcement_after_the_real_card_landed_is_beaten_r41_r16() -> None:
    """R41, R16: seat 1's 2H reaches F1 first; seat 0's joker announced as the 2H
    arrives after it. That is a lost race (``beaten``), not a misplay, for F1 and for
    "any foundation" alike."""
    hand = make_hand(
        "nertz: 9C; work: 7C; stock: 5H; waste: JK1",
        "nertz: 4D 2H; work: 2S",
        middle=["AH@1"],
        rules=JOKERS,
    )
    assert play(hand, 1, "N>F", 5).ok
    for text in ("W>F1=2H", "W>F=2H"):
        assert "F1 already has the 2 of hearts" in refused_unchanged(hand, 0, text, "beaten", 10)
    refused_unchanged(hand, 0, "W>F=3S", "does_not_fit", 10)  # never there: a misplay


def test_a_second_announcement_for_the_same_place_is_beaten_r41_r16() -> None:
    """R41, R16: seat 0's joker is announced as the 7H for F1; seat 1's joker announced
    as the same card for the same place while the first is open has lost that race, and
    only the first lands. Another place (a new foundation) is free to announce for."""
    hand = joker_hand("nertz: 3S JK1; work: 5C", "nertz: 2C JK2; work: -", middle=(HEARTS_TO_6,))
    assert play(hand, 0, "N>F1=7H", at_ms=0).ok
    for text in ("N>F1=7H", "N>F=7H"):
        reason = refused_unchanged(hand, 1, text, "beaten", 10)
        assert reason == (
            "beaten to it: a joker is already announced as the 7 of hearts for F1 (R41)"
        )
    assert play(hand, 1, "N>F=AS", at_ms=20).ok  # an ace starts a foundation of its own
    assert len(hand.tick(1500).events) == 1
    assert hand.foundations[0].top_rank == 7


def test_a_pile_longer_than_thirteen_moves_as_one_run_r41() -> None:
    """R41, R18: anything lies on a joker, so a king may start again on the joker that
    lies on an ace: here a work pile of 16 cards, every run of which can move into the
    empty space, in play and in notation."""
    pile = "KS QH JS 10H 9S 8H 7S 6H 5S 4H 3S 2H AS JK1"
    hand = make_hand(f"nertz: 9C QC KD; work: {pile} / - / 5D / 3C", "nertz: 4D", rules=JOKERS)
    assert play(hand, 0, "N>1").ok and play(hand, 0, "N>1").ok
    assert {"1/16>2", "1/3>2"} <= {str(m) for m in hand.legal_moves(0)}
    assert play(hand, 0, "1/16>2").ok
    assert hand.seats[0].to_text().startswith(f"nertz: 9C; work: - / {pile} KD QC /")


def test_an_open_announcement_keeps_the_table_from_idling_r25_r41() -> None:
    """R25's idle rotation counts time with no card moving; a joker announced for the
    middle is a card on its way, so the table does not rotate under it."""
    rules = Rules(jokers=True, idle_rotate_s=1, joker_announce_ms=1500)
    hand = joker_hand(
        "nertz: JK1; work: 5C", "nertz: 2C; work: -", middle=(HEARTS_TO_6,), rules=rules
    )
    assert play(hand, 0, "N>F1=7H", at_ms=900).ok
    assert hand.tick(1000).events == ()  # a second with no card moved, but one is coming
    assert hand.next_deadline() == 2400  # and the idle rotation waits for it
    (landed,) = hand.tick(2400).events
    assert isinstance(landed, CardsMoved) and hand.rotations_total == 0
    assert [type(e).__name__ for e in hand.tick(3400).events] == ["Rotated"]  # idle again
