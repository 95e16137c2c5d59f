"""One seat at a table over the documented protocol (docs/protocol.md): an outside bot
joins with its token, then reads the table as ``Update`` values and sends moves in the
engine's notation, each answered by ``None`` (accepted) or a ``Refusal`` value.

A reader task takes every server message as it comes: events are applied to the seat's
view (``view.KeptView``) in version order (a gap asks for a full ``state``), acks and
refusals answer the ``play`` that is waiting for them, and everything a bot acts on is
queued for ``next``."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from nertz.client.http import join_as_bot
from nertz.client.view import KeptView, engine_event
from nertz.engine import Event, Started
from nertz.server.protocol import (
    PROTOCOL_VERSION,
    Ack,
    ClosedEvent,
    DealtEvent,
    ErrorMsg,
    EventMsg,
    HandEndEvent,
    MatchEndEvent,
    NextMatchEvent,
    Refused,
    ServerMessage,
    StateMsg,
)

__all__ = [
    "Closed",
    "Dealt",
    "HandOver",
    "MatchOver",
    "Problem",
    "Refusal",
    "Seen",
    "Table",
    "Update",
]


@dataclass(frozen=True, slots=True)
class Refusal:
    """A move the table did not take: the engine's or the server's ``code`` (``beaten``,
    ``does_not_fit``, ``rate_limited``...) and its ``reason`` in a sentence."""

    move: str
    code: str
    reason: str


@dataclass(frozen=True, slots=True)
class Dealt:
    """A view to play from: a hand was dealt, or the server sent the whole table (a
    join during a hand, a resync). ``view`` is the seat's (``you`` is its seat);
    ``totals`` the match's so far."""

    hand: int
    view: dict[str, Any]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Seen:
    """Plays and the hand's own events, as the engine's ``Event`` values, in table
    order (the seat's own included): what a bot ``observe``s."""

    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class HandOver:
    """A hand ended (``hand_end``): its scores and the match's totals."""

    hand: int
    scores: tuple[dict[str, int], ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchOver:
    """The match ended (``match_end``, R32): totals and the winning seats."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Closed:
    """The table or the connection ended: why (``closed``'s reason, or the socket's)."""

    reason: str


@dataclass(frozen=True, slots=True)
class Problem:
    """An ``error`` message not tied to a move (``rate_limited``, ``protocol``...)."""

    code: str
    reason: str


Update = Dealt | Seen | HandOver | MatchOver | Closed | Problem
"""What ``Table.next`` gives."""

_decoder = msgspec.json.Decoder(ServerMessage)
_event = msgspec.json.Decoder(EventMsg)


@dataclass
class _Pending:
    move: str
    answer: asyncio.Future[Refusal | None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class Table:
    """A seat at a table, open until ``close`` (or the ``async with`` block ends)."""

    def __init__(self, socket: ClientConnection, code: str, seat: int, name: str) -> None:
        self.socket = socket
        self.code, self.seat, self.name = code, seat, name
        self._kept: KeptView | None = None
        self.table: dict[str, Any] = {}
        """The table as the last ``state`` showed it (seats, rules, totals...)."""
        self.stage = "seating"
        """``seating``, ``countdown``, ``playing``, ``between`` or ``over``."""
        self.version = -1
        self._clock = (0, time.monotonic())
        self._updates: asyncio.Queue[Update] = asyncio.Queue()
        self._pending: dict[int, _Pending] = {}
        self._seq = itertools.count(1)
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def join(
        cls,
        server: str,
        code: str,
        bot_token: str,
        *,
        seat: int | None = None,
        key: str | None = None,
    ) -> Table:
        """Take a place at table ``code`` on ``server`` (``http://host:port``) as the bot
        whose token this is, and open its connection (``ClientError`` if refused)."""
        joined = await join_as_bot(server, code, bot_token, seat, key)
        socket = await connect(server.replace("http", "ws", 1) + joined["ws"])
        table = cls(socket, joined["code"], joined["seat"], joined["name"])
        hello = {"table": joined["code"], "token": joined["token"], "protocol": PROTOCOL_VERSION}
        await table._send({"type": "hello", **hello})
        return table

    async def __aenter__(self) -> Table:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def view(self) -> dict[str, Any] | None:
        """The seat's view now (the engine's ``view``; None before the first deal), every
        event applied."""
        return None if self._kept is None else self._kept.view

    @property
    def playing(self) -> bool:
        """Whether a hand is on and moves are taken (after Go, before its end)."""
        return self.stage == "playing" and self.view is not None and self.view["phase"] != "over"

    @property
    def caught_up(self) -> bool:
        """Whether every update received so far has been taken (``next``): a bot decides
        from the table as it is, not from the middle of a burst of events."""
        return self._updates.empty()

    @property
    def now_ms(self) -> int:
        """The table's clock now (ms), from the last ``state`` or Go."""
        at, since = self._clock
        return at + int((time.monotonic() - since) * 1000)

    async def next(self, timeout: float | None = None) -> Update | None:
        """The next update, or None when ``timeout`` seconds pass without one."""
        try:
            return await asyncio.wait_for(self._updates.get(), timeout)
        except TimeoutError:
            return None

    async def play(self, move: str) -> Refusal | None:
        """Send a move in the engine's notation (``N>F``, ``3/2>1``, ``T``, ``NERTZ``...):
        None once the table took it (its events come as a ``Seen``), else why not."""
        seq = next(self._seq)
        pending = self._pending[seq] = _Pending(move)
        try:
            await self._send({"type": "play", "seq": seq, "move": move})
        except ConnectionClosed:
            self._pending.pop(seq, None)
            return Refusal(move, "closed", "the connection is closed")
        return await pending.answer

    async def ready(self) -> None:
        """Ready for the next deal (or the first)."""
        await self._send({"type": "ready"})

    async def again(self) -> None:
        """Play again once a match is over (the table's next match)."""
        await self._send({"type": "again"})

    async def resync(self) -> None:
        """Ask for the whole table again (a ``Dealt`` comes back; a quota of full
        states applies, as to any client)."""
        await self._send({"type": "resync"})

    async def close(self) -> None:
        """Close the connection (the place is kept for a while, as a person's)."""
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader
        await self.socket.close()

    async def _send(self, message: dict[str, Any]) -> None:
        await self.socket.send(json.dumps(message))

    async def _read(self) -> None:
        reason = "connection closed"
        try:
            async for data in self.socket:
                self._take(_decoder.decode(data))
        except ConnectionClosed as closed:
            reason = closed.rcvd.reason if closed.rcvd and closed.rcvd.reason else reason
        finally:
            for pending in self._pending.values():
                if not pending.answer.done():
                    pending.answer.set_result(Refusal(pending.move, "closed", reason))
            self._pending.clear()
            self._updates.put_nowait(Closed(reason))

    def _take(self, message: Any) -> None:
        if isinstance(message, EventMsg):
            self._event(message)
        elif isinstance(message, Ack):
            for raw in message.events:
                self._event(_event.decode(raw))
            self._answer(message.seq, None)
        elif isinstance(message, Refused):
            move = self._pending[message.seq].move if message.seq in self._pending else ""
            self._answer(message.seq, Refusal(move, message.code, message.reason))
        elif isinstance(message, StateMsg):
            self._state(message)
        elif isinstance(message, ErrorMsg):
            self._error(message)

    def _answer(self, seq: int, answer: Refusal | None) -> None:
        pending = self._pending.pop(seq, None)
        if pending is not None and not pending.answer.done():
            pending.answer.set_result(answer)

    def _error(self, message: ErrorMsg) -> None:
        seq = message.seq
        if seq is None and message.code == "rate_limited" and self._pending:
            seq = max(self._pending)  # answered on arrival: the play sent last
        if seq is not None and seq in self._pending:
            move = self._pending[seq].move
            self._answer(seq, Refusal(move, message.code, message.reason))
        else:
            self._updates.put_nowait(Problem(message.code, message.reason))

    def _state(self, message: StateMsg) -> None:
        self.version, self.table = message.v, message.table
        self.stage = message.table["stage"]
        if message.now_ms is not None:
            self._clock = (message.now_ms, time.monotonic())
        if message.seat is not None:
            self.seat = message.seat
        self._kept = None if message.view is None else KeptView(copy.deepcopy(message.view))
        if message.view is not None:
            totals = tuple(message.table["totals"])
            self._updates.put_nowait(Dealt(message.table["hand"], message.view, totals))

    def _event(self, message: EventMsg) -> None:
        if message.v <= self.version:
            return  # seen already
        if message.v > self.version + 1 and self.version >= 0:
            self.version = 1 << 62  # a gap: nothing more until the full state
            asyncio.get_running_loop().create_task(self.resync())
            return
        self.version = message.v
        e = message.e
        if isinstance(e, DealtEvent):
            dealt = {**e.table, "you": self.seat}
            self._kept = KeptView(copy.deepcopy(dealt))
            self.stage = "countdown"
            totals = tuple(self.table.get("totals", ()))
            self._updates.put_nowait(Dealt(e.hand, dealt, totals))
        elif isinstance(e, HandEndEvent):
            self.stage = "between"
            self.table["totals"] = e.totals
            self._updates.put_nowait(HandOver(e.hand, tuple(e.scores), tuple(e.totals)))
        elif isinstance(e, MatchEndEvent):
            self.stage = "over"
            self._updates.put_nowait(MatchOver(tuple(e.totals), tuple(e.winners)))
        elif isinstance(e, NextMatchEvent):
            self.stage = "seating"
            self.table["totals"] = [0] * len(self.table.get("totals", ()))
        elif isinstance(e, ClosedEvent):
            self._updates.put_nowait(Closed(e.reason))
        else:
            event = engine_event(e)
            if event is None:
                return
            if self._kept is not None and self._kept.apply(event):
                self.version = 1 << 62  # the view lost track: nothing more until a state
                asyncio.get_running_loop().create_task(self.resync())
            if type(event) is Started:
                self.stage = "playing"
                self._clock = (event.at_ms, time.monotonic())
            self._updates.put_nowait(Seen((event,)))
