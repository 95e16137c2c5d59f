"""Bots in seats: the driver side of the bot protocol (docs/bots.md), timer by timer.

A ``BotDriver`` holds one ``nertz.bots.Bot`` and the one thing the table needs to
drive it with real (or virtual) timers: when it is due next and which move it has
committed to. The table asks ``due``; when the time comes it submits ``move`` through
the same path as a person's play and then calls ``after_play`` (or ``plan`` to look
again). No clock here: every call carries the table's time in milliseconds.

A driver plays a bot seat for the whole match, or a person's seat while they are away
(``bot_takeover_s``, handed back when they return). ``BotSeats`` is the table's part
that drives them: it makes a seat's driver, has it look at the table (``_plan``, at a
partnership seat around what its partner holds, R40) and plays its move when it is due
(``_bot``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from nertz.bots import NERTZ_ROLE, STOCK_ROLE, Bot, parse_seat
from nertz.engine import LATE_REFUSALS, Event, Hand, Holds, Move, Refusal, picked_up, touches

from .commands import Stage
from .partners import top

if TYPE_CHECKING:
    from .seats import Place

__all__ = [
    "EXPECTED_REFUSALS",
    "NERTZ_ROLE",
    "STOCK_ROLE",
    "TAKEOVER_SPEC",
    "BotDriver",
    "BotSeats",
]

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


class BotSeats:
    """The ``Table``'s bots: each place a bot plays has a ``BotDriver`` (``driver``)."""

    per_seat: int
    holds: Holds
    hand: Hand | None
    stage: Stage
    _seed: int
    _bot_seeds: int

    if TYPE_CHECKING:

        def place(self, seat: int, partner: int = 0) -> Place: ...

        def partner_of(self, place: Place) -> Place | None: ...

        def _send_hold(self, place: Place) -> None: ...

        def _play(self, place: Place, move: Move, now: int, conn: int | None, seq: int) -> bool: ...

    def _driver(self, seat_no: int, spec: str) -> BotDriver:
        self._bot_seeds += 1
        return BotDriver(seat_no, spec, hash((self._seed, seat_no, self._bot_seeds)) & 0xFFFFFFFF)

    def _bot(self, place: Place, now: int) -> None:
        """A bot's timer: its committed move goes in like a person's, or it looks again."""
        driver = place.driver
        assert driver is not None
        move = driver.move
        if move is None:
            self._plan(place, now)
            return
        driver.move = None
        driver.due = None
        self._play(place, move, now, None, 0)
        if self.stage is Stage.PLAYING and driver.due is None and place.driver is driver:
            self._plan(place, now)  # a person looks at the table again as soon as a card lands

    def _role(self, place: Place) -> str | None:
        """A bot's share of a partnership seat's work (docs/bots.md, R40): with a
        person, the bot turns the stock and feeds the middle while the person watches
        the Nertz pile; two bots split the same way, partner 0 on the Nertz pile."""
        other = self.partner_of(place)
        if other is None:
            return None
        if other.driver is None and other.taken:
            return STOCK_ROLE
        return NERTZ_ROLE if place.partner == 0 else STOCK_ROLE

    def _plan(self, place: Place, now: int) -> None:
        """A bot looks at the table: its next move, holding that move's source until
        it lands (R40), and never a move touching what its partner holds."""
        driver = place.driver
        assert driver is not None
        if self.per_seat == 1:
            driver.plan(now)
            return
        seat, partner = place.number, place.partner
        other = self.holds.held(seat)[1 - partner]
        avoid = frozenset(() if other is None else (other,))
        mate = self.place(seat, 1 - partner).driver
        if mate is not None and mate.move is not None:
            avoid |= touches(mate.move)  # a bot partner's whole move is in plain sight
        driver.plan(now, avoid, self._role(place))
        before = (self.holds.held(seat)[partner], self.holds.card(seat, partner))
        self.holds.drop(seat, partner)
        src = picked_up(driver.move) if driver.move is not None else None
        if src is not None:
            self.holds.pick(seat, partner, src, top(self.hand, seat, src))
        if (self.holds.held(seat)[partner], self.holds.card(seat, partner)) != before:
            self._send_hold(place)
