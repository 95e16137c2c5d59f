"""Skill levels: how fast a bot acts, how often it overlooks a play, how well it plans.

People differ in three ways that matter at a Nertz table, and a ``Level`` names each:

* **speed**: the time from looking at the table to a card landing. Each action's delay
  is drawn from a log-normal distribution whose *mean* is ``card_ms`` for a card move
  (``turn_ms`` for turning the stock, which is one quick flick) and whose spread is
  ``spread`` (the sigma of the underlying normal). No action is faster than
  ``floor_ms`` (human reaction time). Means: beginner 2.5 s a card, casual 1.5 s,
  skilled 0.9 s, expert and master 0.55 s, demon 0.35 s (docs/bots.md has the full
  table).
* **attention**: each play the bot could make is overlooked on a given look with
  probability ``overlook``; it may be seen on the next look.
* **planning** (``plan`` 0-3): 1 keeps an empty work space for the Nertz card and frees
  one by moving a whole pile (R18); 2 also avoids burying a card the middle needs next
  (R13), uses the slide-under shortcut (R19) and prefers moves that keep runs short
  enough to move; 3 also moves runs to expose an end card the middle takes (R17).

``patience`` is how many fruitless passes through the stock the bot makes before it
says it is stuck (R25).

``search`` is how many run moves deep a planner searches its work piles for a landing
or a bared card (``nertz.bots.search``); 0, the fixed one-move patterns of ``plan``, for
every level but ``master``, which has expert's speed and attention, more patience and
the search, both chosen in the simulator (``bench/master.py``, docs/strategy.md).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, fields

__all__ = ["DEFAULT_LEVEL", "LEVELS", "MASTER_PATIENCE", "MASTER_SEARCH", "Level"]


def _log(x: int, cache: dict[int, float] = {}) -> float:  # noqa: B006 - a deliberate memo
    value = cache.get(x)
    if value is None:
        value = cache[x] = math.log(x)
    return value


@dataclass(frozen=True, slots=True)
class Level:
    """One skill level; see the module docstring for what each field means."""

    name: str
    card_ms: int
    """Mean delay of a card move (ms)."""
    turn_ms: int
    """Mean delay of turning the stock (ms)."""
    spread: float
    """Sigma of the log-normal delay distribution."""
    floor_ms: int
    """No action is faster than this."""
    overlook: float
    """Chance to miss a possible play on one look."""
    plan: int
    """Planning depth 0-3."""
    patience: int
    """Fruitless stock passes before saying stuck (R25)."""
    search: int = 0
    """Run moves deep the work-pile search looks (``nertz.bots.search``); 0: the fixed
    one-move patterns of ``plan`` instead. Not with jokers (R41)."""

    def delay(self, rng: random.Random, mean_ms: int) -> int:
        """A log-normal delay with mean ``mean_ms`` (ms), at least ``floor_ms``."""
        sigma = self.spread
        # exp(N(mu, sigma)) with mu = ln(mean) - sigma^2/2 has mean ``mean_ms``.
        mu = _log(mean_ms) - sigma * sigma / 2
        return max(self.floor_ms, int(math.exp(rng.gauss(mu, sigma))))

    def __reduce__(self) -> tuple[type[Level], tuple[object, ...]]:
        # Compiled (mypyc), the default pickling sets fields one by one and a frozen
        # class refuses: rebuild from the fields instead (bench processes need it).
        return (Level, tuple(getattr(self, f.name) for f in fields(self)))


MASTER_SEARCH = 1
"""``master``'s work-pile search depth: every run move, one deep; deeper searches found
no more in the tuning grid. Chosen with its patience by ``bench/master.py --tune`` in
the simulator, on deals of their own (docs/strategy.md, section 6)."""
MASTER_PATIENCE = 3
"""``master``'s fruitless stock passes before it says stuck (expert: 1)."""

_EXPERT = Level("expert", 550, 300, 0.30, 180, 0.04, 3, 1)

LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("beginner", 2500, 1100, 0.45, 500, 0.30, 0, 3),
        Level("casual", 1500, 700, 0.40, 350, 0.18, 1, 2),
        Level("skilled", 900, 450, 0.35, 250, 0.09, 2, 2),
        _EXPERT,
        # Expert's speed and attention exactly (delays, spread, floor, overlook): only
        # its choices differ (issue 28).
        Level(
            "master",
            _EXPERT.card_ms,
            _EXPERT.turn_ms,
            _EXPERT.spread,
            _EXPERT.floor_ms,
            _EXPERT.overlook,
            _EXPERT.plan,
            MASTER_PATIENCE,
            MASTER_SEARCH,
        ),
        Level("demon", 350, 200, 0.25, 120, 0.01, 3, 1),
    )
}
"""The six levels, weakest first: five of speed (slowest first), and ``master`` between
``expert`` and ``demon``, which plays at expert's speed with better choices."""

DEFAULT_LEVEL = "skilled"
"""The level of a seat spec that names only a style (``racer`` = ``skilled:racer``)."""
