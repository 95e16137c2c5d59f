"""A finished hand analysed for one seat (``nertz.analysis``): the cards it let wait
for the middle (R12-R14), how each chance ended (R16, R28), what working the Nertz pile
first would have left (R29) and the expert bots' choice at a moment."""

from __future__ import annotations

from nertz.analysis import MISSED_MS, bots_choice, missed_plays, nertz_first, summarise
from nertz.analysis.missed import Ended
from nertz.engine import Deal, HandText, Kind, LogEntry, Move, Rules

RULES = Rules()
GO: LogEntry = (1000, -1, "GO")


def hand(layouts: tuple[str, ...], *inputs: LogEntry, middle: tuple[str, ...] = ()) -> HandText:
    """A hand of written layouts, Go at 1000 ms, then ``inputs``."""
    return HandText(1, Deal.from_layouts(layouts, middle), (GO, *inputs))


ACE_ON_TOP = "nertz: 5C AS; work: 9D / 8C / 7H / 6S; stock: KD QD; waste: -"
OTHER = "nertz: KC QC; work: 9H / 8S / 7D / 6C; stock: JD 10D; waste: -"


def test_an_ace_left_on_the_nertz_pile_three_seconds_is_a_missed_play_r12() -> None:
    played = hand((ACE_ON_TOP, OTHER), (4000, 0, "N>F"))
    [missed] = missed_plays(RULES, played, 0)
    assert str(missed.card) == "AS" and missed.source == "Nertz pile"
    assert (missed.from_ms, missed.until_ms, missed.waited_ms) == (0, 3000, 3000)
    assert missed.ended is Ended.PLAYED


def test_a_card_played_at_playing_speed_is_no_missed_play() -> None:
    prompt = hand((ACE_ON_TOP, OTHER), (1000 + MISSED_MS - 1, 0, "N>F"))
    assert missed_plays(RULES, prompt, 0) == ()


def test_a_waiting_card_whose_place_another_seat_takes_ended_taken_r16() -> None:
    # Both seats hold a 2H; the middle's AH wants one. Seat 1's goes first at 3.5 s.
    mine = "nertz: 5C 9S; work: 9D / 8C / 7H / 6S; stock: KD; waste: 2H"
    theirs = "nertz: KC 2H; work: 9H / 8S / 7D / 6C; stock: JD"
    taken = hand((mine, theirs), (4500, 1, "N>F"), (9000, 0, "T"), middle=("AH@1",))
    [missed] = missed_plays(RULES, taken, 0)
    assert str(missed.card) == "2H" and missed.source == "waste"
    assert (missed.from_ms, missed.until_ms, missed.ended) == (0, 3500, Ended.TAKEN)


def test_a_card_covered_by_turning_the_stock_ended_moved_and_one_left_to_the_end() -> None:
    covered = hand(
        ("nertz: 5C 9S; work: 9D / 8C / 7H / 6S; stock: KD; waste: AD", OTHER),
        (3500, 0, "T"),
        (6000, 1, "T"),
    )
    [turned] = missed_plays(RULES, covered, 0)
    assert (str(turned.card), turned.ended, turned.waited_ms) == ("AD", Ended.MOVED, 2500)
    waiting = hand((ACE_ON_TOP, OTHER), (7000, 1, "T"))
    [left] = missed_plays(RULES, waiting, 0)
    assert (left.ended, left.until_ms) == (Ended.HAND_END, 6000)
    # The summary walks the hand once for all its figures: the same missed plays.
    for played in (covered, waiting):
        assert summarise(RULES, played, 0).missed == missed_plays(RULES, played, 0)


def test_working_the_nertz_pile_first_would_have_left_fewer_cards_r29() -> None:
    # The 9C on top of the Nertz pile goes onto the 10H, then the 7H onto the 8C empties
    # a pile for the KS (R17, R18); the seat turned its stock three times instead.
    seat = "nertz: KS 9C; work: 10H / 8C / 7H / QS; stock: 2D 3D 4D; waste: -"
    turned = hand((seat, OTHER), (2000, 0, "T"), (3000, 0, "T"), (4000, 0, "T"))
    first = nertz_first(RULES, turned, 0)
    assert (first.left, first.first_left, first.could_have_played) == (2, 0, 2)
    assert not first.first_called and first.others_refused == 0
    summary = summarise(RULES, turned, 0, races=(2, 1))
    assert (summary.nertz_left, summary.to_middle) == (2, 0)
    assert (summary.races_won, summary.races_lost) == (2, 1)
    assert summary.first == first
    assert summary.as_dict()["nertz_first"] == first.as_dict()


def test_working_the_nertz_pile_first_would_have_called_nertz_r27() -> None:
    # One Nertz card, an ace: the seat played a work-pile card and never the ace.
    seat = "nertz: AS; work: 10H / 8C / 7H / QS; stock: 2D; waste: -"
    slow = hand((seat, OTHER), (2000, 0, "T"), (2500, 0, "T"))
    first = nertz_first(RULES, slow, 0)
    assert (first.left, first.first_left, first.first_called) == (1, 0, True)


def test_the_bots_choice_is_a_legal_move_of_that_moment_and_none_outside_play() -> None:
    played = hand((ACE_ON_TOP, OTHER), (4000, 0, "N>F"), (9000, 1, "T"))
    advice = bots_choice(RULES, played, 0, 500)
    assert advice.move is not None and advice.reason is None
    move = Move.parse(advice.move)
    assert (move.kind, move.src) == (Kind.FOUNDATION, 4)  # the ace on the Nertz pile
    before = bots_choice(RULES, hand((ACE_ON_TOP, OTHER)), 0, 0)
    assert before.move is not None  # at Go itself the hand is on (R8)
    never_went = HandText(1, Deal.from_layouts((ACE_ON_TOP, OTHER)), ())
    waiting = bots_choice(RULES, never_went, 0, 0)
    assert waiting.move is None and waiting.reason == "the hand had not started"
