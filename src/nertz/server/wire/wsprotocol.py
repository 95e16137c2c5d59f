"""The server's WebSocket protocol (``PlaySocket``): every WebSocket the server takes
(``/ws``, ``/echo``) runs on it, on the same port as HTTP.

Built on public APIs only:

* **uvicorn** hands a connection that asks for a WebSocket upgrade to the class given
  as ``uvicorn.Config(ws=...)``: it makes one with the keyword arguments ``config``,
  ``server_state`` and ``app_state``, calls ``connection_made(transport)`` and
  ``data_received(request head)``, and gives the transport to it
  (``transport.set_protocol``), as for each of its own WebSocket implementations. Of
  ``server_state`` this uses ``connections`` (so that uvicorn's shutdown calls
  ``shutdown``), ``tasks`` and ``default_headers``. Nothing else of uvicorn.
* **websockets' Sans-I/O layer** (``websockets.server.ServerProtocol``: ``receive_data``,
  ``events_received``, ``accept``, ``reject``, ``send_response``, ``send_close``,
  ``send_ping``, ``send_binary``, ``fail``, ``data_to_send``, ``close_expected``,
  ``state``; ``websockets.frames.Close.parse``) does the opening handshake and every
  frame the server does not cut itself.
* **asyncio**'s ``Protocol`` and ``Transport`` (``write``, ``abort``, ``close``,
  ``pause_reading``, ``resume_reading``, ``get_extra_info``; ``pause_writing`` and
  ``resume_writing`` for flow control).
* **ASGI** (the WebSocket scope and messages) to run the app: Starlette routes the
  upgrade, checks its ``Host`` and ``Origin`` and accepts or refuses it as before.

Its own interface, for the app (``connection.Connection``), is found in the scope
(``scope["extensions"]["nertz.socket"]``, ``PlaySocket.of``): ``write_text`` (a
message as one frame, at once), ``writable`` and ``on_drain`` (flow control),
``take_text`` (each text message to a handler as it is read, not through the ASGI
queue), ``close``, ``abort`` and ``write_text_timed`` (a message written with a ping
frame, which the peer's WebSocket stack answers: fair races time the path by it).
Frames are cut by ``frames.FrameCutter``; the first frame it does not take goes to
websockets with all that follows, for good.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from typing import Any, ClassVar, cast
from urllib.parse import unquote

from websockets.frames import Close, Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from nertz.server.wire.frames import FrameCutter, text_frame

__all__ = ["EXTENSION", "PlaySocket", "play_socket"]

log = logging.getLogger("nertz.socket")

EXTENSION = "nertz.socket"
"""The key of the ``PlaySocket`` in its ASGI scope's ``extensions``."""
CLOSE_TIMEOUT_S = 10.0
"""After the server's close frame, how long the peer has to answer it."""
_Handler = Callable[[str], None]


class PlaySocket(asyncio.Protocol):
    """One WebSocket connection (see the module's docstring). ``play_socket`` makes the
    class uvicorn is given, with the app and the limits set."""

    app: ClassVar[Any] = None
    """The ASGI app the WebSocket scope is run through."""
    max_size: ClassVar[int | None] = 2**20
    """The longest frame or message taken (longer: closed, 1009)."""
    ping_interval: ClassVar[float | None] = 20.0
    ping_timeout: ClassVar[float | None] = 20.0

    def __init__(self, config: Any, server_state: Any, app_state: dict[str, Any]) -> None:
        self.server_state = server_state
        self.app_state = app_state
        self.loop = asyncio.get_running_loop()
        self.conn = ServerProtocol(max_size=self.max_size, logger=log)
        self.transport: asyncio.Transport | None = None
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        """ASGI receive events for the app, while no ``take_text`` handler takes them."""
        self.handler: _Handler | None = None
        self.cutter: FrameCutter | None = None
        """Cuts frames while it can; None once websockets reads them (or before 101)."""
        self.early = b""
        """Bytes that came before the app accepted the WebSocket."""
        self.accepted = False
        self.answered = False
        """The handshake's answer (101 or a refusal) was sent."""
        self.close_sent = False
        """The server's close frame (or a refusal of the handshake) was sent: nothing
        more is written but websockets' answers."""
        self.disconnected = False
        """The app was told the connection is over (``websocket.disconnect``)."""
        self.read_paused = False
        self.writable = True
        """False while the transport's buffer is over its high-water mark."""
        self.on_drain: Callable[[], None] | None = None
        """Told when the transport can take writes again (``resume_writing``)."""
        self.fragments: list[bytes] = []
        self.fragment_text = False
        self.pings: dict[bytes, tuple[float, asyncio.Future[float | None]]] = {}
        self.ping_timer: asyncio.TimerHandle | None = None
        self.close_timer: asyncio.TimerHandle | None = None
        self.scope: dict[str, Any] = {}

    @staticmethod
    def of(scope: Any) -> PlaySocket | None:
        """The ``PlaySocket`` an ASGI WebSocket scope runs on (None: another server)."""
        found = scope.get("extensions", {}).get(EXTENSION)
        return found if isinstance(found, PlaySocket) else None

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.server_state.connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server_state.connections.discard(self)
        self.close_sent = True
        self._gone(1006)
        for timer in (self.ping_timer, self.close_timer):
            if timer is not None:
                timer.cancel()
        for _, waiter in self.pings.values():
            if not waiter.done():
                waiter.set_result(None)
        self.pings.clear()
        self.writable = True
        if self.on_drain is not None:  # whoever waits to write learns it is over
            self.on_drain()

    def pause_writing(self) -> None:
        self.writable = False

    def resume_writing(self) -> None:
        self.writable = True
        if self.on_drain is not None:
            self.on_drain()

    def data_received(self, data: bytes) -> None:
        cutter = self.cutter
        if cutter is not None:
            rest = cutter.feed(data)
            if rest is None:
                return
            self.cutter = None  # websockets' from this frame on
            data = rest
        elif not self.answered and self.conn.state is State.CONNECTING and self.scope:
            self.early += data  # frames before the accept: read once it is given
            return
        self.conn.receive_data(data)
        self._events()

    def eof_received(self) -> bool | None:
        self.conn.receive_eof()
        self._events()
        return None

    # For the app

    def write_text(self, body: bytes) -> None:
        """``body`` (UTF-8) as one text frame, written at once (the caller minds
        ``writable``). Nothing once the close was sent."""
        if not self.close_sent and not self.disconnected:
            self.transport.write(text_frame(body))  # type: ignore[union-attr]

    def take_text(self, handler: _Handler) -> bool:
        """From now on hand each whole text message to ``handler`` as it is read, in
        order, rather than queueing it for the app's ``receive`` (which still gets the
        close, binary messages and any message that came in fragments, after which
        every message goes back to the queue). False (and nothing changes) while a
        message waits on the queue, so that none is overtaken."""
        if not self.queue.empty() or self.fragments:
            return False
        self.handler = handler
        return True

    def close(self, code: int, reason: str) -> None:
        """Send the close frame (the peer has ``CLOSE_TIMEOUT_S`` to answer it)."""
        if self.close_sent or self.disconnected or self.transport is None:
            return
        self.close_sent = True
        self.handler = None
        self.conn.send_close(code, reason)
        self._flush()
        self._gone(code, reason)
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()
        self.close_timer = self.loop.call_later(CLOSE_TIMEOUT_S, self.transport.close)

    def abort(self) -> None:
        """Drop the connection at once, with whatever was not sent."""
        if self.transport is not None:
            self.transport.abort()

    def get_extra_info(self, name: str) -> Any:
        """The transport's (``socket``, ``peername``, ...)."""
        return None if self.transport is None else self.transport.get_extra_info(name)

    def write_text_timed(self, body: bytes, answered: Callable[[], None]) -> None:
        """A ping frame and then ``body`` as one text frame, in one write: one segment
        on the network, so both reach the peer together. ``answered`` is called when the
        frame's pong comes back, answered by the peer's WebSocket stack (a browser's
        network code, never the page's script, which can neither see nor hold it);
        never if the connection ends first. Nothing once the close was sent (the caller
        minds ``writable``)."""
        if self.close_sent or self.disconnected:
            return
        waiter = self._register_ping()
        waiter.add_done_callback(lambda done: answered() if done.result() is not None else None)
        pending = self.conn.data_to_send()
        if all(pending):
            self.transport.write(b"".join(pending) + text_frame(body))  # type: ignore[union-attr]
        else:  # an empty chunk asks for the EOF: the close is on its way, not the message
            self._write(pending)

    def shutdown(self) -> None:
        """uvicorn's: the server stops (1012, "service restart")."""
        if self.transport is None:
            return
        if self.accepted and not self.close_sent:
            self.close(1012, "")
        elif not self.answered:
            self._answer(self.conn.reject(500, "Internal Server Error"))
        self.transport.close()

    # ASGI

    async def receive(self) -> dict[str, Any]:
        message = await self.queue.get()
        if self.read_paused and self.queue.empty() and self.transport is not None:
            self.read_paused = False
            self.transport.resume_reading()
        return message

    async def send(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if not self.answered:
            if kind == "websocket.accept":
                self._accept(message)
            elif kind == "websocket.close":
                self._gone(1006)
                self._answer(self.conn.reject(403, ""))
            else:
                raise RuntimeError(f"expected websocket.accept or websocket.close, not {kind}")
            return
        if self.disconnected:
            raise OSError("the WebSocket is closed")
        if kind == "websocket.send":
            while not self.writable and not self.disconnected:
                await self._drained()
            text = message.get("text")
            if text is not None:
                self.write_text(text.encode())
            elif not self.close_sent:
                self.conn.send_binary(message.get("bytes") or b"")
                self._flush()
        elif kind == "websocket.close":
            self.close(message.get("code", 1000), message.get("reason") or "")
        else:
            raise RuntimeError(f"unexpected ASGI message {kind}")

    async def _drained(self) -> None:
        ready = self.loop.create_future()
        before = self.on_drain

        def drained() -> None:
            if not ready.done():
                ready.set_result(None)
            if before is not None:
                before()

        self.on_drain = drained
        try:
            await ready
        finally:
            self.on_drain = before

    async def _run(self) -> None:
        try:
            await self.app(self.scope, self.receive, self.send)
        except Exception:
            log.exception("Exception in ASGI application")
            if not self.answered:
                self._answer(self.conn.reject(500, "Internal Server Error"))
        if not self.answered:
            self._answer(self.conn.reject(500, "Internal Server Error"))
        elif self.close_timer is None and self.transport is not None:
            self.transport.close()

    # Inside

    def _events(self) -> None:
        for event in self.conn.events_received():
            if isinstance(event, Request):
                self._connect(event)
            elif isinstance(event, Frame):
                self._frame(event)
        self._flush()
        state = self.conn.state
        if self.accepted and (state is State.CLOSING or state is State.CLOSED):
            # websockets closed it (a frame too big, bad data, the peer's close): the
            # app is told, and nothing more is written
            self.close_sent = True
            self.handler = None
            self._gone(self.conn.close_code or 1006)
        if self.conn.close_expected() and self.close_timer is None and self.transport is not None:
            self.close_timer = self.loop.call_later(CLOSE_TIMEOUT_S, self.transport.close)

    def _gone(self, code: int, reason: str = "") -> None:
        """Tell the app the connection is over (once)."""
        if not self.disconnected:
            self.disconnected = True
            self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})

    def _connect(self, request: Request) -> None:
        self.request = request
        self.response = self.conn.accept(request)
        if self.response.status_code != 101:  # not a valid WebSocket handshake
            self._answer(self.response)
            return
        transport = self.transport
        assert transport is not None
        raw_path, _, query = request.path.partition("?")
        headers = [
            (name.lower().encode("ascii"), value.encode("latin-1"))
            for name, value in request.headers.raw_items()
        ]
        subprotocols: list[str] = []
        for header in request.headers.get_all("Sec-WebSocket-Protocol"):
            subprotocols.extend(token.strip() for token in header.split(","))
        self.scope = {
            "type": "websocket",
            "asgi": {"version": "3.0", "spec_version": "2.4"},
            "http_version": "1.1",
            "scheme": "wss" if transport.get_extra_info("sslcontext") else "ws",
            "server": _address(transport.get_extra_info("sockname")),
            "client": _address(transport.get_extra_info("peername")),
            "root_path": "",
            "path": unquote(raw_path),
            "raw_path": raw_path.encode("ascii"),
            "query_string": query.encode("ascii"),
            "headers": headers,
            "subprotocols": subprotocols,
            "state": self.app_state.copy(),
            "extensions": {EXTENSION: self},
        }
        self.queue.put_nowait({"type": "websocket.connect"})
        task = self.loop.create_task(self._run())
        tasks = self.server_state.tasks
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    def _accept(self, message: dict[str, Any]) -> None:
        response = self.response
        for name in ("Date", "Server"):  # uvicorn's own, as for every HTTP answer
            if name in response.headers:
                del response.headers[name]
        for name, value in [*self.server_state.default_headers, *message.get("headers", [])]:
            response.headers[name.decode("latin-1")] = value.decode("latin-1")
        if message.get("subprotocol"):
            response.headers["Sec-WebSocket-Protocol"] = message["subprotocol"]
        if self.transport is None or self.transport.is_closing():
            return
        self.answered = self.accepted = True
        self.conn.send_response(response)
        self._flush()
        self.cutter = FrameCutter(self.max_size, self._text, self._pong)
        if self.ping_interval:
            self.ping_timer = self.loop.call_later(self.ping_interval, self._keepalive)
        early, self.early = self.early, b""
        if early:
            self.data_received(early)

    def _answer(self, response: Any) -> None:
        """A refusal of the handshake (not 101): written, then the connection closed."""
        self.answered = self.close_sent = True
        self.conn.send_response(response)
        self._flush()
        if self.transport is not None:
            self.transport.close()

    def _text(self, text: str) -> None:
        if self.close_sent:
            return  # past the close: dropped
        handler = self.handler
        if handler is not None:
            handler(text)
            return
        self._queue({"type": "websocket.receive", "text": text})

    def _queue(self, message: dict[str, Any]) -> None:
        self.queue.put_nowait(message)
        if not self.read_paused and self.transport is not None:
            self.read_paused = True  # the app reads it before more is read
            self.transport.pause_reading()

    def _frame(self, frame: Frame) -> None:
        opcode = frame.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY or opcode is Opcode.CONT:
            if opcode is not Opcode.CONT:
                self.fragment_text = opcode is Opcode.TEXT
                self.fragments = []
            if not frame.fin or self.fragments:
                self.handler = None  # fragments: this and all after it to the queue
            self.fragments.append(bytes(frame.data))
            if not frame.fin:
                return
            data = b"".join(self.fragments)
            self.fragments = []
            if self.close_sent:
                return
            if not self.fragment_text:
                self._queue({"type": "websocket.receive", "bytes": data})
                return
            try:
                text = data.decode()
            except UnicodeDecodeError:
                self.conn.fail(1007, "invalid UTF-8")
                return
            self._text(text)
        elif opcode is Opcode.PONG:
            self._pong(bytes(frame.data))
        elif opcode is Opcode.CLOSE:
            close = Close.parse(bytes(frame.data)) if frame.data else Close(1005, "")
            self._gone(close.code, close.reason)
            self.close_sent = True
            self._flush()  # the close echoed (websockets' doing)
            if self.transport is not None:
                self.transport.close()
        # A ping: websockets has queued its pong; ``_events`` writes it.

    def _flush(self) -> None:
        self._write(self.conn.data_to_send())

    def _write(self, chunks: list[bytes]) -> None:
        """Write what websockets has to send; an empty chunk: the EOF."""
        transport = self.transport
        if transport is None:
            return
        for data in chunks:
            if data:
                transport.write(data)
            elif transport.can_write_eof() and not transport.is_closing():
                with contextlib.suppress(OSError, RuntimeError):
                    transport.write_eof()

    def _ping(self) -> asyncio.Future[float | None]:
        waiter = self._register_ping()
        self._flush()
        return waiter

    def _register_ping(self) -> asyncio.Future[float | None]:
        """A ping frame queued (not written yet), and the future its pong resolves
        with the round trip in seconds (None: the connection ended first)."""
        payload = os.urandom(4)
        waiter: asyncio.Future[float | None] = self.loop.create_future()
        self.pings[payload] = (self.loop.time(), waiter)
        self.conn.send_ping(payload)
        return waiter

    def _pong(self, payload: bytes) -> None:
        found = self.pings.pop(payload, None)
        if found is None:
            return  # unsolicited, or late: ignored (RFC 6455, 5.5.3)
        sent, waiter = found
        if not waiter.done():
            waiter.set_result(self.loop.time() - sent)
        # A pong answers every ping before it too (RFC 6455, 5.5.3).
        for earlier in [p for p, (at, _) in self.pings.items() if at <= sent]:
            _, older = self.pings.pop(earlier)
            if not older.done():
                older.set_result(self.loop.time() - sent)

    def _keepalive(self) -> None:
        """A ping every ``ping_interval``; no pong within ``ping_timeout``: closed
        (1011), as uvicorn's own WebSockets did."""
        self.ping_timer = None
        if self.close_sent or self.disconnected:
            return
        waiter = self._ping()
        timeout = self.ping_timeout

        def answered(done: asyncio.Future[float | None]) -> None:
            if done.result() is not None and not self.close_sent and self.ping_interval:
                delay = max(0.0, self.ping_interval - (done.result() or 0.0))
                self.ping_timer = self.loop.call_later(delay, self._keepalive)

        def too_late() -> None:
            if not waiter.done() and not self.close_sent and not self.disconnected:
                waiter.set_result(None)
                self.conn.fail(1011, "keepalive ping timeout")
                self.close_sent = True
                self._flush()
                if self.transport is not None:
                    self.transport.close()

        waiter.add_done_callback(answered)
        if timeout:
            timer = self.loop.call_later(timeout, too_late)
            waiter.add_done_callback(lambda _: timer.cancel())


def _address(found: Any) -> tuple[str, int] | None:
    if isinstance(found, tuple) and len(found) >= 2:
        return str(found[0]), int(found[1])
    return None


def play_socket(
    app: Any,
    max_size: int | None,
    ping_interval: float | None = 20.0,
    ping_timeout: float | None = 20.0,
) -> type[PlaySocket]:
    """The ``PlaySocket`` class to give uvicorn (``uvicorn.Config(ws=...)``), running
    ``app`` with these limits."""
    attributes = {
        "app": staticmethod(app),  # a function is not to become a method
        "max_size": max_size,
        "ping_interval": ping_interval,
        "ping_timeout": ping_timeout,
    }
    return type("PlaySocket", (PlaySocket,), attributes)
