"""The server's door: what a connection must do before the app spends anything on it.

* The ``Door`` answers a request from an address that a quota refused and whose
  ``Retry-After`` still runs (``limits.RefusalMemory``) with that refusal again —
  ``429``, ``Retry-After`` and the sentence — at once: no routing, no body read, no
  JSON parsed, no table touched. For every other request it costs one dictionary
  lookup. With httptools the HTTP protocol asks it at the request's head
  (``guarded_protocol``), before uvicorn makes the request's task; the rest (h11, and
  requests naming a client in ``X-Forwarded-For``) is asked by ``EarlyRefusals``,
  the app's first ASGI middleware.
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
  ``address_key`` makes it the key quotas count by: an IPv4 address mapped into IPv6
  (``::ffff:127.0.0.1``) is its IPv4 address, and an IPv6 address stands for its
  network (``Limits.ipv6_prefix``, /64: what one home or one server is given), so a
  client cannot multiply its quotas by its addresses. The app's first middleware
  (``EarlyRefusals``) writes the key into the scope once for every later reader.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
from collections.abc import Callable
from typing import Any

import h11
import msgspec
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from nertz.server.door.limits import Refusal, RefusalMemory

__all__ = [
    "BodyLimit",
    "Door",
    "EarlyRefusals",
    "address_key",
    "client_address",
    "guarded_protocol",
    "refused_by",
]

ADDRESS = "nertz.address"
"""The scope's key for the client's address as quotas count it (``address_key``)."""


@functools.lru_cache(maxsize=4096)
def _ipv6_key(text: str, prefix: int) -> str:
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])  # a zone (fe80::1%eth0) apart
    except ValueError:
        return text  # not an address (a unix socket's name): counted as it is
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped
        if mapped is not None:
            return str(mapped)
        if prefix < 128:
            return str(ipaddress.IPv6Network((address, prefix), strict=False))
    return str(address)


def address_key(text: str, ipv6_prefix: int = 64) -> str:
    """The key quotas count ``text`` (a client's address) by: an IPv4 address as it is;
    an IPv4 address mapped into IPv6 as that IPv4 address; any other IPv6 address as its
    network of ``ipv6_prefix`` bits (128: the address itself).

    >>> address_key("::ffff:127.0.0.1"), address_key("2001:db8:1:2:aa::7")
    ('127.0.0.1', '2001:db8:1:2::/64')
    """
    if ":" not in text:
        return text  # IPv4: the common case, no parsing
    return _ipv6_key(text, ipv6_prefix)


def client_address(scope: Scope) -> str:
    """The client's address as quotas count it (``address_key``; ``"unknown"`` if the
    server has none)."""
    known = scope.get(ADDRESS)
    if known is not None:
        return str(known)
    client = scope.get("client")
    return address_key(str(client[0])) if client else "unknown"


_SMALL = 16 * 1024
"""A declared body up to this size, left unread by an early refusal, is let the HTTP
protocol skip and the connection stays open; a bigger one, or one of no declared size
(chunked), is never read: the connection closes after the refusal."""
_CREATE = ("too_many_open_tables", "too_many_creates")
_LOOKUP = ("too_many_misses",)


_PAGES = ("/t/", "/sheet/", "/matches/")
_FILES = frozenset(("/sw.js", "/manifest.webmanifest", "/rules", "/learn", "/sheet", "/me"))
_COSTLY = ("/qr.svg", "/invite", "/csv")


def request_kind(method: str, path: str) -> str:
    """Which per-address request rate counts this request (``limits.Quotas.request``):
    ``"file"`` for the client's files and pages (served from memory), ``"costly"`` for
    a read that costs the server milliseconds (a finished match and its notation, a score
    sheet and its CSV, the invite dialog and its QR code: counted as a request too),
    ``"request"`` for every other."""
    if method in ("GET", "HEAD"):
        if path.startswith("/static/") or path in _FILES or path.startswith(_PAGES):
            return "file"
        if path.startswith("/api/sheets/") or _match_read(path):
            return "costly"
        if path.startswith("/api/tables/") and path.endswith(_COSTLY):
            return "costly"
    return "request"


def _match_read(path: str) -> bool:
    """A finished match as a whole: ``/api/matches/{id}`` and its notation."""
    if not path.startswith("/api/matches/"):
        return False
    slashes = path.count("/")
    return slashes == 3 or (slashes == 4 and path.endswith("/notation"))


_KIND_CODES = {
    "file": ("too_many_files",),
    "costly": ("too_many_requests", "too_many_reads"),
    "request": ("too_many_requests",),
}


def refused_by(method: str, path: str) -> tuple[str, ...]:
    """The refusal codes that, given to an address, refuse this request from it too:
    its kind's request rate (``request_kind``) and the quotas its route checks before
    doing anything else (tables_api.py, practice_api.py, sharing.py, web.py, me.py)."""
    return (*_KIND_CODES[request_kind(method, path)], *_route_codes(method, path))


def _route_codes(method: str, path: str) -> tuple[str, ...]:
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
        if path == "/api/me" or (
            path.startswith("/api/matches/") and path.count("/") == 4 and not _match_read(path)
        ):
            return ("too_many_histories",)
    return ()


class Door:
    """The refusals answered again at the door: for a request from an address still
    refused for what it asks (``memory``), the same refusal, its ``Retry-After`` the
    seconds that are left; ``refused(code)`` is told of each (metrics). A request that
    declares a body larger than a JSON request's (``_SMALL``), or streams one, is
    answered with ``connection: close``: the body is never read."""

    def __init__(
        self,
        memory: RefusalMemory,
        refused: Callable[[str], None] = lambda code: None,
        rate: Callable[[str, str], Refusal | None] = lambda address, kind: None,
        ipv6_prefix: int = 64,
    ) -> None:
        self.memory, self.refused, self.rate = memory, refused, rate
        """``rate(address, kind)``: the request rate of ``kind`` (``request_kind``)
        spends one for ``address``, or refuses it (``limits.Quotas.request``)."""
        self.ipv6_prefix = ipv6_prefix
        self._bodies: dict[tuple[str, str, int], bytes] = {}

    def key(self, client: str) -> str:
        """``client``'s address as quotas count it (``address_key``)."""
        return address_key(client, self.ipv6_prefix)

    def admit(
        self, address: str, method: str, path: str, headers: list[tuple[bytes, bytes]]
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes] | None:
        """``answer``, else the request's rate (``request_kind``) spent, or its refusal
        answered the same way (and remembered: the next is answered by ``answer``)."""
        found = self.answer(address, method, path, headers)
        if found is not None:
            return found
        refusal = self.rate(address, request_kind(method, path))
        if refusal is None:
            return None
        return self.answer(address, method, path, headers)  # remembered by the quota

    def answer(
        self, address: str, method: str, path: str, headers: list[tuple[bytes, bytes]]
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes] | None:
        """The refusal to answer this request with (status, headers, body), or None:
        let it in."""
        if address not in self.memory.by_address:
            return None  # the common case: one dictionary lookup
        codes = refused_by(method, path)
        held = self.memory.holding(address, codes) if codes else None
        if held is None:
            return None
        refusal, seconds = held
        self.refused(refusal.code)
        body = self._body(refusal, seconds)
        answer = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", str(seconds).encode()),
        ]
        for name, value in headers:
            if name == b"transfer-encoding" or (
                name == b"content-length" and not (value.isdigit() and int(value) <= _SMALL)
            ):
                answer.append((b"connection", b"close"))  # a body that is never read
                break
        return refusal.status, answer, body

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


class EarlyRefusals:
    """ASGI middleware: a request the ``Door`` refuses is answered so at once, with no
    routing, no body read and no JSON parsed. With httptools the protocol answers most
    of them before this (``guarded_protocol``); what comes here is the rest: h11's,
    and requests that name a client in ``X-Forwarded-For``, whose address only the
    app's scope knows."""

    def __init__(self, app: ASGIApp, door: Door) -> None:
        self.app, self.door = app, door

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if client is not None:
            scope[ADDRESS] = self.door.key(str(client[0]))
        if scope["type"] == "http":
            found = self.door.admit(
                client_address(scope), scope["method"], scope["path"], scope["headers"]
            )
            if found is not None:
                status, headers, body = found
                await send({"type": "http.response.start", "status": status, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


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
        door: Door | None = None

        def _start_asgi_task(self, cycle: Any, app: Any) -> None:
            if self.door is None or not _answered(self, self.door, cycle):
                super()._start_asgi_task(cycle, app)

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


_REASONS = {429: b"Too Many Requests", 503: b"Service Unavailable"}


def _answered(protocol: Any, door: Door, cycle: Any) -> bool:
    """Answer ``cycle``'s request in the protocol, before any ASGI task, if the door
    refuses it: the refusal's bytes written at once, the body (if any) skipped by the
    parser or, when big, never read (the connection closes). A request that names a
    client in ``X-Forwarded-For`` is left to the app's door, which alone knows whether
    the proxy is trusted and so whose address counts."""
    scope = cycle.scope
    client = scope.get("client")
    if client is None:
        return False
    address = door.key(client[0])
    if address not in door.memory.by_address:
        return False  # the common case: one dictionary lookup
    if any(name == b"x-forwarded-for" for name, _ in scope["headers"]):
        return False
    found = door.answer(address, scope["method"], scope["path"], scope["headers"])
    if found is None:
        return False
    status, headers, body = found
    close = not cycle.keep_alive or (b"connection", b"close") in headers
    if close and (b"connection", b"close") not in headers:
        headers.append((b"connection", b"close"))
    head = [b"HTTP/1.1 %d %s\r\n" % (status, _REASONS.get(status, b"Refused"))]
    for name, value in [*protocol.server_state.default_headers, *headers]:
        head += [name, b": ", value, b"\r\n"]
    protocol.transport.write(b"".join([*head, b"\r\n", body]))
    if cycle.access_log:
        cycle.access_logger.info(
            '%s - "%s %s HTTP/%s" %d',
            f"{client[0]}:{client[1]}",
            scope["method"],
            scope["path"],
            scope["http_version"],
            status,
        )
    cycle.response_started = cycle.response_complete = True  # the parser skips its body
    if close:
        cycle.keep_alive = False
        protocol.transport.close()
    else:
        protocol.on_response_complete()
    return True


def guarded_protocol(
    timeout_s: float, silent: Callable[[], None], http: str = "h11", door: Door | None = None
) -> type[asyncio.Protocol]:
    """Uvicorn's HTTP protocol (``http``: ``h11`` or ``httptools``) that closes a
    connection whose request head is not complete ``timeout_s`` after it opened or was
    last answered (``silent()`` is told); with httptools, a request the ``door`` refuses
    is answered at its head, in the protocol (``_answered``)."""
    if http not in ("h11", "httptools"):
        raise ValueError(f"unknown HTTP protocol {http!r}: h11 or httptools")
    base = _GuardedH11 if http == "h11" else _guarded_httptools()
    attributes = {"head_timeout_s": timeout_s, "silent": staticmethod(silent)}
    if http == "httptools":
        attributes["door"] = door
    return type(f"Guarded{base.__name__.removeprefix('_Guarded')}", (base,), attributes)
