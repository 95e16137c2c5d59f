"""The server's door: what a connection must do before the app spends anything on it.

* ``BodyLimit`` (ASGI middleware) counts a request body's bytes as they arrive and
  answers ``413`` once they pass ``Limits.body_bytes`` — at once when
  ``Content-Length`` says so — so a big body is never buffered; a body that trickles
  in slower than ``Limits.header_timeout_s`` between chunks is answered ``408``.
  Either way the connection is closed after the answer, and so is any connection
  answered before its request body had all come (a quota refused it): the rest is
  never read.
* ``guarded_protocol`` is uvicorn's HTTP/1.1 protocol (h11 or httptools) with one
  more timer, the same for both (``_HeadTimer``): a connection must send a complete
  request head within ``header_timeout_s`` of opening (or of its last answer), else
  it is closed. Uvicorn's own keep-alive timer starts only after a first answer and
  any byte stops it, so alone it lets a silent or trickling connection stay for good.
* ``client_address``: the address quotas count. Uvicorn has already put the client
  a trusted reverse proxy names in ``X-Forwarded-For`` there
  (``nertz serve --forwarded-allow-ips``); from anyone else the header is ignored.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

import h11
import msgspec
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["BodyLimit", "client_address", "guarded_protocol"]


def client_address(scope: Scope) -> str:
    """The client's address as quotas count it (``"unknown"`` if the server has none)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class _BodyRefused(Exception):
    def __init__(self, status: int, code: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.code, self.reason = status, code, reason


class BodyLimit:
    """Refuse a request body over ``limit`` bytes, or one that stalls for ``stall_s``,
    while it streams in; ``refused(code)`` is told of each refusal (metrics)."""

    def __init__(
        self,
        app: ASGIApp,
        limit: int,
        stall_s: float,
        refused: Callable[[str], None] = lambda code: None,
    ) -> None:
        self.app, self.limit, self.stall_s, self.refused = app, limit, stall_s, refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_big = _BodyRefused(413, "too_big", f"a request body may be at most {self.limit} bytes")
        body_done = True  # no body coming (no length, not chunked)
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                await self._refuse(send, too_big)
                return
            if name == b"transfer-encoding" or (name == b"content-length" and value != b"0"):
                body_done = False
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen, body_done
            try:
                message = await asyncio.wait_for(receive(), self.stall_s)
            except TimeoutError:
                raise _BodyRefused(
                    408, "too_slow", f"the request body stalled for {self.stall_s:g} s"
                ) from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise too_big
                body_done = not message.get("more_body", False)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if not body_done:
                    # Answered before its body was read (a quota refused it): close
                    # rather than read and throw away what is still coming.
                    headers = [*message.get("headers", ()), (b"connection", b"close")]
                    message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _BodyRefused as refusal:
            if started:
                raise
            await self._refuse(send, refusal)

    async def _refuse(self, send: Send, refusal: _BodyRefused) -> None:
        self.refused(refusal.code)
        body = msgspec.json.encode({"error": refusal.code, "reason": refusal.reason})
        await send(
            {
                "type": "http.response.start",
                "status": refusal.status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),  # the rest of the body is never read
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class _HeadTimer:
    """The head timer, for either HTTP protocol: armed when a connection opens and when
    an answer completes with no request in progress, disarmed by a complete request
    head (the protocol calls ``_head_done``); when it fires the connection is closed.
    ``guarded_protocol`` sets the timeout and the ``silent`` callback per server."""

    head_timeout_s: float = 10.0
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    _head_timer: asyncio.TimerHandle | None = None

    @staticmethod
    def silent() -> None:
        """Told of each connection closed for not sending a head in time."""

    def _arm(self) -> None:
        self._head_done()
        self._head_timer = self.loop.call_later(self.head_timeout_s, self._too_slow)

    def _head_done(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_slow(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.silent()
            self.transport.close()


class _GuardedH11(_HeadTimer, H11Protocol):
    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # a whole request head came
            self._head_done()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm()  # waiting for the next request head

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_done()
        super().connection_lost(exc)


@functools.cache
def _guarded_httptools() -> type[asyncio.Protocol]:
    """The httptools protocol with the head timer (imported only when asked for: the
    package is optional)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class GuardedHttpTools(_HeadTimer, HttpToolsProtocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_headers_complete(self) -> None:  # the parser saw a whole request head
            self._head_done()
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            idle = not self.pipeline  # else the next request, already read, starts now
            super().on_response_complete()
            if idle and not self.transport.is_closing():
                self._arm()  # waiting for the next request head

        def connection_lost(self, exc: Exception | None) -> None:
            self._head_done()
            super().connection_lost(exc)

    return GuardedHttpTools


def guarded_protocol(
    timeout_s: float, silent: Callable[[], None], http: str = "h11"
) -> type[asyncio.Protocol]:
    """Uvicorn's HTTP protocol (``http``: ``h11`` or ``httptools``) that closes a
    connection whose request head is not complete ``timeout_s`` after it opened or was
    last answered (``silent()`` is told)."""
    if http not in ("h11", "httptools"):
        raise ValueError(f"unknown HTTP protocol {http!r}: h11 or httptools")
    base = _GuardedH11 if http == "h11" else _guarded_httptools()
    attributes = {"head_timeout_s": timeout_s, "silent": staticmethod(silent)}
    return type(f"Guarded{base.__name__.removeprefix('_Guarded')}", (base,), attributes)
