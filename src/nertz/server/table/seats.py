"""Seats and connections: who sits where, who is connected, and who plays a place now.

A seat is a bot's from the table's creation, or a person's once they join and hold
its token. A ``Place`` is one person's (or one bot's) place at a seat: a seat has one,
or two at a partnership table (R40). ``Seating`` is the table's part that seats people
(``_join``), opens and closes their connections (``_connect``, ``_disconnect``), has a
bot stand in for a person who is away (``_takeover``) and frees the place of one who
does not come back (``_release``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nertz.bots import PAIR_SEP, Driver
from nertz.engine import PARTNERS, Hand, Holds, Match, Rules, source_text, view
from nertz.server.protocol import (
    PROTOCOL_VERSION,
    ConnectedEvent,
    ErrorMsg,
    SeatEvent,
    TableEvent,
    TakeoverEvent,
    encode,
)
from nertz.server.table.commands import Connect, Join, Out, Stage
from nertz.server.table.names import name_key
from nertz.server.table.records import SeatRecord
from nertz.server.table.settings import TAKEOVER_SPEC, Settings

__all__ = ["RESEND_LIMIT", "Place", "Seating", "choose_place"]

RESEND_LIMIT = 500
"""A resuming client missing more events than this gets a full state instead."""


def choose_place(free: Sequence[tuple[int, int]], partner_taken: Sequence[bool]) -> tuple[int, int]:
    """The place (R40) the table gives a person who did not choose one: next to someone
    already seated without a partner (the lowest such seat), so people are paired in
    the order they come; else the first place of the lowest empty seat. ``free`` lists
    free places ``(seat, partner)`` in order; ``partner_taken[i]`` says whether the
    other place of ``free[i]``'s seat is taken. ``free`` is not empty."""
    for place, taken in zip(free, partner_taken, strict=True):
        if taken:
            return place
    return free[0]


@dataclass(slots=True)
class Place:
    """One person's (or one bot's) place at a seat. A seat has one place, or two at a
    partnership table (R40): partner 0 and partner 1, one layout between them."""

    number: int
    """The seat."""
    partner: int = 0
    name: str = ""
    token_hash: str | None = None
    bot: str | None = None
    """The bot spec of a bot's place (None for a person's place)."""
    conn: int | None = None
    ready: bool = False
    left_ms: int | None = None
    """When the person's connection dropped (None while connected or never joined)."""
    driver: Driver | None = None
    """The bot playing this place now: a bot's place, or a person's taken over."""
    hold_until: int | None = None
    """When this person's hold on a card lapses (R40, ``HOLD_LAPSE_MS``)."""
    person: str | None = None
    """The person's handle at this table (``devices.person_id``), the same whatever name
    they sit down under: what a page mutes. None without a device (or after a restart)."""
    stand_in: str | None = None
    """The bot the host put in for this person while they are away ("A bot for Ann",
    ``host.py``): it plays the place in their name, and the place is kept for them
    (never released) until they come back or the host takes the bot out."""

    @property
    def taken(self) -> bool:
        return self.bot is not None or self.token_hash is not None

    def public(self) -> dict[str, Any]:
        return {
            "seat": self.number,
            "name": self.name or None,
            "bot": self.bot,
            "connected": self.bot is not None or self.conn is not None,
            "ready": self.ready or self.bot is not None,
            "takeover": self.bot is None and self.driver is not None,
            **({"person": self.person} if self.person else {}),
            **({"stand_in": self.stand_in} if self.stand_in is not None else {}),
        }


class Seating:
    """The ``Table``'s seats and connections. State is the table's: ``places`` (seat
    by seat), ``conns`` (connection id -> place index, None for a spectator)."""

    rules: Rules
    settings: Settings
    per_seat: int
    places: list[Place]
    conns: dict[int, int | None]
    holds: Holds
    match: Match
    stage: Stage
    hand: Hand | None
    events: list[bytes]
    epoch: str
    _out: Out
    _due_known: bool

    if TYPE_CHECKING:

        @property
        def version(self) -> int: ...

        def _emit(self, event: TableEvent, skip: int | None = None) -> bytes: ...

        def _send_state(self, conn: int) -> None: ...

        def _driver(self, place: Place, spec: str) -> Driver: ...

        def _let_go(self, place: Place) -> None: ...

        def _resend_holds(self, conn: int) -> None: ...

        def _resend_chat(self, conn: int) -> None: ...

        def _plan(self, place: Place, now: int) -> None: ...

        def _replan_partner(self, place: Place, now: int) -> None: ...

        def _host_gone(self, place: Place) -> None: ...

        def _kept_place(self, now: int) -> Place | None: ...

    @property
    def seats(self) -> list[Place]:
        """Each seat's first place (its only one without partnerships)."""
        return self.places[:: self.per_seat]

    def place(self, seat: int, partner: int = 0) -> Place:
        return self.places[seat * self.per_seat + partner]

    def partner_of(self, place: Place) -> Place | None:
        """The other person (or bot) at ``place``'s seat (R40), if the table pairs."""
        if self.per_seat == 1:
            return None
        return self.place(place.number, 1 - place.partner)

    def _seat_public(self, number: int) -> dict[str, Any]:
        """One seat as everyone sees it; a partnership seat (R40) shows both people:
        ``name`` is "Ann & Bob", ``partners`` each one, ``holding`` what each has
        picked up (face-up cards only)."""
        first = self.place(number)
        if self.per_seat == 1:
            return {**first.public(), **self._away_public(first)}
        both = [self.place(number, p) for p in range(PARTNERS)]
        names = [p.name for p in both if p.name]
        specs = [p.bot for p in both]
        held = self.holds.held(number)
        return {
            "seat": number,
            "name": " & ".join(names) if names else None,
            "bot": PAIR_SEP.join(str(b) for b in specs) if None not in specs else None,
            "connected": all(p.public()["connected"] for p in both if p.taken)
            and any(p.taken for p in both),
            "ready": all(p.public()["ready"] for p in both),
            "takeover": any(p.public()["takeover"] for p in both),
            "partners": [
                {**p.public(), "partner": p.partner, **self._away_public(p)} for p in both
            ],
            "holding": [None if h is None else source_text(h) for h in held],
        }

    def _away_times(self, place: Place) -> tuple[int | None, int | None]:
        """For a person not connected who holds a place: when it is released
        (``reconnect_s``) and, if before that, when a bot plays it while a hand is on
        (``bot_takeover_s``), in table time. (None, None) for anyone else."""
        left, s = place.left_ms, self.settings
        if left is None or place.bot is not None or place.token_hash is None:
            return None, None
        if place.stand_in is not None:  # the host's bot keeps the place for them
            return None, None
        bot = left + s.bot_takeover_s * 1000 if 0 < s.bot_takeover_s < s.reconnect_s else None
        return left + s.reconnect_s * 1000, bot

    def _away_public(self, place: Place) -> dict[str, int]:
        """``_away_times`` as a place's entry in ``info()`` shows them (absent: none)."""
        kept, bot = self._away_times(place)
        times = {"kept_until_ms": kept, "bot_from_ms": bot}
        return {key: at for key, at in times.items() if at is not None}

    def _seat_records(self, seats: Sequence[SeatRecord]) -> None:
        """Every place from its latest stored record (``Table.restore``)."""
        for seat_record in seats:
            if not 0 <= seat_record.partner < self.per_seat:
                raise ValueError(f"seat {seat_record.seat} has no partner {seat_record.partner}")
            place = self.place(seat_record.seat, seat_record.partner)
            place.name, place.token_hash = seat_record.name, seat_record.token_hash
            place.bot = seat_record.bot

    def adopt(self, conns: dict[int, int | None]) -> None:
        """Take over the connections of a table this one replaces (rebuilt after an
        exception): everyone gets a fresh state."""
        self._due_known = False
        for conn, index in conns.items():
            self.conns[conn] = index
            if index is not None:
                place = self.places[index]
                place.conn, place.left_ms = conn, None
                if place.driver is not None and place.bot is None:
                    place.driver = None
            self._send_state(conn)

    def _join(
        self, command: Join, now: int
    ) -> tuple[tuple[int, int] | None, tuple[str, str] | None]:
        free = [p for p in self.places if p.bot is None and p.token_hash is None and p.conn is None]
        kept_for = self._kept_place(now)  # the creator's until they sit (host.py)
        if kept_for is not None and not command.creator:
            free = [p for p in free if p is not kept_for]
        if command.seat is not None:
            if not 0 <= command.seat < self.settings.seats:
                return None, ("no_such_seat", f"there is no seat {command.seat} at this table")
            free = [p for p in free if p.number == command.seat]
            if command.partner is not None:
                if not 0 <= command.partner < self.per_seat:
                    return None, (
                        "no_such_seat",
                        "seats at this table have one place (no partnerships)"
                        if self.per_seat == 1
                        else f"a partnership seat has partners 0 and 1, not {command.partner}",
                    )
                free = [p for p in free if p.partner == command.partner]
            if not free:
                return None, ("seat_taken", f"seat {command.seat} is taken")
        elif command.partner is not None:
            return None, ("no_such_seat", "choose a seat along with a partner place")
        if not free:
            return None, ("table_full", "every seat at this table is taken")
        key = name_key(command.name)
        for other in self.places:
            # A bot's given name ("Ben", ``bot_name``) never keeps a person out.
            if other.name and other.bot is None and name_key(other.name) == key:
                return None, (
                    "name_taken",
                    f"{other.name!r} already sits at this table and {command.name!r} looks "
                    "the same; choose a name the others can tell apart",
                )
        place = free[0]
        if command.creator and kept_for is not None and command.seat is None:
            place = kept_for  # the creator sits where the table kept them a place
        elif self.per_seat > 1:  # R40: the table pairs people in the order they come
            taken = [self.partner_of(p).taken for p in free]  # type: ignore[union-attr]
            number, partner = choose_place([(p.number, p.partner) for p in free], taken)
            place = self.place(number, partner)
        # Held until ``reconnect_s`` without a connection, like a dropped one: a join
        # that never connects does not keep the place for good.
        place.name, place.token_hash, place.ready, place.left_ms = (
            command.name,
            command.token_hash,
            False,
            now,
        )
        place.person = command.person
        self._out.records.append(
            SeatRecord(place.number, place.name, place.token_hash, None, place.partner)
        )
        kept, bot = self._away_times(place)  # until they connect
        self._emit(
            SeatEvent(
                seat=place.number,
                partner=self._partner_no(place),
                name=place.name,
                bot=None,
                person=place.person,
                kept_until_ms=kept,
                bot_from_ms=bot,
            )
        )
        self._replan_partner(place, now)  # a bot partner now shares the seat with a person
        return (place.number, place.partner), None

    def _partner_no(self, place: Place) -> int | None:
        """Which partner an event about ``place`` names: at a partnership table (R40)
        its place at the seat; None elsewhere, so solo tables' events keep their shape."""
        return place.partner if self.per_seat > 1 else None

    def _error(self, conn: int, code: str, reason: str, seq: int | None = None) -> None:
        """Tell one connection that its message could not be acted on."""
        self._out.sends.append((conn, encode(ErrorMsg(code, reason, seq))))

    def _connect(self, command: Connect, now: int) -> None:
        conn = command.conn
        if command.protocol != PROTOCOL_VERSION:
            self._error(
                conn,
                "protocol",
                f"this server speaks protocol {PROTOCOL_VERSION}, not {command.protocol}",
            )
            self._out.closes.append((conn, "protocol version"))
            return
        index: int | None = None
        if command.token_hash is not None:
            match = [i for i, p in enumerate(self.places) if p.token_hash == command.token_hash]
            if not match:
                self._error(conn, "bad_token", "no seat at this table has that token")
                self._out.closes.append((conn, "bad token"))
                return
            index = match[0]
            place = self.places[index]
            if place.conn is not None and place.conn != conn:
                old = place.conn
                self._error(old, "replaced", "this seat was opened on another connection")
                self._out.closes.append((old, "replaced"))
                self.conns.pop(old, None)
            place.conn, place.left_ms = conn, None
            if place.driver is not None:  # the owner is back: the bot hands the seat back
                place.driver.stop()
                place.driver, place.stand_in = None, None
                self._let_go(place)
                self._emit(
                    TakeoverEvent(seat=place.number, partner=self._partner_no(place), bot=False)
                )
                self._replan_partner(place, now)
            self._emit(
                ConnectedEvent(seat=place.number, partner=self._partner_no(place), connected=True)
            )
        elif not (self.settings.public or command.key_ok):
            self._error(conn, "private_table", "this table is private: use its link")
            self._out.closes.append((conn, "private"))
            return
        self.conns[conn] = index
        last = command.last_version
        # Versions count within one incarnation: after a rebuild a client's version may
        # name an event the crash lost, so only the same epoch resumes by events.
        if (
            command.epoch == self.epoch
            and 0 < last < self.version
            and self.version - last <= RESEND_LIMIT
        ):
            for body in self.events[last:]:
                self._out.sends.append((conn, body))
            self._resend_holds(conn)
            self._resend_chat(conn)
        else:
            self._send_state(conn)

    def _disconnect(self, conn: int, now: int) -> None:
        index = self.conns.pop(conn, None)
        if index is None:
            return
        place = self.places[index]
        if place.conn == conn:
            place.conn, place.left_ms, place.ready = None, now, False
            self._let_go(place)  # R40: a hold lapses when its person leaves
            kept, bot = self._away_times(place)  # a visible countdown for everyone
            self._emit(
                ConnectedEvent(
                    seat=place.number,
                    partner=self._partner_no(place),
                    connected=False,
                    kept_until_ms=kept,
                    bot_from_ms=bot,
                )
            )

    def _takeover(self, place: Place, now: int, why: str | None = None) -> None:
        """A person away for ``bot_takeover_s`` (or whose place was released): a bot
        plays the place until they come back. ``why`` (``TakeoverEvent``) when the
        person is not away."""
        place.driver = self._driver(place, TAKEOVER_SPEC)
        partner = self._partner_no(place)
        self._emit(TakeoverEvent(seat=place.number, partner=partner, bot=True, why=why))
        if self.hand is not None and self.stage in (Stage.COUNTDOWN, Stage.PLAYING):
            place.driver.begin(view(self.hand, place.number), self.match.totals)
            if self.stage is Stage.PLAYING:
                self._plan(place, now)
                self._replan_partner(place, now)

    def _release(self, place: Place, now: int) -> None:
        """A person away for ``reconnect_s`` loses the place: the token stops working,
        a bot plays it, anyone may join it."""
        place.token_hash, place.left_ms, place.name, place.ready = None, None, "", False
        place.person = None
        place.stand_in = None  # a bot plays on for nobody in particular
        self._out.records.append(SeatRecord(place.number, "", None, None, place.partner))
        self._emit(
            SeatEvent(seat=place.number, partner=self._partner_no(place), name=None, bot=None)
        )
        if place.driver is None and self.stage is not Stage.SEATING:
            self._takeover(place, now)
        self._host_gone(place)  # a host who lost the place is host no more
