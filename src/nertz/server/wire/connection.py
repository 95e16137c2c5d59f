"""One WebSocket's connection to a table: what the table sends a client and how much
of it may wait for a client that does not read (``Connection``, docs/server.md,
"Back-pressure"), how fast the client may talk (``RateLimit``) and what a client that
asks for full states on and on gets (``StateAsks``)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import logging
import socket
import time
from collections.abc import Callable, MutableMapping
from typing import Any, Protocol

from nertz.server.wire.wsprotocol import PlaySocket

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
    "Link",
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


class Link(Protocol):
    """What a connection needs of its WebSocket: Starlette's ``WebSocket`` is one (its
    public ``scope``, ``send_text`` and ``close``), and so is a test's stand-in."""

    @property
    def scope(self) -> MutableMapping[str, Any]: ...

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class Connection:
    """One WebSocket's outgoing side; the table actor never waits for a client.

    On the server's own WebSocket protocol (``wsprotocol.PlaySocket``, found in the
    scope) a message is written at once, as one frame, while the transport takes it
    (``writable``); once the transport's buffer is over its high-water mark, later
    messages queue here, in order, and go out when it drains (``on_drain``). No task
    per connection and no hop through one: that hop was a third of the play-ack time
    (docs/performance.md). On another server (no ``PlaySocket``) the messages go
    through the link's ``send_text`` from one task, in order.

    What waits is bounded: ``OUTBOX_LIMIT`` messages, ``OUTBOX_BYTES``, ``BEHIND_S``
    seconds; past any of them the connection is closed, and since a graceful close
    would wait behind the same unread bytes, the transport is aborted. Add the
    transport's write buffer (64 KiB before it says to wait) and the kernel's
    (``SEND_BUFFER_BYTES``) and a peer that never reads holds about 1.6 MiB of the
    server's memory at most."""

    _ids = itertools.count(1)

    def __init__(self, link: Link) -> None:
        self.id = next(self._ids)
        self.link = link
        self.backlog: collections.deque[bytes] = collections.deque()
        self.backlog_bytes = 0
        """Bytes of the messages in ``backlog`` (``/metrics``)."""
        self.behind_since: float | None = None
        """When a message first had to wait for the peer (None: nothing waits)."""
        self.idle = asyncio.Event()
        self.idle.set()
        self.closing: str | None = None
        self._close_due = False
        """The close waits behind the backlog."""
        self._writer: asyncio.Task[None] | None = None
        self.socket = PlaySocket.of(link.scope)
        if self.socket is not None:
            self.socket.on_drain = self._flush
            sock = self.socket.get_extra_info("socket")
            if sock is not None:
                # (uvloop raises ValueError for a socket already closed)
                with contextlib.suppress(OSError, ValueError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)

    @property
    def busy(self) -> bool:
        """Messages wait for the peer (or, on another server, for the writing task)."""
        return bool(self.backlog) or self._writer is not None

    def send(self, body: bytes) -> None:
        if self.closing is not None:
            return
        sock = self.socket
        if sock is not None and not self.backlog and sock.writable:
            sock.write_text(body)
            return
        if len(self.backlog) >= OUTBOX_LIMIT or self.backlog_bytes + len(body) > OUTBOX_BYTES:
            self.abort("too slow: messages piled up")
            return
        self.backlog.append(body)
        self.backlog_bytes += len(body)
        self._waiting()

    def take_text(self, handler: Callable[[str], None]) -> bool:
        """From now on hand each whole text message to ``handler`` as it is read, in
        order, rather than queueing it for the link's ``receive`` (which then gets the
        close, and any message that comes in fragments, after which every message goes
        back to the queue): no queue, no dict, no task switch and no pause and resume
        of the socket's reading per message (``PlaySocket.take_text``). Only on the
        server's own WebSocket protocol and while no message waits on its queue, so
        that none is overtaken; False (and nothing changes) otherwise. The handler
        bounds a flood itself (``RateLimit``): what it is given is handled before more
        is read."""
        sock = self.socket
        if sock is None:
            return False

        def deliver(text: str) -> None:
            if self.closing is not None:
                return  # past the close: dropped
            try:
                handler(text)
            except Exception:  # a bug: this connection ends, the server goes on
                log.exception("connection %d: a message could not be handled", self.id)
                self.close("server error")

        return sock.take_text(deliver)

    def send_timed(self, body: bytes, answered: Callable[[], None]) -> None:
        """``body`` with a WebSocket ping frame in one write; ``answered`` is called when
        the client's WebSocket stack (a browser's network code: the page's script can
        neither see nor hold it) answers the frame. Fair races time the path by it
        (R16; ``table.clock``). A message that would wait behind others (or a server
        without the nertz socket) goes as any other, untimed: its frame would time the
        wait, not the path."""
        sock = self.socket
        if self.closing is None and sock is not None and not self.backlog and sock.writable:
            sock.write_text_timed(body, answered)
            return
        self.send(body)

    def close(self, reason: str) -> None:
        if self.closing is not None:
            return
        self.closing = reason
        if self.busy:  # the close would wait behind unread messages: give it a moment
            self._close_due = True
            asyncio.get_running_loop().call_later(CLOSE_GRACE_S, self._abort_if_stuck)
            return
        self._send_close()

    def abort(self, reason: str) -> None:
        """Close at once, dropping what is queued: the peer is not reading."""
        self.closing = self.closing or reason
        self._drop_backlog()
        log.info("connection %d aborted: %s", self.id, reason)
        if self.socket is not None:
            self.socket.abort()
        elif self._writer is not None:
            self._writer.cancel()

    def _code(self) -> tuple[int, str]:
        normal = self.closing in _NORMAL_CLOSES
        return 1000 if normal else 1008, (self.closing or "")[:100]

    def _send_close(self) -> None:
        code, reason = self._code()
        if self.socket is not None:
            self.socket.close(code, reason)
        else:
            self._close_due = True
            self._start_writer()

    def _waiting(self) -> None:
        """A message waits: time the peer, and on another server, write it."""
        if self.behind_since is None:
            self.behind_since = time.monotonic()
            asyncio.get_running_loop().call_later(BEHIND_S, self._check_behind)
        self.idle.clear()
        if self.socket is None:
            self._start_writer()

    def _flush(self) -> None:
        """The transport takes writes again (or is gone): what waits goes out."""
        sock = self.socket
        assert sock is not None
        backlog = self.backlog
        if sock.disconnected:
            self._drop_backlog()
        while backlog and sock.writable:
            body = backlog.popleft()
            self.backlog_bytes -= len(body)
            sock.write_text(body)
        if not backlog:
            self._drained()

    def _drained(self) -> None:
        self.behind_since = None
        self.idle.set()
        if self._close_due:
            self._close_due = False
            code, reason = self._code()
            if self.socket is not None:
                self.socket.close(code, reason)

    def _start_writer(self) -> None:
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        """On another server: the backlog through the link, in order, then the close."""
        link, backlog = self.link, self.backlog
        try:
            while backlog:
                body = backlog.popleft()
                self.backlog_bytes -= len(body)
                await link.send_text(body.decode())
            if self._close_due:
                self._close_due = False
                code, reason = self._code()
                await link.close(code, reason)
        except Exception:  # the peer went away: drop the rest; the reader cleans up
            self.closing = self.closing or "gone"
            self._drop_backlog()
        finally:
            self._writer = None
            self.behind_since = None
            self.idle.set()

    def _drop_backlog(self) -> None:
        self.backlog.clear()
        self.backlog_bytes = 0
        self._close_due = False
        if self._writer is None:
            self.behind_since = None
            self.idle.set()

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
