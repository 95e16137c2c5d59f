"""What every part of the table shares, owned in one place: the ``TableContext``.

``Table`` (``table.py``) is composed of collaborators, one per concern: ``Seats``,
``Partners``, ``Bots``, ``Series``, ``Host``, ``Practice``, ``Lifetimes``, ``Chat`` and
``FairRaces``. Each owns its own state and offers a small typed interface. What they
all need — the rules, the settings, the places (``Place``, one person's or bot's place
at a seat), the connections, the hand and the match, the event log and the outbox of
the command being handled — is the table's, and lives here, in the one
``TableContext`` the table hands each of them. The few things a collaborator asks the
table itself to do (deal, play a move, have a bot take a place over, send a state) are
``Actions``, which ``Table`` implements.

A timer is a ``Timer``: each kind is set and fired by the collaborator that owns it,
and the table's one deadline is the earliest of them (``Due``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple, Protocol

from nertz.bots import Driver
from nertz.engine import Deal, Hand, Holds, Match, Move, Rules
from nertz.server.protocol import OUTSIDE_BOT, ErrorMsg, EventMsg, Refused, TableEvent, encode
from nertz.server.table.commands import Out, Stage
from nertz.server.table.records import EventRecord, Record
from nertz.server.table.settings import Settings

__all__ = ["Actions", "Due", "Place", "Stamps", "TableContext", "Timer"]


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

    account: str | None = None
    """The account its person was signed in to when they sat down (``Join.account``):
    whose ratings it counts for. None without one (or after a restart, but at a rated
    table: ``Lobby.adopt`` reads it back from the stored places)."""

    outside: bool = False
    """The place of an outside bot (a program registered at ``POST /api/bots``): it
    plays over its own connection like a person, and every page marks it a bot
    (``bot`` is ``OUTSIDE_BOT`` in what everyone sees). Never the host."""
    invited: str | None = None
    """A free place the host keeps for the outside bot of this name (``host.py``)."""

    @property
    def taken(self) -> bool:
        return self.bot is not None or self.token_hash is not None

    @property
    def shown_bot(self) -> str | None:
        """What everyone sees as this place's bot: its spec, ``OUTSIDE_BOT`` for an
        outside bot's, else None (a person's, or nobody's)."""
        return OUTSIDE_BOT if self.outside else self.bot

    def public(self) -> dict[str, Any]:
        return {
            "seat": self.number,
            "name": self.name or None,
            "bot": self.shown_bot,
            "connected": self.bot is not None or self.conn is not None,
            "ready": self.ready or self.bot is not None,
            "takeover": self.bot is None and self.driver is not None,
            **({"person": self.person} if self.person else {}),
            **({"stand_in": self.stand_in} if self.stand_in is not None else {}),
            **({"invited": self.invited} if self.invited is not None else {}),
        }


class Timer(Enum):
    """Every kind of timer a table sets, each fired by the part that set it."""

    RACE = "race"
    """``FairRaces``: a race whose plays can no longer be beaten is decided (R16)."""
    PING = "ping"
    """``FairRaces``: a seated connection's clock is pinged."""
    GO = "go"
    """``Table``: the countdown ends, Go (R8)."""
    TICK = "tick"
    """``Table``: the engine's own deadline (the landing window R28, the settle and
    idle checks R25, a joker's announcement R41), or a window the table held open."""
    BOT = "bot"
    """``Bots``: a bot's next action (docs/bots.md)."""
    LAPSE = "lapse"
    """``Partners``: a partner's hold lapses (R40, ``HOLD_LAPSE_MS``)."""
    NEXT = "next"
    """``Table``: the next deal at the latest."""
    READY_BY = "ready_by"
    """``Lifetimes``: the ready countdown ran out; deal with bots for the unready."""
    UNSTARTED = "unstarted"
    """``Lifetimes``: never dealt within ``start_s``."""
    EMPTY = "empty"
    """``Lifetimes``: nobody there for ``empty_s``."""
    UNATTENDED = "unattended"
    """``Lifetimes``: no person seated and connected for ``unattended_s``."""
    IDLE = "idle"
    """``Lifetimes``: nobody played for ``idle_s``."""
    TAKEOVER = "takeover"
    """``Seats``: a bot plays the place of a person away (``bot_takeover_s``)."""
    RELEASE = "release"
    """``Seats``: a person away for ``reconnect_s`` loses the place."""


class Due(NamedTuple):
    """A timer that is set: when (table time), what, and its target: a place index
    (``BOT``, ``LAPSE``, ``TAKEOVER``, ``RELEASE``), a connection id (``PING``), else -1."""

    at: int
    timer: Timer
    target: int = -1


Stamps = tuple[int, int]
"""A play's arrival and credited time (table time, ms), for its input record."""


class Actions(Protocol):
    """What a collaborator asks the table itself to do (``Table`` implements it)."""

    def deal(self, now: int) -> None:
        """Deal the next hand (R33) and count down to Go (R8)."""

    def play(self, place: Place, move: Move, now: int, conn: int | None, seq: int) -> bool:
        """A move for ``place`` along the one path every play takes (``Table._play``)."""

    def takeover(self, place: Place, now: int, why: str | None = None) -> None:
        """A bot plays ``place`` until its person is back (``Seats.takeover``)."""

    def release(self, place: Place, now: int) -> None:
        """The person at ``place`` loses it; the host's role passes on if it was theirs."""

    def send_state(self, conn: int) -> None:
        """Send ``conn`` the whole table as it sees it."""


@dataclass(eq=False)
class TableContext:
    """The table's shared state, one object handed to every collaborator. The hand,
    the match and the stage are the table's (``table.py`` changes them); the places
    and connections are the seats' (``seats.py``); everyone reads them and writes to
    ``out``, the outbox of the command being handled."""

    code: str
    rules: Rules
    settings: Settings
    epoch: str
    """This incarnation: a rebuilt table (restart, error) is a new one, so a client
    holding a version from a future the crash lost is never resumed into it."""
    per_seat: int
    """Places per seat: two people share a seat at a partnership table (R40)."""
    places: list[Place]
    """Every place, seat by seat: ``places[seat * per_seat + partner]``."""
    holds: Holds
    """R40: what each partner holds (only partnership tables pick anything up)."""
    match: Match
    match_no: int = 1
    """Which match of the series this is (from 1, ``series.py``)."""
    first_hand: int = 1
    """The current match's first hand number (hands are numbered across the series)."""
    stage: Stage = Stage.SEATING
    hand: Hand | None = None
    hand_no: int = 0
    rotation: Deal | None = None
    """``duplicate`` (R42): the deal of the current rotation's first hand, which the
    rotation's later hands play moved on seat by seat (never sent: its cards are
    face down)."""
    go_at: int | None = None
    """When Go comes (R8), while counting down (the table's ``GO`` timer)."""
    next_at: int | None = None
    """When the next deal comes at the latest, between hands (the ``NEXT`` timer)."""
    now: int = 0
    """The table's time of the command being handled (it never goes back)."""
    events: list[bytes] = field(default_factory=list)
    """Every event message so far; ``events[v - 1]`` has version ``v``."""
    conns: dict[int, int | None] = field(default_factory=dict)
    """Connection id -> place index (None for a spectator)."""
    out: Out = field(default_factory=Out)
    """What the command being handled produces."""

    @property
    def version(self) -> int:
        return len(self.events)

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

    def partner_no(self, place: Place) -> int | None:
        """Which partner an event about ``place`` names: at a partnership table (R40)
        its place at the seat; None elsewhere, so solo tables' events keep their shape."""
        return place.partner if self.per_seat > 1 else None

    def emit(self, event: TableEvent, skip: int | None = None) -> bytes:
        """A table event: versioned, stored, sent to every connection but ``skip``."""
        version = len(self.events) + 1
        body = encode(EventMsg(version, event))
        self.events.append(body)
        self.out.records.append(EventRecord(version, body))
        sends = self.out.sends
        for conn in self.conns:
            if conn != skip:
                sends.append((conn, body))
        return body

    def send(self, conn: int, body: bytes) -> None:
        self.out.sends.append((conn, body))

    def ping(self, conn: int, body: bytes, t: int) -> None:
        """A ping of fair races, to go out with a WebSocket ping frame (``Out.pings``)."""
        self.out.pings.append((conn, body, t))

    def to_everyone(self, body: bytes) -> None:
        """A message that is no event (no version): to every connection."""
        sends = self.out.sends
        for conn in self.conns:
            sends.append((conn, body))

    def error(self, conn: int, code: str, reason: str, seq: int | None = None) -> None:
        """Tell one connection that its message could not be acted on."""
        self.out.sends.append((conn, encode(ErrorMsg(code, reason, seq))))

    def refuse(self, conn: int, seq: int, code: str, reason: str) -> None:
        """Tell one connection that its play (``seq``) was refused, with why."""
        self.out.sends.append((conn, encode(Refused(seq, code, reason))))

    def close(self, conn: int, why: str) -> None:
        self.out.closes.append((conn, why))

    def store(self, record: Record) -> None:
        self.out.records.append(record)
