"""Seats and connections: who sits where, who is connected, and who plays a place now.

A seat is a bot's from the table's creation, or a person's once they join and hold
its token. A ``Place`` (``context.py``) is one person's (or one bot's) place at a seat:
a seat has one, or two at a partnership table (R40). ``Seats`` is the table's
collaborator that seats people (``join``), opens and closes their connections
(``connect``, ``disconnect``), has a bot stand in for a person who is away
(``takeover``, the ``TAKEOVER`` timer) and frees the place of one who does not come
back (``release``, the ``RELEASE`` timer).

How long the place of a person who is away is kept, and from when a bot plays it, is
decided in one place, ``keeping``: what everyone sees (a seat's ``kept_until_ms`` and
``bot_from_ms``) and the timers that act on it are the same answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from nertz.bots import PAIR_SEP
from nertz.engine import PARTNERS, source_text, view
from nertz.server.protocol import (
    PROTOCOL_VERSION,
    ConnectedEvent,
    SeatEvent,
    TakeoverEvent,
)
from nertz.server.table.bots import Bots
from nertz.server.table.chat import Chat
from nertz.server.table.commands import Connect, Join, Stage
from nertz.server.table.context import Actions, Due, Place, TableContext, Timer
from nertz.server.table.names import name_key
from nertz.server.table.partners import Partners
from nertz.server.table.records import SeatRecord
from nertz.server.table.settings import TAKEOVER_SPEC, Settings

__all__ = ["RESEND_LIMIT", "Kept", "Seats", "choose_place", "keeping", "outside_refusal"]

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


def outside_refusal(settings: Settings, free: Sequence[Place], key: str) -> tuple[str, str] | None:
    """Why an outside bot (its name's ``name_key``) may not sit here, or None: a table
    seats one only if it allows outside bots (``Settings.outside_bots``) or the host
    invited it by name to a free place. The one place that decides, so the rule for
    rated play is here too: a rated table never seats an outside bot, invited or not
    (issue 26: its bots have fixed ratings by level, an outside bot none)."""
    if settings.rated:
        return (
            "rated_table",
            "a rated table seats no outside bot: its bots play at fixed ratings by level",
        )
    if any(p.invited is not None and name_key(p.invited) == key for p in free):
        return None
    if not settings.outside_bots:
        return (
            "no_outside_bots",
            "this table does not seat outside bots; its host may allow them, or invite "
            "this bot by name",
        )
    return None


class Kept(NamedTuple):
    """How long a person away keeps their place (table time): ``until_ms`` it is
    released, and from ``bot_from_ms`` a bot plays it until then. None: not so."""

    until_ms: int | None
    bot_from_ms: int | None


def keeping(place: Place, stage: Stage, settings: Settings) -> Kept:
    """How long the place of a person who is not connected is kept: released
    ``reconnect_s`` after they left, and from ``bot_takeover_s`` after it (if that
    comes first) a bot plays it while a match is dealt, unless a bot plays it already.
    Nothing is kept for anyone else: a connected person, a bot's place, a place
    nobody holds, a person the host's bot stands in for (their place is kept until
    they come back), or anyone once the match is over (a place holds nothing then; the
    next match counts from when they left). The one answer for both what everyone
    sees (``kept_until_ms``, ``bot_from_ms``) and the ``TAKEOVER`` and ``RELEASE``
    timers."""
    left = place.left_ms
    if left is None or place.bot is not None or place.token_hash is None:
        return Kept(None, None)
    if place.stand_in is not None or stage is Stage.OVER:
        return Kept(None, None)
    takeover_s, reconnect_s = settings.bot_takeover_s, settings.reconnect_s
    bot = None
    if 0 < takeover_s < reconnect_s and stage is not Stage.SEATING and place.driver is None:
        bot = left + takeover_s * 1000
    return Kept(left + reconnect_s * 1000, bot)


class Seats:
    """The ``Table``'s seats and connections: the places (seat by seat) and the
    connections (connection id -> place index, None for a spectator) are in the
    ``TableContext``; this collaborator changes them."""

    def __init__(
        self,
        ctx: TableContext,
        actions: Actions,
        partners: Partners,
        bots: Bots,
        chat: Chat,
    ) -> None:
        self.ctx = ctx
        self.actions = actions
        self.partners = partners
        self.bots = bots
        self.chat = chat

    def public(self, number: int) -> dict[str, Any]:
        """One seat as everyone sees it; a partnership seat (R40) shows both people:
        ``name`` is "Ann & Bob", ``partners`` each one, ``holding`` what each has
        picked up (face-up cards only)."""
        first = self.ctx.place(number)
        if self.ctx.per_seat == 1:
            return {**first.public(), **self._away_public(first)}
        both = [self.ctx.place(number, p) for p in range(PARTNERS)]
        names = [p.name for p in both if p.name]
        specs = [p.bot for p in both]
        held = self.ctx.holds.held(number)
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

    def kept(self, place: Place) -> Kept:
        """``keeping`` at this table now."""
        return keeping(place, self.ctx.stage, self.ctx.settings)

    def _away_public(self, place: Place) -> dict[str, int]:
        """``keeping`` as a place's entry in ``info()`` shows it (absent: none)."""
        kept, bot = self.kept(place)
        times = {"kept_until_ms": kept, "bot_from_ms": bot}
        return {key: at for key, at in times.items() if at is not None}

    def dues(self) -> list[Due]:
        """The ``TAKEOVER`` and ``RELEASE`` timers of every person away, place by place,
        at the times ``keeping`` gives (and everyone sees)."""
        dues = []
        for index, place in enumerate(self.ctx.places):
            kept, bot = self.kept(place)
            if bot is not None:
                dues.append(Due(bot, Timer.TAKEOVER, index))
            if kept is not None:
                dues.append(Due(kept, Timer.RELEASE, index))
        return dues

    def restore(self, seats: Sequence[SeatRecord]) -> None:
        """Every place from its latest stored record (``Table.restore``)."""
        for seat_record in seats:
            if not 0 <= seat_record.partner < self.ctx.per_seat:
                raise ValueError(f"seat {seat_record.seat} has no partner {seat_record.partner}")
            place = self.ctx.place(seat_record.seat, seat_record.partner)
            place.name, place.token_hash = seat_record.name, seat_record.token_hash
            place.bot, place.outside = seat_record.bot, seat_record.outside

    def adopt(self, conns: dict[int, int | None]) -> None:
        """Take over the connections of a table this one replaces (rebuilt after an
        exception): everyone gets a fresh state."""
        for conn, index in conns.items():
            self.ctx.conns[conn] = index
            if index is not None:
                place = self.ctx.places[index]
                place.conn, place.left_ms = conn, None
                if place.driver is not None and place.bot is None:
                    place.driver = None
            self.actions.send_state(conn)

    def join(
        self, command: Join, now: int, kept_for: Place | None
    ) -> tuple[tuple[int, int] | None, tuple[str, str] | None]:
        """Seat a person (``kept_for``: the place kept for the table's creator until
        they sit, ``Host.kept_place``): their place, or a refusal (a code and a
        sentence)."""
        free = [
            p for p in self.ctx.places if p.bot is None and p.token_hash is None and p.conn is None
        ]
        if kept_for is not None and not command.creator:
            free = [p for p in free if p is not kept_for]
        key = name_key(command.name)
        if command.outside:
            refusal = outside_refusal(self.ctx.settings, free, key)
            if refusal is not None:
                return None, refusal
            invited = [p for p in free if p.invited is not None and name_key(p.invited) == key]
            free = invited or [p for p in free if p.invited is None]
        else:  # a place the host keeps for an outside bot is that bot's alone
            free = [p for p in free if p.invited is None]
        if command.seat is not None:
            if not 0 <= command.seat < self.ctx.settings.seats:
                return None, ("no_such_seat", f"there is no seat {command.seat} at this table")
            free = [p for p in free if p.number == command.seat]
            if command.partner is not None:
                if not 0 <= command.partner < self.ctx.per_seat:
                    return None, (
                        "no_such_seat",
                        "seats at this table have one place (no partnerships)"
                        if self.ctx.per_seat == 1
                        else f"a partnership seat has partners 0 and 1, not {command.partner}",
                    )
                free = [p for p in free if p.partner == command.partner]
            if not free:
                return None, ("seat_taken", f"seat {command.seat} is taken")
        elif command.partner is not None:
            return None, ("no_such_seat", "choose a seat along with a partner place")
        if not free:
            return None, ("table_full", "every seat at this table is taken")
        # Issue 26, point 5: one account is one person, whose rating one place moves;
        # two places of one account at one rated table could feed each other.
        if (
            command.account is not None
            and self.ctx.settings.rated
            and any(p.account == command.account and p.token_hash for p in self.ctx.places)
        ):
            return None, (
                "one_place",
                "your account holds a place at this rated table already (from this "
                "browser or another): one account plays one place; play from that one",
            )
        for other in self.ctx.places:
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
        elif self.ctx.per_seat > 1:  # R40: the table pairs people in the order they come
            taken = [self.ctx.partner_of(p).taken for p in free]  # type: ignore[union-attr]
            number, partner = choose_place([(p.number, p.partner) for p in free], taken)
            place = self.ctx.place(number, partner)
        # Held until ``reconnect_s`` without a connection, like a dropped one: a join
        # that never connects does not keep the place for good.
        place.name, place.token_hash, place.ready, place.left_ms = (
            command.name,
            command.token_hash,
            False,
            now,
        )
        place.person, place.account = command.person, command.account
        place.outside, place.invited = command.outside, None
        self.ctx.store(
            SeatRecord(
                place.number, place.name, place.token_hash, None, place.partner, place.outside
            )
        )
        kept, bot = self.kept(place)  # until they connect
        self.ctx.emit(
            SeatEvent(
                seat=place.number,
                partner=self.ctx.partner_no(place),
                name=place.name,
                bot=place.shown_bot,
                person=place.person,
                kept_until_ms=kept,
                bot_from_ms=bot,
            )
        )
        self.bots.replan_partner(place, now)  # a bot partner now shares the seat with a person
        return (place.number, place.partner), None

    def connect(self, command: Connect, now: int) -> None:
        conn = command.conn
        if command.protocol != PROTOCOL_VERSION:
            self.ctx.error(
                conn,
                "protocol",
                f"this server speaks protocol {PROTOCOL_VERSION}, not {command.protocol}",
            )
            self.ctx.close(conn, "protocol version")
            return
        index: int | None = None
        if command.token_hash is not None:
            match = [i for i, p in enumerate(self.ctx.places) if p.token_hash == command.token_hash]
            if not match:
                self.ctx.error(conn, "bad_token", "no seat at this table has that token")
                self.ctx.close(conn, "bad token")
                return
            index = match[0]
            place = self.ctx.places[index]
            if place.conn is not None and place.conn != conn:
                old = place.conn
                self.ctx.error(old, "replaced", "this seat was opened on another connection")
                self.ctx.close(old, "replaced")
                self.ctx.conns.pop(old, None)
            place.conn, place.left_ms = conn, None
            if place.driver is not None:  # the owner is back: the bot hands the seat back
                place.driver.stop()
                place.driver, place.stand_in = None, None
                self.partners.let_go(place)
                self.ctx.emit(
                    TakeoverEvent(seat=place.number, partner=self.ctx.partner_no(place), bot=False)
                )
                self.bots.replan_partner(place, now)
            self.ctx.emit(
                ConnectedEvent(
                    seat=place.number, partner=self.ctx.partner_no(place), connected=True
                )
            )
        elif not (self.ctx.settings.public or command.key_ok):
            self.ctx.error(conn, "private_table", "this table is private: use its link")
            self.ctx.close(conn, "private")
            return
        self.ctx.conns[conn] = index
        last = command.last_version
        # Versions count within one incarnation: after a rebuild a client's version may
        # name an event the crash lost, so only the same epoch resumes by events.
        if (
            command.epoch == self.ctx.epoch
            and 0 < last < self.ctx.version
            and self.ctx.version - last <= RESEND_LIMIT
        ):
            for body in self.ctx.events[last:]:
                self.ctx.send(conn, body)
            self.partners.resend(conn)
            self.chat.resend(conn)
        else:
            self.actions.send_state(conn)

    def disconnect(self, conn: int, now: int) -> None:
        index = self.ctx.conns.pop(conn, None)
        if index is None:
            return
        place = self.ctx.places[index]
        if place.conn == conn:
            place.conn, place.left_ms, place.ready = None, now, False
            self.partners.let_go(place)  # R40: a hold lapses when its person leaves
            kept, bot = self.kept(place)  # a visible countdown for everyone
            self.ctx.emit(
                ConnectedEvent(
                    seat=place.number,
                    partner=self.ctx.partner_no(place),
                    connected=False,
                    kept_until_ms=kept,
                    bot_from_ms=bot,
                )
            )

    def takeover(self, place: Place, now: int, why: str | None = None) -> None:
        """A person away for ``bot_takeover_s`` (or whose place was released): a bot
        plays the place until they come back. ``why`` (``TakeoverEvent``) when the
        person is not away."""
        place.driver = self.bots.driver(place, TAKEOVER_SPEC)
        partner = self.ctx.partner_no(place)
        self.ctx.emit(TakeoverEvent(seat=place.number, partner=partner, bot=True, why=why))
        if self.ctx.hand is not None and self.ctx.stage in (Stage.COUNTDOWN, Stage.PLAYING):
            place.driver.begin(view(self.ctx.hand, place.number), self.ctx.match.totals)
            if self.ctx.stage is Stage.PLAYING:
                self.bots.plan(place, now)
                self.bots.replan_partner(place, now)

    def release(self, place: Place, now: int) -> None:
        """A person away for ``reconnect_s`` loses the place: the token stops working,
        a bot plays it, anyone may join it. (The table passes the host's role on,
        ``Table.release``.)"""
        place.token_hash, place.left_ms, place.name, place.ready = None, None, "", False
        place.person, place.outside, place.account = None, False, None
        place.stand_in = None  # a bot plays on for nobody in particular
        self.ctx.store(SeatRecord(place.number, "", None, None, place.partner))
        self.ctx.emit(
            SeatEvent(seat=place.number, partner=self.ctx.partner_no(place), name=None, bot=None)
        )
        if place.driver is None and self.ctx.stage is not Stage.SEATING:
            self.takeover(place, now)

    def back_from_bot(self, place: Place, now: int) -> bool:
        """A connected person a bot stands in for (``ready_s`` ran out) plays or says
        ready: the bot hands the place back."""
        if place.bot is not None or place.driver is None or place.conn is None:
            return False
        place.driver.stop()
        place.driver = None
        self.partners.let_go(place)
        self.ctx.emit(
            TakeoverEvent(seat=place.number, partner=self.ctx.partner_no(place), bot=False)
        )
        self.bots.replan_partner(place, now)
        return True
