"""Duplicate Nertz (option ``duplicate``, R42-R46 of docs/rules-decisions.md): the
rotated deals, the duplicate scores and the end of a duplicate match."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nertz.engine import (
    Match,
    Rules,
    RulesError,
    dealt_seat,
    duplicate_scores,
    duplicate_totals,
    rotated,
    rotation_of,
    score,
)
from nertz.engine.layout import deal


def hand(*values: int, caller: int | None = None, rules: Rules | None = None) -> tuple:
    """Scores for one hand from cards in the middle (none left in the Nertz piles)."""
    rules = rules or Rules(duplicate=True)
    return tuple(score(v, 0, seat == caller, rules) for seat, v in enumerate(values))


def test_a_three_seat_rotation_worked_by_hand_r43() -> None:
    """R43 with three seats, the scores of one deal's rotation:

    ======  ======  ======  ======
    hand    seat 0  seat 1  seat 2
    ======  ======  ======  ======
    1       10 (A)  5 (B)   0 (C)
    2       7 (B)   7 (C)   7 (A)
    3       1 (C)   2 (A)   3 (B)
    ======  ======  ======  ======

    (letters: the cards dealt to seats 0, 1, 2 on hand 1; R42 moves them on one seat a
    hand). A was played for 10, 7 and 2: average 19/3; B for 5, 7, 3: 5; C for 0, 7, 1:
    8/3. Seat 0 on hand 1 played A for 10: 10 - 19/3 = 11/3."""
    got = duplicate_scores([[10, 5, 0], [7, 7, 7], [1, 2, 3]], 3)
    third = Fraction(1, 3)
    assert got == [
        [11 * third, 0, -8 * third],
        [2, 13 * third, 2 * third],
        [-5 * third, -13 * third, -2],
    ]
    # seat 0: 11/3 + 2 - 5/3 = 4; seat 1: 0 + 13/3 - 13/3 = 0; seat 2: -8/3 + 2/3 - 2 = -4
    assert duplicate_totals([[10, 5, 0], [7, 7, 7], [1, 2, 3]], 3) == [4, 0, -4]


def test_a_rotation_not_yet_complete_is_pending_r44() -> None:
    got = duplicate_scores([[10, 5, 0], [7, 7, 7], [1, 2, 3], [4, 4, 4]], 3)
    assert got[3] == [None, None, None]
    assert duplicate_totals([[4, 4, 4]], 3) == [0, 0, 0]


@given(
    seats=st.integers(2, 8),
    rotations=st.integers(1, 3),
    data=st.data(),
)
def test_every_layouts_duplicate_scores_sum_to_zero_r43(
    seats: int, rotations: int, data: st.DataObject
) -> None:
    """Property (R43): over one deal's rotation, the duplicate scores of everyone who
    played the cards dealt to one seat add up to zero, for every seat of the deal; so
    the duplicate scores of a whole rotation add up to zero too."""
    scores = st.integers(-26, 60)
    hands = [[data.draw(scores) for _ in range(seats)] for _ in range(seats * rotations)]
    got = duplicate_scores(hands, seats)
    for first in range(0, len(hands), seats):
        for dealt in range(seats):
            played = [got[first + k][(dealt - k) % seats] for k in range(seats)]
            assert all(v is not None for v in played)
            assert sum(v for v in played if v is not None) == 0
        rotation = [v for h in got[first : first + seats] for v in h if v is not None]
        assert sum(rotation) == 0


@given(seed=st.integers(0, 2**32), seats=st.integers(2, 8), jokers=st.booleans())
def test_rotated_deals_move_each_seats_cards_on_one_seat_a_hand_r42(
    seed: int, seats: int, jokers: bool
) -> None:
    """R42: on the k-th hand of a rotation seat s plays the cards dealt to seat
    (s + k) % n, with its own backs (R1); after n hands the deal is back where it was."""
    rules = Rules(jokers=jokers)
    dealt = deal(seats, rules, seed)
    for shift in range(seats):
        moved = rotated(dealt, shift)
        for seat in range(seats):
            mine = moved.build_layouts()[seat]
            theirs = dealt.build_layouts()[dealt_seat(seat, shift, seats)]
            assert [str(c) for c in mine.cards()] == [str(c) for c in theirs.cards()]
            assert {c.owner for c in mine.cards()} == {seat}
    assert rotated(dealt, seats).layouts == dealt.layouts
    assert rotation_of(seats * 2 + 1, seats) == (2, 1)


def test_a_duplicate_race_ends_only_after_a_whole_rotation_r45() -> None:
    """R45: the target reached mid-rotation does not end the match; the rotation is
    played out, and the best duplicate total wins, not the best total."""
    match = Match(2, Rules(duplicate=True, target=30))
    match.record(hand(40, 0), caller=0)
    assert not match.over and match.duplicate == [[None, None]]
    # hand 2: seat 1 plays seat 0's cards of hand 1 for 45, seat 0 plays seat 1's for 1
    match.record(hand(1, 45), caller=1)
    assert match.totals == [41, 45]
    # seat 0: (40 - 45) / 2 + (1 - 0) / 2 = -2; seat 1: +2
    assert match.duplicate_totals == [-2, 2]
    assert match.over and match.winners == (1,)


def test_the_best_duplicate_total_wins_whatever_the_totals_r45() -> None:
    """The winner is who did more with the same cards: seat 0 with the better total
    and the better play wins; in the second match seat 0 reached the target first,
    but seat 1 did more with both decks."""
    match = Match(2, Rules(duplicate=True, target=20))
    match.record(hand(30, 2), caller=0)  # seat 0 holds A, seat 1 B
    match.record(hand(20, 1), caller=0)  # seat 0 holds B, seat 1 A
    assert match.totals == [50, 3]
    # A: 30 by seat 0, 1 by seat 1; B: 2 by seat 1, 20 by seat 0: seat 0 did better
    assert match.winners == (0,)
    close = Match(2, Rules(duplicate=True, target=20))
    close.record(hand(30, 0), caller=0)  # seat 0 holds A (easy), seat 1 B (hard)
    close.record(hand(-2, 40), caller=1)  # seat 0 holds B, seat 1 holds A
    assert close.totals[0] > 20 and close.totals[1] > close.totals[0]
    assert close.duplicate_totals == [-6, 6]  # (30-40)/2 + (-2-0)/2 = -6
    assert close.winners == (1,)


def test_single_is_one_rotation_and_rounds_count_rotations_won_r45() -> None:
    single = Match(3, Rules(duplicate=True, match="single"))
    single.record(hand(10, 5, 0), None)
    single.record(hand(7, 7, 7), None)
    assert not single.over
    single.record(hand(1, 2, 3), None)
    assert single.over and single.winners == (0,)  # duplicate totals 4, 0, -4
    rounds = Match(2, Rules(duplicate=True, match="rounds", rounds_to_win=2))
    for scores in ((10, 0), (0, 5), (0, 5), (0, 5)):
        rounds.record(hand(*scores), None)
    assert rounds.round_wins == [1, 1] and not rounds.over
    rounds.record(hand(9, 0), None)
    assert not rounds.over  # mid-rotation
    rounds.record(hand(0, 1), None)
    assert rounds.over and rounds.winners == (0,)


def test_the_caller_bonus_counts_in_the_duplicate_score_r43() -> None:
    """The caller bonus is part of the hand score (R27 option), so it is compared with
    what the others did with the same cards: calling where they did not earns it."""
    rules = Rules(duplicate=True, caller_bonus=10, match="single")
    match = Match(2, rules)
    match.record(hand(20, 5, caller=0, rules=rules), caller=0)  # seat 0 calls on A
    match.record(hand(5, 20, rules=rules), caller=None)  # seat 1 on A, no call
    # A: 30 (with the bonus) and 20; B: 5 and 5 -> seat 0 +5, seat 1 -5
    assert match.duplicate_totals == [5, -5]
    assert match.winners == (0,)


def test_tables_that_cannot_play_duplicate_are_refused_r46() -> None:
    with pytest.raises(ValueError, match="at least two seats"):
        Match(1, Rules(duplicate=True))
    with pytest.raises(RulesError, match="'duplicate' cannot be on with match 'gap'"):
        Rules(duplicate=True, match="gap")
    with pytest.raises(RulesError, match="race, single or rounds"):
        Rules(match="gap").with_options(duplicate=True)
    with pytest.raises(ValueError, match="cannot be rotated"):
        from nertz.engine import Deal

        rotated(Deal.from_layouts(["nertz: 2H", "nertz: 3H"], ["AH@0"]), 1)
