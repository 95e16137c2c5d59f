"""Driving a bot: when it acts and what it has committed to (docs/bots.md).

A ``Driver`` is the one loop around a ``Bot`` that both tables use, the simulator's in
virtual time and the server's with real timers. It keeps the bot's committed move and
the table time it lands; the table asks ``due``, submits ``move`` through its own path
when the time comes, and tells the driver what happened (``observe``, ``refused``).
No clock here: every call carries the table's time in milliseconds.

At a partnership seat (R40) two hands share one layout. ``plan`` then chooses around
the partner: never a move touching what the partner holds or what the partner's bot
has committed to (a bot's whole move is in plain sight), and the bot holds the source
of its own committed move from the decision until it lands (``Holds``), so its partner
chooses around it in turn. Which share of the work the bot plays is ``roles.role_for``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from nertz.engine import LATE_REFUSALS, Card, Event, Holds, Move, Refusal, picked_up, touches

from .levels import Level
from .policy import Bot
from .seats import SeatSpec

__all__ = ["Driver", "suggest"]

_NOTHING: frozenset[int] = frozenset()


class Driver:
    """One bot at one place of a seat: its committed move and when it lands."""

    __slots__ = ("bot", "decided_at", "due", "move", "partner", "role", "seat")

    def __init__(self, bot: Bot, partner: int = 0) -> None:
        self.bot = bot
        self.seat = bot.seat
        self.partner = partner
        """The bot's place at its seat: 0, or 1 for the second partner (R40)."""
        self.move: Move | None = None
        """The move it has committed to; None: it looks again at ``due``."""
        self.due: int | None = None
        """Table time (ms) when ``move`` lands, or the bot looks again; None: idle."""
        self.decided_at = 0
        """Table time (ms) of its last decision."""
        self.role: str | None = None
        """At a partnership seat (R40): the share of the work it played last plan."""

    @classmethod
    def of(cls, seat: int, spec: SeatSpec, seed: int, partner: int = 0) -> Driver:
        """A new bot from its spec, its random numbers drawn from ``seed``."""
        return cls(Bot(seat, spec.level, spec.style, seed), partner)

    @property
    def spec(self) -> str:
        """The bot's spec, ``level:style``."""
        return f"{self.bot.level.name}:{self.bot.style.name}"

    def begin(self, seat_view: Mapping[str, Any], totals: Sequence[int] = ()) -> None:
        """A hand is dealt (R33), or the bot takes a seat mid-hand: read the view."""
        self.bot.begin(seat_view, totals)
        self.move = None
        self.due = None

    def observe(self, events: Sequence[Event]) -> None:
        """Every accepted input's events, in table order."""
        self.bot.observe(events)

    def refused(self, move: Move, code: Refusal) -> bool:
        """The bot's own move was refused. True when that is not one of the refusals a
        correct bot still meets (``LATE_REFUSALS``: a lost race, R16, or a move after a
        call, R28): its picture is wrong, and the table should ``resync`` it."""
        self.bot.refused(move, code)
        return code not in LATE_REFUSALS

    def resync(self, seat_view: Mapping[str, Any]) -> None:
        """Re-read the seat's view mid-hand."""
        self.bot.resync(seat_view)

    def plan(self, now_ms: int, avoid: frozenset[int] = _NOTHING, role: str | None = None) -> int:
        """Ask the bot for its next action and start its timer; returns ``due``. At a
        partnership seat (R40) ``avoid`` is what it must not touch and ``role`` its
        share of the work (``plan_beside`` works both out)."""
        self.role = role
        decision = self.bot.decide(now_ms, avoid, role)
        self.move = decision.move
        due = now_ms + max(1, decision.delay_ms)
        self.due = due
        self.decided_at = now_ms
        return due

    def plan_beside(
        self,
        now_ms: int,
        holds: Holds,
        mate: Driver | None,
        role: str | None,
        card_at: Callable[[int], Card | None] | None = None,
    ) -> int:
        """``plan`` at a partnership seat (R40): around what the partner holds and
        everything ``mate``, the partner's bot (None for a person), has committed to;
        then hold the new move's source until it lands. ``card_at(src)`` names the
        card picked up, for the partner's refusals. Returns ``due``."""
        seat, partner = self.seat, self.partner
        held = holds.held(seat)[1 - partner]
        avoid = _NOTHING if held is None else frozenset((held,))
        if mate is not None and mate.move is not None:
            avoid |= touches(mate.move)
        due = self.plan(now_ms, avoid, role)
        holds.drop(seat, partner)
        move = self.move
        src = picked_up(move) if move is not None else None
        if src is not None:
            holds.pick(seat, partner, src, card_at(src) if card_at is not None else None)
        return due

    def stale(self, held: int | None, role: str | None) -> bool:
        """Must the bot look again now that its partner holds ``held`` and its role is
        ``role`` (R40)? Yes when it has nothing committed, its role changed (a person
        came or left beside it), or its move touches what the partner picked up."""
        move = self.move
        return move is None or self.role != role or (held is not None and held in touches(move))

    def stop(self) -> None:
        """The hand is over (or a person took the seat back): no more timers."""
        self.due = None
        self.move = None


def suggest(
    seat: int, seat_view: Mapping[str, Any], now_ms: int, level: Level, totals: Sequence[int] = ()
) -> Move | None:
    """The move a fresh bot of ``level`` would make for ``seat`` now, reading only the
    seat's view: a hint for a person, not a bot at the table (nothing is committed)."""
    bot = Bot(seat, level, "balanced", 0)
    bot.begin(seat_view, totals)
    return bot.decide(now_ms).move
