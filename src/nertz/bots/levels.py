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

``tactics`` (``Tactics``) are the finer choices of what to do first: every level plays
the defaults but ``master``, whose tactics were learned in the simulator
(``nertz.bots.master``, docs/strategy.md) and whose speed and attention are expert's.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, fields

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_TACTICS",
    "LEVELS",
    "MASTER_PATIENCE",
    "MASTER_TACTICS",
    "Level",
    "Tactics",
]


def _log(x: int, cache: dict[int, float] = {}) -> float:  # noqa: B006 - a deliberate memo
    value = cache.get(x)
    if value is None:
        value = cache[x] = math.log(x)
    return value


@dataclass(frozen=True, slots=True)
class Tactics:
    """The order and the limits of a bot's choices, beyond its ``plan`` depth: what a
    level does first when it could do several things. The defaults are how every level
    but ``master`` plays; each field names a departure from them."""

    shuffles: int = 2
    """Work-pile rearrangements allowed between two steps of progress (no idle loops)."""
    waste_first: bool = False
    """The waste card goes to the middle before the work piles' end cards: it uncovers
    the waste card under it, a card the stock gives only once a pass."""
    keep_landing: bool = False
    """A work pile's end card stays out of the middle while it is the only landing the
    Nertz card has (R17), unless the Nertz card itself goes to the middle."""
    nertz_lands_first: bool = False
    """The Nertz card onto a work pile before the work and waste cards to the middle:
    the Nertz pile is worth the penalty as well as the point (R30)."""
    longer_pile: bool = False
    """Build on the longer of two piles that take a card (planners build on the shorter
    one, to keep runs movable)."""
    waste_to_space: bool = False
    """The waste card may take an empty work space while the Nertz pile has cards (a
    planner keeps the space for the Nertz card, R18)."""
    expose_first: bool = False
    """Moving a run off a card the middle takes (R17) comes before the Nertz card's
    moves onto the work piles."""
    search: int = 0
    """Planners look one move deep for a rearrangement of the work piles that gives the
    Nertz card a place or bares a card the middle takes; this many moves deep with a
    search instead (``nertz.bots.search``), when more than zero (not with jokers)."""

    def __reduce__(self) -> tuple[type[Tactics], tuple[object, ...]]:
        # Compiled (mypyc), the default pickling sets fields one by one and a frozen
        # class refuses: rebuild from the fields instead (bench processes need it).
        return (Tactics, _values(self))


DEFAULT_TACTICS = Tactics()
"""Every level's tactics but ``master``'s."""


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
    tactics: Tactics = DEFAULT_TACTICS
    """What the level does first (``Tactics``)."""

    def delay(self, rng: random.Random, mean_ms: int) -> int:
        """A log-normal delay with mean ``mean_ms`` (ms), at least ``floor_ms``."""
        sigma = self.spread
        # exp(N(mu, sigma)) with mu = ln(mean) - sigma^2/2 has mean ``mean_ms``.
        mu = _log(mean_ms) - sigma * sigma / 2
        return max(self.floor_ms, int(math.exp(rng.gauss(mu, sigma))))

    def __reduce__(self) -> tuple[type[Level], tuple[object, ...]]:
        # As ``Tactics.__reduce__``: a compiled frozen class pickles by its fields.
        return (Level, _values(self))


def _values(instance: Tactics | Level) -> tuple[object, ...]:
    """A dataclass instance's field values, in order, not recursing into fields."""
    return tuple(getattr(instance, f.name) for f in fields(instance))


MASTER_TACTICS = Tactics(search=1)
"""``master``'s tactics: the work-pile search (``nertz.bots.search``) over every run
move, one move deep; deeper searches found no more in the tuning grid. Chosen with its
patience by ``bench/master.py --tune`` in the simulator, on deals of their own
(docs/strategy.md, section 6)."""
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
            MASTER_TACTICS,
        ),
        Level("demon", 350, 200, 0.25, 120, 0.01, 3, 1),
    )
}
"""The six levels, weakest first: five of speed (slowest first), and ``master`` between
``expert`` and ``demon``, which plays at expert's speed with better choices."""

DEFAULT_LEVEL = "skilled"
"""The level of a seat spec that names only a style (``racer`` = ``skilled:racer``)."""
