"""The wire protocol: every message as a msgspec Struct, JSON on a WebSocket.

Client messages (``ClientMessage``) are tagged by ``type``, and so are the server's
(``ServerMessage``: ``state``, ``event``, ``ack``, ``refused``, ``error`` ...); a table
event is one of ``TableEvent``, tagged by ``k``. ``docs/protocol.md`` documents each
one; ``PROTOCOL_VERSION`` changes whenever a message changes shape.

Decoding never raises on bad input: ``decode_client`` returns either a message or a
``ProtocolError`` with a code and a sentence naming what was wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args

import msgspec

from nertz.server.chat_wire import ChatIn, ChatLine, ChatOut

__all__ = [
    "CLIENT_TYPES",
    "MAX_MESSAGE_BYTES",
    "OUTSIDE_BOT",
    "PROTOCOL_VERSION",
    "Ack",
    "Again",
    "AnnouncedEvent",
    "Call",
    "CalledEvent",
    "ClientMessage",
    "ClosedEvent",
    "ConnectedEvent",
    "CountdownEvent",
    "DealtEvent",
    "Drop",
    "EndedEvent",
    "ErrorMsg",
    "EventMsg",
    "GoEvent",
    "HandEndEvent",
    "Hello",
    "Hint",
    "HintMsg",
    "HoldMsg",
    "Host",
    "HostEvent",
    "InvitedEvent",
    "JokerStayedEvent",
    "Leave",
    "LessonEvent",
    "MatchEndEvent",
    "MovedEvent",
    "NextMatchEvent",
    "OptionsEvent",
    "Pace",
    "PaceEvent",
    "Pause",
    "PausedEvent",
    "Pick",
    "Ping",
    "Play",
    "Pong",
    "PracticeMessage",
    "ProtocolError",
    "Ready",
    "ReadyByEvent",
    "ReadyEvent",
    "Refused",
    "ResumedEvent",
    "Resync",
    "RotatedEvent",
    "SeatEvent",
    "ServerMessage",
    "StateMsg",
    "Stuck",
    "StuckEvent",
    "TableEvent",
    "TakeoverEvent",
    "TurnedEvent",
    "decode_client",
    "encode",
]

PROTOCOL_VERSION = 7
"""Bumped whenever a message changes shape: docs/protocol.md says what each version
changed (7: practice tables, the host's wait, invites, lifetimes, chat)."""

OUTSIDE_BOT = "outside"
"""A seat's ``bot`` (in the table, the ``seat`` event and a match's players) when an
outside bot holds it: a program registered at ``POST /api/bots`` that plays over its
own connection. Every page marks it a bot, as it marks the server's."""

MAX_MESSAGE_BYTES = 4096
"""Client messages longer than this are refused unread (``too_big``)."""

Seq = Annotated[int, msgspec.Meta(ge=0, le=2**53)]
Stamp = Annotated[int, msgspec.Meta(ge=-(2**53), le=2**53)]
"""A time on the table's clock in ms, as the client reads it (``ping``'s ``o``)."""
Short = Annotated[str, msgspec.Meta(max_length=64)]


class _Client(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, frozen=True):
    """Base of client messages."""


class Hello(_Client, tag="hello", frozen=True):
    """Join a table (first message on a connection): a seat with its ``token``, or
    read-only as a spectator without one. ``last_version`` is the last event version
    this client saw (-1: none) and ``epoch`` the table incarnation it belongs to (from
    the last ``state``); the server sends what is missing, or a full state when the
    epoch is not its own."""

    table: Short
    token: Short | None = None
    key: Short | None = None
    """A private table's link key (spectators of private tables need it)."""
    last_version: Annotated[int, msgspec.Meta(ge=-1, le=2**53)] = -1
    epoch: Short | None = None
    protocol: int = PROTOCOL_VERSION


class Ready(_Client, tag="ready", frozen=True):
    """This seat is ready for the next deal (or the first)."""


class Again(_Client, tag="again", frozen=True):
    """Play again: once the match is over, this seat is ready for the next match of
    the table's series (a message of its own, so a ``ready`` meant for the next hand
    never starts a new match)."""


class Play(_Client, tag="play", frozen=True):
    """A move in the engine's notation (``N>F``, ``3/2>1``, ``T`` ...) with the
    client's own sequence number, echoed in the ``ack`` or ``refused`` answer."""

    seq: Seq
    move: Short
    at: Stamp | None = None
    """The table's clock when the gesture ended, as the client reads it: its own clock
    minus the last ``ping``'s ``o``. With ``fair_races`` a race is settled by it, within
    what the connection's measured delay allows (docs/fairness.md)."""


class Call(_Client, tag="call", frozen=True):
    """Call Nertz (R27); the same as playing ``NERTZ``."""

    seq: Seq
    at: Stamp | None = None


class Stuck(_Client, tag="stuck", frozen=True):
    """Say this seat is stuck (R25); the same as playing ``STUCK``."""

    seq: Seq
    at: Stamp | None = None


class Pong(_Client, tag="pong", frozen=True):
    """The answer to a ``ping``, sent at once: ``t`` echoed, and ``c``, the client's own
    clock (ms) when the ping arrived."""

    t: Stamp
    c: float


class Pick(_Client, tag="pick", frozen=True):
    """At a partnership table (R40): this partner picked up the card at ``src`` (``N``,
    ``W`` or a work pile ``1``-``4``), e.g. a drag started or a card was selected. Only
    a refusal is answered (``refused`` with ``seq``); everyone gets a ``hold``."""

    seq: Seq
    src: Short


class Drop(_Client, tag="drop", frozen=True):
    """This partner put the card down without playing it (a drag cancelled, a selection
    cleared). A play puts it down by itself."""


class Resync(_Client, tag="resync", frozen=True):
    """Send me the full state again (after a version gap)."""


class Leave(_Client, tag="leave", frozen=True):
    """Leave the table on purpose: the place is given up at once (a bot plays it, anyone
    may join it), the token stops working and the server closes the connection. (A
    connection that merely drops keeps the place for ``reconnect_s``.)"""


class Host(_Client, tag="host", frozen=True):
    """A host action (``host.py``): ``start`` now (empty places to ``bot``), a ``bot``
    standing in for the person away at ``seat`` (``partner``) and ``bot_off`` to take it
    out, ``remove`` that person, ``pass`` the host role to them, change ``options``
    between matches (as text, like the lobby's), ``invite`` the outside bot named
    ``bot`` to the free place at ``seat`` (``partner``; without ``bot``: no longer)."""

    do: Literal["start", "bot", "bot_off", "remove", "pass", "options", "invite"]
    seat: int | None = None
    partner: int | None = None
    bot: Short | None = None
    options: dict[Short, str | int | bool] | None = None


class Pause(_Client, tag="pause", frozen=True):
    """At a practice table: pause the hand (``on`` true: the bots and the hand's timers
    stop, plays are refused; the connection's pings go on) or carry on (false)."""

    on: bool


class Hint(_Client, tag="hint", frozen=True):
    """At a practice table: which move would you play now? Answered by ``hint``."""


class Pace(_Client, tag="pace", frozen=True):
    """At a practice table: the bots' pace, in percent of their own speed."""

    pace: Annotated[int, msgspec.Meta(ge=10, le=100)]


PracticeMessage = Pause | Hint | Pace
"""The messages only a practice table answers (``practice.py``)."""
ClientMessage = (
    (Hello | Ready | Again | Play | Call | Stuck | Pick | Drop | Resync | Leave | Pong | Host)
    | PracticeMessage
    | ChatIn
)

CLIENT_TYPES = tuple(str(kind.__struct_config__.tag) for kind in get_args(ClientMessage))
"""Every client message's ``type``, in the order of ``ClientMessage``."""


class _Event(msgspec.Struct, tag_field="k", kw_only=True, omit_defaults=True, frozen=True):
    """Base of table events (``EventMsg.e``), tagged by ``k``. Only the fields with a
    default are left out when they hold it (``partner`` away from a partnership
    table, ``as`` on a move that is not a joker's); a null is sent as null."""


class SeatEvent(_Event, tag="seat", kw_only=True, frozen=True):
    """A person took a place (or lost it: ``name`` null); ``kept_until_ms`` and
    ``bot_from_ms`` as in ``connected`` until they connect."""

    seat: int
    partner: int | None = None
    """Which of a partnership seat's two places (R40); absent at other tables."""
    name: str | None
    bot: str | None
    person: str | None = None
    """The person's handle at this table, the same under any name (for muting; absent
    without one): never a secret."""
    kept_until_ms: int | None = None
    bot_from_ms: int | None = None


class ConnectedEvent(_Event, tag="connected", kw_only=True, frozen=True):
    """A person's connection came or went: gone, the place is kept until ``kept_until_ms``
    and a bot plays it from ``bot_from_ms`` while a hand is on (table time)."""

    seat: int
    partner: int | None = None
    connected: bool
    kept_until_ms: int | None = None
    bot_from_ms: int | None = None


class TakeoverEvent(_Event, tag="takeover", kw_only=True, frozen=True):
    """A bot plays an absent person's place (``bot`` true) or handed it back;
    ``stand_in`` names the bot the host put in ("A bot for Ann": the place is kept for
    them while it plays), absent for the one ``bot_takeover_s`` brings. ``why`` says
    why a bot took it when the person was not away: ``not_ready``, the first deal came
    (``ready_s`` ran out) before they said ready."""

    seat: int
    partner: int | None = None
    bot: bool
    why: str | None = None
    stand_in: str | None = None


class ReadyEvent(_Event, tag="ready", kw_only=True, frozen=True):
    """A person is ready for the next deal."""

    seat: int
    partner: int | None = None


class DealtEvent(_Event, tag="dealt", kw_only=True, frozen=True):
    """A new hand (R33): ``table`` is the spectator view."""

    hand: int
    table: dict[str, Any]


class CountdownEvent(_Event, tag="countdown", kw_only=True, frozen=True):
    """Go comes in ``go_in_ms`` (R8)."""

    go_in_ms: int


class GoEvent(_Event, tag="go", kw_only=True, frozen=True):
    """Go (R8)."""

    at_ms: int


class MovedEvent(_Event, tag="moved", kw_only=True, frozen=True):
    """Cards moved (``foundation`` 1-based or null, ``tie`` R16, ``revealed`` the Nertz
    card turned up, R4); an announced joker landed (R41) with ``as``."""

    seat: int
    move: str
    cards: list[str]
    foundation: int | None
    tie: bool
    revealed: str | None
    as_: str | None = msgspec.field(default=None, name="as")


class AnnouncedEvent(_Event, tag="announced", kw_only=True, frozen=True):
    """R41: a joker announced for the middle as ``as``; it lands at ``until_ms``."""

    seat: int
    move: str
    joker: str
    as_: str = msgspec.field(name="as")
    foundation: int | None
    until_ms: int


class JokerStayedEvent(_Event, tag="joker_stayed", kw_only=True, frozen=True):
    """R41: an announced joker did not land; ``reason`` says why."""

    seat: int
    move: str
    joker: str
    reason: str


class TurnedEvent(_Event, tag="turned", kw_only=True, frozen=True):
    """The stock turned onto the waste (R21-R22), or the waste turned over (R23)."""

    seat: int
    cards: list[str]


class CalledEvent(_Event, tag="called", kw_only=True, frozen=True):
    """Nertz! (R27)."""

    seat: int


class StuckEvent(_Event, tag="stuck", kw_only=True, frozen=True):
    """A seat said stuck (R25)."""

    seat: int


class RotatedEvent(_Event, tag="rotated", kw_only=True, frozen=True):
    """The table rotated (R25)."""

    number: int
    idle: bool


class EndedEvent(_Event, tag="ended", kw_only=True, frozen=True):
    """The hand is over (R26, R28)."""

    reason: str
    caller: int | None


class HandEndEvent(_Event, tag="hand_end", kw_only=True, frozen=True):
    """The breakdown (R29-R31): per seat ``middle``, ``nertz_left``, ``bonus``,
    ``score``; the match's ``totals``; the next deal at the latest at ``next_at_ms``
    (table time), in ``next_in_ms`` (both absent once the match is over)."""

    hand: int
    reason: str
    caller: int | None
    scores: tuple[dict[str, int], ...]
    totals: list[int]
    lost: list[list[int]] = msgspec.field(default_factory=list)
    """With ``fair_races``: each race lost this hand as ``[seat, ms]``, by how many ms of
    credited play time (docs/fairness.md); absent when none was lost."""
    next_at_ms: int | None = None
    next_in_ms: int | None = None
    rotation: list[int] | None = None
    """With ``duplicate`` (R42): ``[k, n]``, this hand was play ``k`` of ``n`` of its deal."""
    duplicate_deal: list[float] | None = None
    """With ``duplicate``, on a rotation's last hand: each seat's duplicate score over
    the deal's ``n`` hands (R43, R44), to two decimals."""
    duplicate_totals: list[float] | None = None
    """With ``duplicate``: each seat's settled duplicate total (R44), to two decimals."""


class MatchEndEvent(_Event, tag="match_end", kw_only=True, frozen=True):
    """The match is over (R32); ``names``: who played each seat in it (the people a bot
    stood in for among them), what its end panel and records say whatever happens to
    the seats afterwards (null: a seat nobody held at the end)."""

    totals: list[int]
    winners: list[int]
    host_wait_ms: int = 0  # ms until the host may start the next anyway (host_start_s)
    names: list[str | None] = msgspec.field(default_factory=list)
    duplicate_totals: list[float] | None = None
    """With ``duplicate``: the duplicate totals, by which the match was won (R45)."""


class NextMatchEvent(_Event, tag="next_match", kw_only=True, frozen=True):
    """The next match of the table's series begins (its first deal follows): ``match``
    counts from 1, ``wins`` the matches won so far per seat."""

    match: int
    wins: list[int]


class HostEvent(_Event, tag="host", kw_only=True, frozen=True):
    """The host is now the person at ``seat`` (``partner``), or nobody (``seat`` null)."""

    seat: int | None
    partner: int | None = None


class InvitedEvent(_Event, tag="invited", kw_only=True, frozen=True):
    """The host keeps the free place at ``seat`` (``partner``) for the outside bot
    ``name`` (null: no longer): only that bot may take it (docs/bots.md)."""

    seat: int
    partner: int | None = None
    name: str | None


class OptionsEvent(_Event, tag="options", kw_only=True, frozen=True):
    """The host changed options between matches: ``changed`` (name -> new value) and
    every option now in force, ``rules``; they hold from the next deal."""

    changed: dict[str, Any]
    rules: dict[str, Any]


class ReadyByEvent(_Event, tag="ready_by", kw_only=True, frozen=True):
    """The first deal's countdown for people not ready (``lifetimes.py``); nulls: stopped."""

    at_ms: int | None
    in_ms: int | None


class ClosedEvent(_Event, tag="closed", kw_only=True, frozen=True):
    """The table ended without a result (``lifetimes.py``): ``empty``, ``unattended``,
    ``idle`` or ``unstarted``."""

    reason: str


class ResumedEvent(_Event, tag="resumed", kw_only=True, frozen=True):
    """The table was rebuilt (a server restart, or after an internal error)."""

    stage: str


class PausedEvent(_Event, tag="paused", kw_only=True, frozen=True):
    """A practice table paused (``paused`` true: no other event until it carries on)
    or carried on."""

    paused: bool


class PaceEvent(_Event, tag="pace", kw_only=True, frozen=True):
    """A practice table's bots now play at ``pace`` percent of their own speed."""

    pace: int


class LessonEvent(_Event, tag="lesson", kw_only=True, frozen=True):
    """The guided hand moved on to step ``step`` (from 0) of the table's
    ``practice.lesson.steps``."""

    step: int


TableEvent = (
    SeatEvent
    | ConnectedEvent
    | TakeoverEvent
    | ReadyEvent
    | DealtEvent
    | CountdownEvent
    | GoEvent
    | MovedEvent
    | AnnouncedEvent
    | JokerStayedEvent
    | TurnedEvent
    | CalledEvent
    | StuckEvent
    | RotatedEvent
    | EndedEvent
    | HandEndEvent
    | MatchEndEvent
    | NextMatchEvent
    | HostEvent
    | OptionsEvent
    | InvitedEvent
    | ReadyByEvent
    | ClosedEvent
    | ResumedEvent
    | PausedEvent
    | PaceEvent
    | LessonEvent
)
"""Every event a table sends, tagged by ``k`` (docs/protocol.md, "Events")."""


class _Server(msgspec.Struct, tag_field="type", omit_defaults=True):
    """Base of server messages."""


class StateMsg(_Server, tag="state"):
    """The full picture for one connection: the table (seats, phase, totals) and the
    seat's view (or the spectator view), both at event version ``v``."""

    v: int
    table: dict[str, Any]
    view: dict[str, Any] | None = None
    seat: int | None = None
    partner: int | None = None
    """Which of the seat's two people this connection is, at a partnership table."""
    now_ms: int | None = None
    """The table's clock (ms): a joker's announcement is open until the view's
    ``until_ms`` (R41), so a client counts down ``until_ms - now_ms``."""
    epoch: str | None = None
    """This incarnation of the table: new at every rebuild (a server restart, an
    internal error). Versions count within it; a resume names it (``Hello.epoch``)."""
    host_start_ms: int | None = None
    """Once a match is over: when (as ``now_ms``) the host may start the next anyway."""
    chat: list[ChatLine] = msgspec.field(default_factory=list)
    """The table's recent chat lines, oldest first (absent when there are none)."""


class EventMsg(_Server, tag="event"):
    """One table event; versions count up by one with no gaps."""

    v: int
    e: TableEvent


class Ack(_Server, tag="ack"):
    """The play ``seq`` was accepted; ``events`` are the event messages it caused
    (``v`` is the last one's version). The other connections get them as ``event``."""

    seq: int
    v: int
    events: list[msgspec.Raw] = msgspec.field(default_factory=list)


class Refused(_Server, tag="refused"):
    """The play ``seq`` was refused by the rules: nothing changed. ``code`` is the
    engine's refusal (``beaten``, ``not_started`` ...), ``reason`` a sentence."""

    seq: int
    code: str
    reason: str


class HoldMsg(_Server, tag="hold", omit_defaults=False):
    """R40: partner ``partner`` of ``seat`` now holds the card at ``src`` (``card``, face
    up), or nothing (both null). Not versioned and not stored: holds are momentary,
    and a ``state`` carries the current ones in ``table.seats[..].holding``."""

    seat: int
    partner: int
    src: str | None
    card: str | None


class Ping(_Server, tag="ping", omit_defaults=False):
    """Clock sync (docs/fairness.md): answer at once with a ``pong``. ``t`` is the table's
    clock when it was sent; ``o`` the client's clock minus the table's as measured so
    far (null until measured): the table's clock is the client's own minus ``o``."""

    t: int
    o: int | None


class HintMsg(_Server, tag="hint", omit_defaults=False):
    """The answer to ``hint``: the move the bots' own policy would play now, among the
    engine's legal moves (``N>F2``, ``3/2>1``, ``T``, ``STUCK`` ...); null off a hand."""

    move: str | None


class ErrorMsg(_Server, tag="error"):
    """A message the server could not act on; nothing changed."""

    code: str
    reason: str
    seq: int | None = None


ServerMessage = StateMsg | EventMsg | Ack | Refused | HoldMsg | Ping | HintMsg | ChatOut | ErrorMsg
"""Every message the server sends, tagged by ``type``."""


@dataclass(frozen=True, slots=True)
class ProtocolError:
    """A client message that could not be decoded: a code and a sentence."""

    code: str
    reason: str


_decoder = msgspec.json.Decoder(ClientMessage)
_encoder = msgspec.json.Encoder()


def encode(message: msgspec.Struct) -> bytes:
    """A server message as JSON bytes."""
    return _encoder.encode(message)


def decode_client(data: bytes | str) -> ClientMessage | ProtocolError:
    """Decode one client message, or say exactly what is wrong with it."""
    size = len(data.encode() if isinstance(data, str) else data)
    if size > MAX_MESSAGE_BYTES:
        return ProtocolError(
            "too_big", f"message of {size} bytes; the limit is {MAX_MESSAGE_BYTES} bytes"
        )
    try:
        message: ClientMessage = _decoder.decode(data)
        return message
    except msgspec.ValidationError as error:
        text = str(error)
        if "`$.type`" in text or "missing required field `type`" in text:
            return ProtocolError(
                "unknown_type",
                f"unknown or missing message type ({text}); types are: {', '.join(CLIENT_TYPES)}",
            )
        return ProtocolError("bad_field", f"bad message: {text}")
    except msgspec.DecodeError as error:
        return ProtocolError("bad_json", f"not a JSON object: {error}")
