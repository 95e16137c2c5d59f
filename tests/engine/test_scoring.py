"""Scoring (R29-R31)."""

import pytest

from nertz.engine import Rules, score

from .helpers import make_hand, play


@pytest.mark.parametrize(
    ("middle", "left", "expected"),
    [(18, 4, 10), (3, 6, -9), (14, 0, 14), (22, 3, 16), (22, 1, 20)],
)
def test_the_worked_hands_r31(middle: int, left: int, expected: int) -> None:
    """R31: 18 and 4 scores 10; 3 and 6, -9; 14 and 0, 14; 22 and 3, 16; 22 and 1, 20."""
    assert score(middle, left, False, Rules()).score == expected


def test_the_caller_does_not_always_win_the_hand_r31() -> None:
    """R31: 22 in the middle and 1 left scores 20, beating a caller's 18."""
    caller = score(18, 0, True, Rules())
    other = score(22, 1, False, Rules())
    assert (caller.score, other.score) == (18, 20)


def test_plus_one_per_card_in_the_middle_minus_penalty_per_nertz_card_r30() -> None:
    """R30: penalty 2 (or 1) per card left in the Nertz pile, face-down ones included;
    work piles, stock and waste score nothing; scores may be negative."""
    assert score(0, 13, False, Rules()).score == -26
    assert score(0, 13, False, Rules(penalty=1)).score == -13
    assert score(5, 0, True, Rules(caller_bonus=10)).score == 15
    assert score(5, 0, False, Rules(caller_bonus=10)).bonus == 0


def test_the_middle_is_sorted_by_owner_r29() -> None:
    """R29: every card in the middle, finished foundations included, counts for its owner."""
    hand = make_hand(
        "nertz: QS 3H; work: KD / 9C / 8C / 7C; stock: 4C 5C",
        "nertz: 2C 2H; work: 4H",
        middle=["AH@0", "AC@1"],
    )
    assert play(hand, 1, "N>F1", 1).ok  # 2H on seat 0's ace
    assert play(hand, 0, "N>F1", 2).ok  # 3H on seat 1's 2H
    assert play(hand, 1, "N>F2", 3).ok  # 2C on its own ace
    assert play(hand, 1, "1>F1", 4).ok  # 4H
    assert hand.middle == [2, 4]
    scores = hand.scores()
    assert (scores[0].middle, scores[0].nertz_left, scores[0].score) == (2, 1, 0)
    assert (scores[1].middle, scores[1].nertz_left, scores[1].score) == (4, 0, 4)


def test_the_caller_gets_the_bonus_only_when_the_hand_ends_by_the_call() -> None:
    hand = make_hand("nertz: AH; work: -", "nertz: 2S; work: -", rules=Rules(caller_bonus=25))
    play(hand, 0, "N>F", 1)
    play(hand, 0, "NERTZ", 2)
    hand.tick(1_000)
    assert [s.score for s in hand.scores()] == [26, -2]
