"""Matches: deterministic for a seed, the same on any number of processes, and every
match ends (R32) in every match mode."""

from __future__ import annotations

import random

import pytest

from nertz.bots import LEVELS, STYLES, parse_seat
from nertz.engine import Rules
from nertz.sim import Setup, play_match, run

SEATS = tuple(parse_seat(s) for s in ("expert", "casual", "racer", "demon:scorer"))
SMALL = Rules().with_options(target=30)


def test_same_seed_same_results_other_seed_other_results() -> None:
    setup = Setup(SEATS, SMALL, 7)
    assert run(setup, 3) == run(setup, 3)
    assert run(setup, 3) != run(Setup(SEATS, SMALL, 8), 3)


def test_jobs_do_not_change_the_results() -> None:
    setup = Setup(SEATS, SMALL, 11)
    assert run(setup, 6, jobs=2) == run(setup, 6, jobs=1)


@pytest.mark.parametrize(
    "options",
    [
        {"match": "single"},
        {"match": "rounds", "rounds_to_win": 2},
        {"match": "gap", "gap_to_win": 30},
        {"target": 30, "tie_break": "caller", "caller_bonus": 25},
        {"target": 30, "draw": 1, "nertz_pile": 11, "idle_rotate_s": 0, "max_rotations": 0},
    ],
)
def test_every_match_ends(options: dict[str, object]) -> None:
    rules = Rules().with_options(**options)
    for index in range(2):
        result = play_match(Setup(SEATS[:3], rules, 3), index)
        assert result.winners
        assert all(not hand.bad for hand in result.hands)


def test_no_unexpected_refusal_over_many_hands() -> None:
    """Bots are refused only for lost races (R16) or late plays after a call (R28),
    across whole matches, where every hand after the first reuses the same bots."""
    seats = tuple(parse_seat(s) for s in ("demon", "expert", "skilled:scorer", "casual:racer"))
    results = run(Setup(seats, Rules().with_options(target=60), 5), 10)
    hands = [hand for match in results for hand in match.hands]
    assert len(hands) > 25
    assert [hand.bad for hand in hands if hand.bad] == []
    assert sum(sum(hand.races_lost) for hand in hands) > 0


@pytest.mark.parametrize("case", range(8))
def test_every_match_ends_under_sampled_options(case: int) -> None:
    """Random seats (1 to 8, R2), levels, styles and table options: the match ends
    (R32) and no bot move is refused for anything but a lost race or a late play."""
    rng = random.Random(f"options:{case}")
    seats = tuple(
        parse_seat(f"{rng.choice(list(LEVELS))}:{rng.choice(list(STYLES))}")
        for _ in range(rng.randint(2, 8) if case % 4 else 1)
    )
    rules = Rules().with_text(
        {
            "draw": rng.choice(["3", "1"]),
            "nertz_pile": rng.choice(["13", "12", "11"]),
            "penalty": rng.choice(["2", "1"]),
            "caller_bonus": rng.choice(["0", "10", "25"]),
            "target": rng.choice(["20", "40"]),
            "match": rng.choice(["race", "single", "rounds", "gap"][: 3 + (len(seats) > 1)]),
            "rounds_to_win": "2",
            "gap_to_win": "25",
            "tie_break": rng.choice(["share", "caller"]),
            "tie_window_ms": rng.choice(["0", "40", "200"]),
            "landing_ms": rng.choice(["0", "250", "1500"]),
            "idle_rotate_s": rng.choice(["0", "3", "30"]),
            "max_rotations": rng.choice(["0", "1", "2"]),
        }
    )
    result = play_match(Setup(seats, rules, case), 0)
    assert result.winners
    assert [hand.bad for hand in result.hands if hand.bad] == []


def test_jokers_same_seed_same_results_on_any_number_of_processes() -> None:
    """R41: with jokers a run still depends on its seed alone, however many processes
    play it; the jokers are really announced, and no bot move is a misplay."""
    setup = Setup(SEATS, SMALL.with_options(jokers=True), 13)
    one = run(setup, 4)
    assert run(setup, 4, jobs=2) == one
    assert run(Setup(SEATS, SMALL.with_options(jokers=True), 14), 4) != one
    hands = [hand for match in one for hand in match.hands]
    assert sum(sum(hand.jokers_announced) for hand in hands) > len(hands)
    assert [hand.bad for hand in hands if hand.bad] == []


@pytest.mark.parametrize("case", range(4))
def test_every_match_with_jokers_ends_under_sampled_options(case: int) -> None:
    """R41 with random seats (1 to 8, R2) and options: the match ends (R32) and every
    refusal is a lost race or a late play, announced jokers included."""
    rng = random.Random(f"jokers:{case}")
    seats = tuple(
        parse_seat(f"{rng.choice(list(LEVELS))}:{rng.choice(list(STYLES))}")
        for _ in range(rng.randint(2, 8) if case % 4 else 1)
    )
    rules = Rules().with_text(
        {
            "jokers": "on",
            "draw": rng.choice(["3", "1"]),
            "nertz_pile": rng.choice(["13", "11"]),
            "target": "30",
            "joker_announce_ms": rng.choice(["0", "500", "1500", "3000"]),
            "tie_window_ms": rng.choice(["0", "40"]),
            "landing_ms": rng.choice(["0", "250", "1500"]),
            # Idle rotations (R25) stay longer than the longest window: the idle timer
            # does not wait for an open announcement (see docs/bots.md).
            "idle_rotate_s": rng.choice(["0", "5", "30"]),
            "max_rotations": rng.choice(["0", "1", "2"]),
        }
    )
    result = play_match(Setup(seats, rules, case), 0)
    assert result.winners
    assert [hand.bad for hand in result.hands if hand.bad] == []
