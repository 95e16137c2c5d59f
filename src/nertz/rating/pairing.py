"""Quick match's pairing policy: who sits down together now (issue 26, point 3).

The queue itself (who is in it, in memory or in Redis) is the server's; this is only
the decision, a pure function of the queue and the time: ``pair(queue, now)`` gives
the tables to make now. The server's queue and ``bench/rating.py``'s simulation of
arrivals call the same function, so the waits measured are the waits people get.

* **By rating, widening with the wait.** Two entries may share a table when their
  ``mu`` differ by at most the narrower of their two windows; an entry's window is
  ``Policy.window`` when it joins and grows by ``Policy.widen`` per second it waits
  (``window``), so a rare player finds company, later and further away.
* **The table size** is within every member's range (2-4 by default). A group that
  reaches the largest size all of them accept sits down at once; a smaller one that
  all of them accept sits down once its oldest member has waited ``start_after_s``.
* **Bots fill after a visible wait.** Once an entry has waited ``bots_after_s`` (the
  countdown the player sees, ``bots_in``), its group sits down with bots in the seats
  it lacks, of the level whose fixed rating is nearest the group's mean
  (``bots.bot_for``).
* **Partnerships** (mode ``partners``): sizes count people and a table needs an even
  number of them, two to a seat (R40); a bot completes a pair when one is missing.

Deterministic: entries are taken oldest first, ties broken by key; nothing reads a
clock (``now`` and ``Entry.entered`` are numbers in seconds on the caller's clock).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nertz.rating.bots import bot_for

__all__ = ["POLICY", "Entry", "Pairing", "Policy", "bots_in", "pair", "window"]


@dataclass(frozen=True, slots=True)
class Entry:
    """One person waiting: their key, rating mean in the mode, mode and table sizes
    (people, both inclusive) and when they joined the queue."""

    key: str
    mu: float
    mode: str
    entered: float
    low: int = 2
    high: int = 4

    def __post_init__(self) -> None:
        if not 2 <= self.low <= self.high <= 8:
            raise ValueError(
                f"a table size range must be within 2 to 8, not {self.low}-{self.high}"
            )


@dataclass(frozen=True, slots=True)
class Policy:
    """The pairing's numbers (``mu`` units: 60 points each on the shown scale)."""

    window: float = 1.5
    """How far apart two ratings may be at once (90 points)."""
    widen: float = 0.5
    """How much the window grows per second waited (30 points a second)."""
    start_after_s: float = 10.0
    """A group below the largest size its members accept sits down after this wait."""
    bots_after_s: float = 25.0
    """After this wait, bots fill the seats a person's group lacks."""


POLICY = Policy()
"""The policy quick match runs with (docs/rating.md; measured by bench/rating.py)."""


@dataclass(frozen=True, slots=True)
class Pairing:
    """A table to make now: its mode, the people (queue keys) and the bots' levels."""

    mode: str
    keys: tuple[str, ...]
    bots: tuple[str, ...] = ()


def window(entry: Entry, now: float, policy: Policy = POLICY) -> float:
    """How far from ``entry.mu`` a partner may be at ``now``."""
    return policy.window + policy.widen * max(0.0, now - entry.entered)


def bots_in(entry: Entry, now: float, policy: Policy = POLICY) -> float:
    """Seconds until bots fill ``entry``'s table (the countdown it sees); 0: due."""
    return max(0.0, entry.entered + policy.bots_after_s - now)


def _fits(c: Entry, group: list[Entry], hi: int, now: float, policy: Policy) -> bool:
    if c.low > hi or min(hi, c.high) < len(group) + 1:
        return False
    reach = window(c, now, policy)
    return all(abs(c.mu - g.mu) <= min(reach, window(g, now, policy)) for g in group)


def pair(queue: Sequence[Entry], now: float, policy: Policy = POLICY) -> tuple[Pairing, ...]:
    """The tables to make at ``now`` from ``queue`` (each entry in at most one)."""
    keys = [e.key for e in queue]
    if len(set(keys)) != len(keys):
        raise ValueError("one queue entry per person: a key is in the queue twice")
    waiting = sorted(queue, key=lambda e: (e.entered, e.key))
    taken: set[str] = set()
    out: list[Pairing] = []
    for anchor in waiting:
        if anchor.key in taken:
            continue
        group, lo, hi = [anchor], anchor.low, anchor.high
        others = sorted(
            (e for e in waiting if e.key not in taken and e.key != anchor.key),
            key=lambda e: (abs(e.mu - anchor.mu), e.entered, e.key),
        )
        for c in others:
            if len(group) == hi:
                break
            if c.mode == anchor.mode and _fits(c, group, hi, now, policy):
                group.append(c)
                lo, hi = max(lo, c.low), min(hi, c.high)
        made = _table(group, lo, hi, now, policy)
        if made is not None:
            taken.update(made.keys)
            out.append(made)
    return tuple(out)


def _table(group: list[Entry], lo: int, hi: int, now: float, policy: Policy) -> Pairing | None:
    """The table ``group`` (its anchor first, then the closest ratings) makes now, if
    it is time for one. At partnerships the people who sit without a bot are an even
    number: the farthest rating of an odd group waits for the next table."""
    mode = group[0].mode

    def odd(n: int) -> int:
        return n % 2 if mode == "partners" else 0

    usable = len(group) - odd(len(group))
    waited = now - min(e.entered for e in group)
    if usable >= 2 and (
        usable == hi - odd(hi) or (usable >= lo and waited >= policy.start_after_s)
    ):
        return Pairing(mode, tuple(e.key for e in group[:usable]))
    if waited < policy.bots_after_s:
        return None
    size = max(lo, len(group))
    size += odd(size)
    level = bot_for(sum(e.mu for e in group) / len(group))
    return Pairing(mode, tuple(e.key for e in group), (level,) * (size - len(group)))
