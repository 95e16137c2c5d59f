"""Running totals and the end of the match (R32; options match and tie_break)."""

import pytest

from nertz.engine import Match, Rules, score


def hand(*values: int) -> tuple:
    """Scores for one hand from plain numbers (as cards in the middle, none left)."""
    return tuple(score(v, 0, False, Rules()) for v in values)


def test_hands_add_to_running_totals_and_the_race_ends_after_the_hand_r32() -> None:
    """R32: after the hand in which a seat reaches the target, the highest total wins."""
    match = Match(3, Rules(target=50))
    match.record(hand(30, 20, -5), caller=0)
    assert match.totals == [30, 20, -5] and not match.over
    match.record(hand(15, 31, 10), caller=1)
    assert match.totals == [45, 51, 5]
    assert match.over and match.winners == (1,)
    with pytest.raises(ValueError, match="the match is over"):
        match.record(hand(1, 1, 1), caller=None)


def test_the_highest_total_wins_even_if_another_seat_reached_the_target_first_r32() -> None:
    match = Match(2, Rules(target=50))
    match.record(hand(49, 45), caller=0)
    match.record(hand(1, 10), caller=1)
    assert match.winners == (1,)  # 50 reached the target, 55 is highest


def test_equal_highest_totals_share_the_win_r32() -> None:
    match = Match(3, Rules(target=20))
    match.record(hand(25, 25, 10), caller=0)
    assert match.winners == (0, 1)


def test_tie_break_caller_among_those_who_reached_the_target() -> None:
    """tie_break caller: if two or more reach the target in one hand, that hand's caller
    wins when among them, even with a lower total; otherwise the highest total."""
    rules = Rules(target=20, tie_break="caller")
    match = Match(3, rules)
    match.record(hand(30, 21, 0), caller=1)
    assert match.winners == (1,)
    match = Match(3, rules)
    match.record(hand(30, 30, 0), caller=2)  # the caller did not reach the target
    assert match.winners == (0, 1)


def test_single_hand_match() -> None:
    match = Match(2, Rules(match="single"))
    match.record(hand(-3, -7), caller=None)
    assert match.over and match.winners == (0,)
    tied = Match(2, Rules(match="single", tie_break="caller"))
    tied.record(hand(12, 12), caller=1)
    assert tied.winners == (1,)


def test_rounds_match_counts_hand_wins() -> None:
    match = Match(3, Rules(match="rounds", rounds_to_win=2))
    match.record(hand(10, 5, 1), caller=0)
    match.record(hand(3, 9, 1), caller=1)
    assert match.round_wins == [1, 1, 0] and not match.over
    match.record(hand(3, 3, 20), caller=2)
    assert not match.over
    match.record(hand(2, 8, 8), caller=None)  # a shared hand: both get a win
    assert match.round_wins == [1, 2, 2]
    assert match.over and match.winners == (1, 2)
    assert match.hands[-1].winners == (1, 2)


def test_gap_match_ends_when_the_spread_reaches_the_gap() -> None:
    match = Match(3, Rules(match="gap", gap_to_win=30))
    match.record(hand(20, 0, 5), caller=0)
    assert not match.over
    match.record(hand(11, 1, 0), caller=0)  # 31 - 1 = 30
    assert match.over and match.winners == (0,)
    with pytest.raises(ValueError, match="at least two seats"):
        Match(1, Rules(match="gap"))


def test_caller_bonus_counts_toward_totals() -> None:
    rules = Rules(caller_bonus=10, target=20)
    match = Match(2, rules)
    match.record((score(12, 0, True, rules), score(15, 0, False, rules)), caller=0)
    assert match.totals == [22, 15] and match.winners == (0,)
