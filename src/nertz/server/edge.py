"""The server's door: what a connection must do before the app spends anything on it.

* ``EarlyRefusals`` (ASGI middleware, the app's first) answers a request from an
  address that a quota refused and whose ``Retry-After`` still runs
  (``limits.RefusalMemory``) with that refusal again — ``429``, ``Retry-After`` and the
  sentence — at once: no routing, no body read, no JSON parsed, no table touched. For
  every other request it costs one dictionary lookup.
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

from .limits import Refusal, RefusalMemory

__all__ = ["BodyLimit", "EarlyRefusals", "client_address", "guarded_protocol", "refused_by"]


def client_address(scope: Scope) -> str:
    """The client's address as quotas count it (``"unknown"`` if the server has none)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


_SMALL = 16 * 1024
"""A declared body up to this size, left unread by an early refusal, is let the HTTP
protocol skip and the connection stays open; a bigger one, or one of no declared size
(chunked), is never read: the connection closes after the refusal."""
_CREATE = ("too_many_open_tables", "too_many_creates")
_LOOKUP = ("too_many_misses",)


def refused_by(method: str, path: str) -> tuple[str, ...]:
    """The refusal codes that, given to an address, refuse this request from it too:
    the quotas its route checks before doing anything else (app.py, practice_api.py,
    sharing.py, web.py, me.py). Empty for a request no remembered quota guards."""
    if method == "POST":
        if path == "/api/tables":
            return _CREATE
        if path.startswith("/api/tables/") and path.endswith("/join"):
            return ("too_many_joins", *_LOOKUP)
        if path == "/api/sheets":
            return ("too_many_sheets",)
        if path in ("/api/practice", "/api/learn"):
            return (*_CREATE, "too_many_joins")
    elif method == "GET":
        if path.startswith(("/api/tables/", "/api/invites/")):
            return _LOOKUP
        if path == "/api/me" or (path.startswith("/api/matches/") and path.count("/") == 4):
            return ("too_many_histories",)
    return ()


class EarlyRefusals:
    """Answer a request from an address still refused for what it asks (``memory``)
    with the same refusal at once, its ``Retry-After`` the seconds that are left;
    ``refused(code)`` is told of each (metrics). A request that declares a body
    larger than a JSON request's (``_SMALL``), or streams one, is answered with
    ``connection: close``: the body is never read."""

    def __init__(
        self,
        app: ASGIApp,
        memory: RefusalMemory,
        refused: Callable[[str], None] = lambda code: None,
    ) -> None:
        self.app, self.memory, self.refused = app, memory, refused
        self._bodies: dict[tuple[str, str, int], bytes] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and client_address(scope) in self.memory.by_address:
            codes = refused_by(scope["method"], scope["path"])
            held = self.memory.holding(client_address(scope), codes) if codes else None
            if held is not None:
                await self._answer(scope, send, *held)
                return
        await self.app(scope, receive, send)

    def _body(self, refusal: Refusal, seconds: int) -> bytes:
        """The refusal's JSON, its sentence saying ``seconds`` (made once per value)."""
        key = (refusal.code, refusal.reason, seconds)
        body = self._bodies.get(key)
        if body is None:
            limit, said, _ = refusal.reason.rpartition("; try again in ")
            reason = f"{limit}; try again in {seconds} s" if said else refusal.reason
            body = msgspec.json.encode({"error": refusal.code, "reason": reason})
            if len(self._bodies) >= 1000:
                self._bodies.clear()
            self._bodies[key] = body
        return body

    async def _answer(self, scope: Scope, send: Send, refusal: Refusal, seconds: int) -> None:
        self.refused(refusal.code)
        body = self._body(refusal, seconds)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", str(seconds).encode()),
        ]
        for name, value in scope["headers"]:
            if name == b"transfer-encoding" or (
                name == b"content-length" and not (value.isdigit() and int(value) <= _SMALL)
            ):
                headers.append((b"connection", b"close"))  # a body that is never read
                break
        await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


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
