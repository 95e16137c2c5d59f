"""One WebSocket's connection to a table: what the table sends a client and how much
of it may wait for a client that does not read (``Connection``, docs/server.md,
"Back-pressure"), how fast the client may talk (``RateLimit``) and what a client that
asks for full states on and on gets (``StateAsks``)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import itertools
import logging
import socket
import time
from collections.abc import Callable, Coroutine
from typing import Any, cast

from starlette.websockets import WebSocket, WebSocketState
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame
from websockets.protocol import State

from nertz.server.wire.frames import read_text_frames, text_frame

_OPEN = State.OPEN

__all__ = [
    "ABUSE_LIMIT",
    "BEHIND_S",
    "BURST",
    "CLOSE_GRACE_S",
    "OUTBOX_BYTES",
    "OUTBOX_LIMIT",
    "RATE_PER_S",
    "SEND_BUFFER_BYTES",
    "STATE_REFUSALS",
    "STATE_WINDOW_S",
    "Connection",
    "RateLimit",
    "StateAsks",
]

log = logging.getLogger("nertz.app")

RATE_PER_S = 20.0
BURST = 40.0
ABUSE_LIMIT = 60.0
"""Refused messages (forgiven at ``RATE_PER_S / 4`` a second) before the connection closes."""
OUTBOX_LIMIT = 2000
"""Messages queued for a connection that does not read them: then it is closed."""
OUTBOX_BYTES = 1 << 20
"""Bytes queued for such a connection (1 MiB): then it is closed."""
BEHIND_S = 10.0
"""A connection whose messages have waited this long for the peer is closed."""
SEND_BUFFER_BYTES = 256 * 1024
"""The kernel's send buffer of a WebSocket (asked for; Linux doubles it), so a peer that
never reads holds a bounded amount of memory there too (autotuning grew it to MBs)."""
CLOSE_GRACE_S = 2.0
"""A close that has not flushed by then (the peer does not read) aborts the transport."""
STATE_REFUSALS = 20
"""Full states refused to one connection within ``STATE_WINDOW_S`` before it is closed.
A client needs a state after a gap, and after a refusal asks again a second later (the
browser client does): it is refused at most ten times in the window. Only a script
asking on regardless gets here."""
STATE_WINDOW_S = 10.0
_NORMAL_CLOSES = (
    "left",
    "match over",
    "table closed: empty",
    "table closed: unattended",
    "table closed: idle",
    "table closed: unstarted",
)
"""Closes that are the table's end or the person's choice, not the client's fault
(code 1000; every other close is 1008)."""


class RateLimit:
    """A token bucket: ``rate`` a second with a ``burst``; refusals add to an abuse score
    that is forgiven slowly; over ``ABUSE_LIMIT`` the connection should close."""

    def __init__(self, rate: float = RATE_PER_S, burst: float = BURST) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.abuse = 0.0
        self.at = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        elapsed, self.at = now - self.at, now
        self.tokens = min(self.burst, self.tokens + elapsed * self.rate)
        self.abuse = max(0.0, self.abuse - elapsed * self.rate / 4)
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.abuse += 1
        return False

    @property
    def abusive(self) -> bool:
        return self.abuse > ABUSE_LIMIT


class StateAsks:
    """One connection's refused full states (``resync`` over its quota). The refusal is
    answered at most once a second: a spammer's repeats cost the server no message
    (a client that needs the state asks again after the answer it got); the
    connection is closed once ``STATE_REFUSALS`` were refused within ``STATE_WINDOW_S``.
    """

    def __init__(self) -> None:
        self.refused: collections.deque[float] = collections.deque()
        self.answered_at = -1.0

    def refuse(self) -> str:
        """One more refusal: ``"answer"`` (say so), ``"quiet"`` (said within the last
        second) or ``"close"`` (too many)."""
        now = time.monotonic()
        refused = self.refused
        refused.append(now)
        while refused[0] < now - STATE_WINDOW_S:
            refused.popleft()
        if len(refused) >= STATE_REFUSALS:
            return "close"
        if now - self.answered_at < 1.0:
            return "quiet"
        self.answered_at = now
        return "answer"


class Connection:
    """One WebSocket's outgoing side; the table actor never waits for a client.

    A message is written at once when the stack takes it without waiting (uvicorn's
    sans-I/O WebSocket writes to the transport and returns); if a write ever has to
    wait, it resumes when it can and later messages queue behind it, in order. No task
    per connection and no hop through one: that hop was a third of the play-ack time
    (docs/performance.md).

    What waits is bounded: ``OUTBOX_LIMIT`` messages, ``OUTBOX_BYTES``, ``BEHIND_S``
    seconds; past any of them the connection is closed, and since a graceful close
    would wait behind the same unread bytes, the transport is aborted. Add uvicorn's
    write buffer (64 KiB before it waits) and the kernel's (``SEND_BUFFER_BYTES``) and
    a peer that never reads holds about 1.6 MiB of the server's memory at most."""

    _ids = itertools.count(1)

    def __init__(self, websocket: WebSocket) -> None:
        self.id = next(self._ids)
        self.websocket = websocket
        self.backlog: collections.deque[tuple[Coroutine[Any, Any, None], int]] = collections.deque()
        self.backlog_bytes = 0
        """Bytes of the messages in ``backlog`` (``/metrics``)."""
        self.busy = False
        self.behind_since: float | None = None
        """When a write first had to wait for the peer (None: nothing waits)."""
        self.idle = asyncio.Event()
        self.idle.set()
        self.closing: str | None = None
        self.transport = _transport_of(websocket)
        self._direct = _sansio_protocol_of(websocket) if self.transport is not None else None
        """uvicorn's sans-I/O WebSocket protocol, when the server runs it: a message then
        goes to the transport as one frame built here (``frames.text_frame``), not through
        Starlette, uvicorn's ASGI send and a frame object per message, about a third of
        the send path's time (docs/performance.md)."""
        if self.transport is not None:
            sock = self.transport.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)

    def send(self, body: bytes) -> None:
        if self.closing is not None:
            return
        if self.busy and (
            len(self.backlog) >= OUTBOX_LIMIT or self.backlog_bytes + len(body) > OUTBOX_BYTES
        ):
            self.abort("too slow: messages piled up")
            return
        direct = self._direct
        if (
            direct is not None
            and not self.busy
            and direct.writable.is_set()  # uvicorn's flow control: the buffer has room
            and not direct.close_sent
            and not direct.disconnected
            and direct.conn.state is _OPEN
        ):
            self.transport.write(text_frame(body))  # type: ignore[union-attr]
            return
        self._push(self.websocket.send_text(body.decode()), len(body))

    def take_text(self, handler: Callable[[str], None]) -> bool:
        """From now on hand each whole text message to ``handler`` as it is read, in
        order, rather than queueing it for ``websocket.receive`` (which then gets the
        close, and any message that comes in fragments, after which every message goes
        back to the queue): no queue, no dict, no task switch and no pause and resume
        of the socket's reading per message, and the frames cut from the bytes here
        (``frames.read_text_frames``) rather than by websockets' parser. Only on
        uvicorn's sans-I/O protocol and while no message waits on its queue, so that
        none is overtaken; False (and nothing changes) otherwise. The handler bounds a
        flood itself (``RateLimit``): what it is given is handled before more is read."""
        proto = self._direct
        if proto is None or not proto.queue.empty() or proto.frames:
            return False
        queued = proto.handle_text

        def deliver(text: str) -> None:
            if self.closing is not None or proto.close_sent:
                return  # past the close: dropped, as uvicorn drops it
            try:
                handler(text)
            except Exception:  # a bug: this connection ends, the server goes on
                log.exception("connection %d: a message could not be handled", self.id)
                self.close("server error")

        def handle_text(event: Frame) -> None:  # what websockets' parser still reads
            if self.closing is not None or proto.close_sent:
                return  # past the close: dropped, as uvicorn drops it
            if not event.fin:  # fragments: this and all that follows go to the queue
                del proto.handle_text
                queued(event)
                return
            try:
                text = str(event.data, "utf-8")
            except UnicodeDecodeError:
                queued(event)  # uvicorn closes it (1007)
                return
            deliver(text)

        proto.handle_text = handle_text
        read_text_frames(proto, deliver)
        return True

    def close(self, reason: str) -> None:
        if self.closing is None:
            self.closing = reason
            if self.busy:  # the close would wait behind unread messages: give it a moment
                asyncio.get_running_loop().call_later(CLOSE_GRACE_S, self._abort_if_stuck)
            self._push(self._close(), 0)

    def abort(self, reason: str) -> None:
        """Close at once, dropping what is queued: the peer is not reading."""
        self.closing = self.closing or reason
        self._drop_backlog()
        log.info("connection %d aborted: %s", self.id, reason)
        if self.transport is not None:
            self.transport.abort()

    def _drop_backlog(self) -> None:
        for rest, _ in self.backlog:
            rest.close()
        self.backlog.clear()
        self.backlog_bytes = 0

    def _abort_if_stuck(self) -> None:
        if self.busy:
            self.abort(self.closing or "close did not flush")

    def _check_behind(self) -> None:
        since = self.behind_since
        if since is None or not self.busy:
            return
        waited = time.monotonic() - since
        if waited >= BEHIND_S:
            self.abort(f"too slow: {BEHIND_S:.0f} s behind")
        else:
            asyncio.get_running_loop().call_later(BEHIND_S - waited, self._check_behind)

    async def _close(self) -> None:
        ws = self.websocket
        if ws.client_state is WebSocketState.CONNECTED:
            normal = self.closing in _NORMAL_CLOSES
            await ws.close(1000 if normal else 1008, (self.closing or "")[:100])

    def _push(self, coro: Coroutine[Any, Any, None], size: int) -> None:
        if self.busy:
            self.backlog.append((coro, size))
            self.backlog_bytes += size
        else:
            self._run(coro)

    def _resume(self, coro: Coroutine[Any, Any, None], _done: object) -> None:
        self._run(coro)

    def _run(self, coro: Coroutine[Any, Any, None]) -> None:
        """Step writes until one has to wait (then resume it like a task would) or the
        backlog is empty."""
        self.busy = True
        self.idle.clear()
        while True:
            try:
                waiting = coro.send(None)
            except StopIteration:
                pass
            except Exception:  # the peer went away: drop the rest; the reader cleans up
                self.closing = self.closing or "gone"
                self._drop_backlog()
            else:
                waiting._asyncio_future_blocking = False
                waiting.add_done_callback(functools.partial(self._resume, coro))
                if self.behind_since is None:  # the peer is not keeping up: time it
                    self.behind_since = time.monotonic()
                    asyncio.get_running_loop().call_later(BEHIND_S, self._check_behind)
                return
            if not self.backlog:
                self.busy = False
                self.behind_since = None
                self.idle.set()
                return
            coro, size = self.backlog.popleft()
            self.backlog_bytes -= size


def _sansio_protocol_of(websocket: WebSocket) -> Any:
    """uvicorn's ``WebSocketsSansIOProtocol`` behind ``websocket`` with no extension
    negotiated, or None (another stack, or one that compresses: write through it)."""
    owner = getattr(websocket._receive, "__self__", None)
    if type(owner) is not WebSocketsSansIOProtocol or owner.conn.extensions:
        return None
    return owner


def _transport_of(websocket: WebSocket) -> asyncio.Transport | None:
    """The connection's transport, to abort it: uvicorn's protocol object is the owner
    of the ``receive`` callable it hands the app (None on another server)."""
    owner = getattr(websocket._receive, "__self__", None)
    transport = getattr(owner, "transport", None)
    # uvloop's transports are no subclasses of asyncio.Transport: ask for what is used.
    if all(callable(getattr(transport, name, None)) for name in ("abort", "get_extra_info")):
        return cast(asyncio.Transport, transport)
    return None
