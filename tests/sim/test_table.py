"""The hand loop: bots' moves are refused only for lost races or a hand already over,
and every hand ends, under every option combination sampled (R16, R24-R28)."""

from __future__ import annotations

import random

import pytest

from nertz.bots import LEVELS, STYLES, Bot
from nertz.engine import Deal, Rules
from nertz.engine.hand import SETTLE_MS
from nertz.sim import play_hand


def _options(rng: random.Random) -> dict[str, str]:
    return {
        "draw": rng.choice(["3", "1"]),
        "nertz_pile": rng.choice(["13", "12", "11"]),
        "penalty": rng.choice(["2", "1"]),
        "caller_bonus": rng.choice(["0", "10", "25"]),
        "tie_window_ms": rng.choice(["0", "40", "300"]),
        "landing_ms": rng.choice(["0", "250", "2000"]),
        "idle_rotate_s": rng.choice(["0", "5", "30"]),
        "max_rotations": rng.choice(["0", "1", "3"]),
    }


@pytest.mark.parametrize("case", range(24))
def test_only_expected_refusals_and_every_hand_ends(case: int) -> None:
    rng = random.Random(case)
    rules = Rules().with_text(_options(rng))
    seats = rng.randint(1, 8)
    bots = [
        Bot(s, rng.choice(list(LEVELS)), rng.choice(list(STYLES)), case * 10 + s)
        for s in range(seats)
    ]
    result = play_hand(bots, rules, case)
    assert result.bad == ()
    assert result.blocked == (result.caller is None)
    assert len(result.scores) == seats


def test_races_are_lost_and_ties_happen_over_many_hands() -> None:
    """Fast seats collide on the middle (R16): some plays come second, some tie."""
    rules = Rules().with_options(tie_window_ms=150)
    races = ties = 0
    for seed in range(12):
        bots = [Bot(s, "demon", "balanced", seed * 8 + s) for s in range(6)]
        result = play_hand(bots, rules, seed)
        assert result.bad == ()
        races += sum(result.races_lost)
        ties += sum(result.ties)
    assert races > 0
    assert ties > 0


def test_a_table_of_blocked_seats_rotates_then_ends_without_a_call() -> None:
    """R25-R26 with the idle timer off: stuck bots make the table rotate and end."""
    rules = Rules().with_options(idle_rotate_s=0, max_rotations=1, nertz_pile=13)
    ended_blocked = 0
    for seed in range(30):
        result = play_hand([Bot(0, "beginner", "balanced", seed)], rules, seed)
        assert result.bad == ()
        if result.blocked:
            ended_blocked += 1
            assert result.rotations >= 1
    assert ended_blocked > 0


def test_an_all_blocked_table_rotates_once_it_settles_and_then_ends() -> None:
    """R24-R26: nobody has to say stuck. No card moves from Go, so the engine finds the
    table blocked after SETTLE_MS, rotates, and ends it SETTLE_MS later."""
    blocked = Deal.from_layouts(["nertz: QD; work: 5H / 9C / 7D / JH; stock: 3S 8S 2C KC"])
    result = play_hand([Bot(0, "beginner", "balanced", 1)], Rules(), 0, fixed=blocked)
    assert result.rotations == 1
    assert result.blocked and result.caller is None
    assert result.length_ms == 2 * SETTLE_MS
