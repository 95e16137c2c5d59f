"""Bots in seats: the driver side of the bot protocol (docs/bots.md), timer by timer.

A ``BotDriver`` holds one ``nertz.bots.Bot`` and the one thing the table needs to
drive it with real (or virtual) timers: when it is due next and which move it has
committed to. The table asks ``due``; when the time comes it submits ``move`` through
the same path as a person's play and then calls ``after_play`` (or ``plan`` to look
again). No clock here: every call carries the table's time in milliseconds.

A driver plays a bot seat for the whole match, or a person's seat while they are away
(``bot_takeover_s``, handed back when they return).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nertz.bots import NERTZ_ROLE, STOCK_ROLE, Bot, parse_seat
from nertz.engine import LATE_REFUSALS, Event, Move, Refusal

__all__ = ["EXPECTED_REFUSALS", "NERTZ_ROLE", "STOCK_ROLE", "TAKEOVER_SPEC", "BotDriver"]

TAKEOVER_SPEC = "skilled:balanced"
"""The bot that plays a person's seat while they are away."""

EXPECTED_REFUSALS = LATE_REFUSALS  # the engine's list, named for this module's readers
"""Refusals a correct bot still meets (R16, R28); any other means its picture is wrong."""


class BotDriver:
    """One bot in one seat: its committed move and when it lands."""

    def __init__(self, seat: int, spec: str, seed: int) -> None:
        parsed = parse_seat(spec)
        self.seat = seat
        self.spec = str(parsed)
        self.bot = Bot(seat, parsed.level, parsed.style, seed)
        self.due: int | None = None
        """Table time (ms) when ``move`` lands, or the bot looks again; None: idle."""
        self.move: Move | None = None
        self.role: str | None = None
        """At a partnership seat (R40): the share of the work it played last plan."""

    def begin(self, view: Mapping[str, Any], totals: Sequence[int], now_ms: int) -> None:
        """A hand is dealt (R33), or the bot takes a seat mid-hand: read the view."""
        self.bot.begin(view, totals)
        self.due = None
        self.move = None

    def plan(
        self, now_ms: int, avoid: frozenset[int] = frozenset(), role: str | None = None
    ) -> None:
        """Ask the bot for its next action and start its timer (docs/bots.md). At a
        partnership seat (R40) ``avoid`` is what its partner holds and ``role`` its
        share of the work."""
        self.role = role
        decision = self.bot.decide(now_ms, avoid, role)
        self.move = decision.move
        self.due = now_ms + max(1, decision.delay_ms)

    def observe(self, events: Sequence[Event]) -> None:
        """Every accepted input's events, in table order."""
        self.bot.observe(events)

    def refused(self, move: Move, code: Refusal, view: Mapping[str, Any]) -> None:
        """The bot's own move was refused; rebuild its picture unless that is normal."""
        self.bot.refused(move, code)
        if code not in EXPECTED_REFUSALS:
            self.bot.resync(view)

    def stop(self) -> None:
        """The hand is over (or a person took the seat back): no more timers."""
        self.due = None
        self.move = None
