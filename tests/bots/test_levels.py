"""Levels: documented delay distributions and a monotone ladder (issue 3)."""

from __future__ import annotations

import pickle
import random
import statistics
from itertools import pairwise

import pytest

from nertz.bots import LEVELS, Bot
from nertz.engine import Rules
from nertz.sim import play_hand

DOCUMENTED_CARD_MS = {
    "beginner": 2500,
    "casual": 1500,
    "skilled": 900,
    "expert": 550,
    "master": 550,
    "demon": 350,
}


@pytest.mark.parametrize("name", list(LEVELS))
def test_card_delays_have_the_documented_mean(name: str) -> None:
    level = LEVELS[name]
    rng = random.Random(1)
    draws = [level.delay(rng, level.card_ms) for _ in range(4000)]
    assert level.card_ms == DOCUMENTED_CARD_MS[name]
    assert statistics.mean(draws) == pytest.approx(level.card_ms, rel=0.05)
    assert min(draws) >= level.floor_ms


def test_levels_are_ordered_slowest_and_least_careful_first() -> None:
    # Master plays at expert's speed with its own choices (tests/bots/test_master.py).
    levels = [level for level in LEVELS.values() if level.name != "master"]
    for lower, higher in pairwise(levels):
        assert higher.card_ms < lower.card_ms
        assert higher.turn_ms < lower.turn_ms
        assert higher.overlook < lower.overlook
        assert higher.plan >= lower.plan


@pytest.mark.parametrize(
    ("low", "high"),
    [("beginner", "casual"), ("casual", "skilled"), ("skilled", "expert"), ("expert", "demon")],
)
def test_each_level_outscores_the_one_below(low: str, high: str) -> None:
    """The ladder is monotone. Two of each level at one table for 16 hands; measured mean
    margins are 12 to 21 points a hand with a standard error near 2 at this size, so
    asserting more than 4 points leaves a margin of about four standard errors."""
    rules = Rules()
    margins = []
    for hand in range(16):
        bots = [Bot(s, (high, low)[s % 2], "balanced", hand * 8 + s) for s in range(4)]
        r = play_hand(bots, rules, 1000 + hand)
        margins.append((r.scores[0] + r.scores[2] - r.scores[1] - r.scores[3]) / 2)
    assert statistics.mean(margins) > 4


def test_every_level_crosses_to_a_worker_process_unchanged() -> None:
    # bench/rating.py and bench/master.py hand levels to worker processes by pickle;
    # the compiled frozen classes must rebuild from their fields.
    for level in LEVELS.values():
        assert pickle.loads(pickle.dumps(level)) == level
