"""The wire protocol: every message as a msgspec Struct, JSON on a WebSocket.

Client messages are tagged by ``type`` (``hello``, ``ready``, ``play``, ``call``,
``stuck``, ``pick``, ``drop``, ``resync``, ``leave``). Server messages are ``state`` (a
full picture), ``event`` (one versioned table event), ``ack`` and ``refused`` (the
answer to every play), ``hold`` (a partner picked up or put down a card, R40) and
``error`` (a message the server could not act on). ``docs/protocol.md``
documents each one; ``PROTOCOL_VERSION`` changes whenever a message changes shape.

Decoding never raises on bad input: ``decode_client`` returns either a message or a
``ProtocolError`` with a code and a sentence naming what was wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import msgspec

__all__ = [
    "CLIENT_TYPES",
    "MAX_MESSAGE_BYTES",
    "PROTOCOL_VERSION",
    "Ack",
    "Call",
    "ClientMessage",
    "Drop",
    "ErrorMsg",
    "EventMsg",
    "Hello",
    "HoldMsg",
    "Leave",
    "Pick",
    "Play",
    "ProtocolError",
    "Ready",
    "Refused",
    "Resync",
    "StateMsg",
    "Stuck",
    "decode_client",
    "encode",
]

PROTOCOL_VERSION = 3
"""Bumped whenever a message changes shape (``docs/protocol.md``). 2: partnerships
(R40): ``pick``, ``drop``, ``hold``; ``partner`` in ``state`` and seat events. 3: jokers
(R41): the ``announced`` and ``joker_stayed`` events, ``as`` on a landed joker's
``moved``, the views' ``pinned``, ``top_as`` and ``announcements``, the state's
``now_ms``."""

MAX_MESSAGE_BYTES = 4096
"""Client messages longer than this are refused unread (``too_big``)."""

Seq = Annotated[int, msgspec.Meta(ge=0, le=2**53)]
Short = Annotated[str, msgspec.Meta(max_length=64)]


class _Client(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, frozen=True):
    """Base of client messages."""


class Hello(_Client, tag="hello", frozen=True):
    """Join a table (first message on a connection): a seat with its ``token``, or
    read-only as a spectator without one. ``last_version`` is the last event version
    this client saw (-1: none); the server sends what is missing or a full state."""

    table: Short
    token: Short | None = None
    key: Short | None = None
    """A private table's link key (spectators of private tables need it)."""
    last_version: Annotated[int, msgspec.Meta(ge=-1, le=2**53)] = -1
    protocol: int = PROTOCOL_VERSION


class Ready(_Client, tag="ready", frozen=True):
    """This seat is ready for the next deal (or the first)."""


class Play(_Client, tag="play", frozen=True):
    """A move in the engine's notation (``N>F``, ``3/2>1``, ``T`` ...) with the
    client's own sequence number, echoed in the ``ack`` or ``refused`` answer."""

    seq: Seq
    move: Short


class Call(_Client, tag="call", frozen=True):
    """Call Nertz (R27); the same as playing ``NERTZ``."""

    seq: Seq


class Stuck(_Client, tag="stuck", frozen=True):
    """Say this seat is stuck (R25); the same as playing ``STUCK``."""

    seq: Seq


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
    """Leave the seat for now: the server closes the connection; the token still works."""


ClientMessage = Hello | Ready | Play | Call | Stuck | Pick | Drop | Resync | Leave
CLIENT_TYPES = ("hello", "ready", "play", "call", "stuck", "pick", "drop", "resync", "leave")


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


class EventMsg(_Server, tag="event"):
    """One table event; versions count up by one with no gaps."""

    v: int
    e: dict[str, Any]


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


class ErrorMsg(_Server, tag="error"):
    """A message the server could not act on; nothing changed."""

    code: str
    reason: str
    seq: int | None = None


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
