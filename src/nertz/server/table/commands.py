"""The table's sans-I/O interface: the commands it takes, what one command produces
(``Out``), and ``Stage``, where its match stands.

A driver (the actor, or a test's harness) stamps each command with the table's time
and calls ``Table.handle(command, now_ms)``; the ``Out`` it gets back says what to send
to which connection, which connections to close, what to store, and the reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from nertz.server.protocol import PROTOCOL_VERSION, ClientMessage
from nertz.server.table.records import Record

__all__ = ["Command", "Connect", "Disconnect", "Inbound", "Join", "Out", "Revoked", "Stage", "Wake"]


class Stage(StrEnum):
    """Where the match stands."""

    SEATING = "seating"
    """Waiting for every seat to be taken and every person to be ready."""
    COUNTDOWN = "countdown"
    """Dealt; Go comes after the countdown (R8)."""
    PLAYING = "playing"
    BETWEEN = "between"
    """A hand is over; the next deal comes when everyone is ready or after a while."""
    OVER = "over"
    """The match is over (R32)."""


@dataclass(frozen=True, slots=True)
class Join:
    """Take a seat (HTTP join): replies ``((seat, partner), None)`` or ``(None, (code,
    reason))``. At a partnership table ``partner`` picks the place (R40); without it
    the table pairs people as they come (``seats.choose_place``)."""

    name: str
    token_hash: str
    seat: int | None = None
    partner: int | None = None
    person: str | None = None
    """Who is sitting down, for muting (``devices.person_id``; None: no device)."""
    creator: bool = False
    """The person who made the table (``Lobby.keep_for_creator``): they take the place
    kept for them, and are the host whatever the order of joins."""
    outside: bool = False
    """An outside bot sits down (its registered ``name``; ``http/bots_api.py``): only
    at a table that allows outside bots, or in a place the host invited it to."""
    account: str | None = None
    """The id of the account the person is signed in to (``lobby/accounts.py``; None:
    playing without one), kept on their ``Place``."""


@dataclass(frozen=True, slots=True)
class Connect:
    """A WebSocket said hello: ``token_hash`` None for a spectator."""

    conn: int
    token_hash: str | None
    last_version: int = -1
    key_ok: bool = False
    """The hello carried the key, the invite or the watch secret of a private table."""
    protocol: int = PROTOCOL_VERSION
    epoch: str | None = None
    """The incarnation ``last_version`` belongs to (``Table.epoch``)."""


@dataclass(frozen=True, slots=True)
class Disconnect:
    """A connection closed (or was closed)."""

    conn: int


@dataclass(frozen=True, slots=True)
class Inbound:
    """A decoded client message on a connection that has said hello."""

    conn: int
    message: ClientMessage


@dataclass(frozen=True, slots=True)
class Wake:
    """A timer: the table's deadline has come."""


@dataclass(frozen=True, slots=True)
class WirePong:
    """The WebSocket ping frame sent with the table's ping ``t`` (``Out.pings``) came
    back on a connection: the client's network stack answers it, so no page can hold
    it. With fair races it times the connection's path (R16;
    ``clock.ConnectionClock.wire_pong``)."""

    conn: int
    t: int


@dataclass(frozen=True, slots=True)
class Revoked:
    """The outside bot of this name was revoked by its owner (``http/bots_api.py``): its
    places at the table are given up at once, as a host's ``remove`` does."""

    name: str


Command = Join | Connect | Disconnect | Inbound | Wake | WirePong | Revoked


@dataclass(slots=True)
class Out:
    """What one command produced."""

    sends: list[tuple[int, bytes]] = field(default_factory=list)
    pings: list[tuple[int, bytes, int]] = field(default_factory=list)
    """(connection, message, t): a ping of fair races (R16), each to go out in one write
    with a WebSocket ping frame, whose answer comes back as ``WirePong(connection, t)``;
    after ``sends``."""
    closes: list[tuple[int, str]] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    reply: Any = None
