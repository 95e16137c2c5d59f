"""The server's door: what a connection must do before the app spends anything on it.

* The ``Door`` answers a request from an address that a quota refused and whose
  ``Retry-After`` still runs (``limits.RefusalMemory``) with that refusal again —
  ``429``, ``Retry-After`` and the sentence — at once: no routing, no body read, no
  JSON parsed, no table touched. For every other request it costs one dictionary
  lookup. The ``HeadGate`` in front of uvicorn's HTTP protocol asks it at the
  request's head, before uvicorn sees the request at all; the rest (requests naming a
  client in ``X-Forwarded-For``, and a request sent on a connection while another on
  it waits for its answer) is asked by ``EarlyRefusals``, the app's first ASGI
  middleware.
* The ``Door`` answers each address's refusals at a pace (``pace.RefusalPace``): a
  burst at once, then a few a second, the rest waiting their turn unread; so a client
  that asks again and again while refused costs the server its address's pace, not
  its own speed.
* While the event loop is behind, a connection beginning a new request waits unread
  in the door's line (``line.DoorLine``), one address after another, so a volley of
  requests cannot make every table's rounds long at once.
* ``BodyLimit`` (ASGI middleware) counts a request body's bytes as they arrive and
  answers ``413`` once they pass ``Limits.body_bytes`` — at once when
  ``Content-Length`` says so — so a big body is never buffered; a body that trickles
  in slower than ``Limits.header_timeout_s`` between chunks is answered ``408``.
  Either way the connection is closed after the answer, and so is any connection
  answered before its request body had all come (a quota refused it): the rest is
  never read.
* ``guarded_protocol`` makes the class given to uvicorn as ``Config(http=...)``: a
  ``HeadGate``, a plain ``asyncio.Protocol`` that makes uvicorn's own HTTP/1.1
  protocol (h11 or httptools, by the name ``Config(http=name)`` takes) and passes it
  every call asyncio makes, with a transport of its own that passes every call on to
  the real one. It reads only bytes: what comes in (a request head ends at
  ``CRLF CRLF``; its request line and header fields, for the door and to skip a
  ``Content-Length`` body) and what uvicorn writes (an answer's status line). With
  them it keeps one more timer: a connection must send a complete request head
  within ``header_timeout_s`` of opening (or of its last answer), else it is closed.
  Uvicorn's own keep-alive timer starts only after a first answer and any byte stops
  it, so alone it lets a silent or trickling connection stay for good. When the door
  refuses a request at its head, the gate writes the refusal itself and never passes
  the request on: its small body is skipped and the connection kept; a bigger or
  chunked body is never read, and the connection is closed after the refusal (so is
  one that asked to close). A WebSocket upgrade hands the socket to the WebSocket
  protocol (``transport.set_protocol``): the gate is out of the way from then on, and
  the WebSocket's writes go straight to the real transport.
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
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, cast
from urllib.parse import unquote

import msgspec
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.config import HTTP_PROTOCOLS
from uvicorn.importer import import_from_string

from nertz.server.door.limits import Refusal, RefusalMemory
from nertz.server.door.line import DoorLine
from nertz.server.door.pace import RefusalPace

__all__ = [
    "BodyLimit",
    "Door",
    "EarlyRefusals",
    "HeadGate",
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


_PAGES = ("/t/", "/sheet/", "/matches/", "/replay/", "/daily/", "/p/")
_CEREMONIES = frozenset(
    ("/api/account/new", "/api/account/signin/begin", "/api/account/passkeys/begin")
)
"""The routes that begin a passkey ceremony (``http/accounts_api.py``)."""
_FILES = frozenset(
    (
        "/sw.js",
        "/manifest.webmanifest",
        "/rules",
        "/learn",
        "/sheet",
        "/me",
        "/account",
        "/daily",
        "/replay",
        "/ratings",
    )
)
_COSTLY = ("/qr.svg", "/invite", "/csv")
_MATCH_READS = ("/notation", "/replay", "/analysis", "/advice")


def request_kind(method: str, path: str) -> str:
    """Which per-address request rate counts this request (``limits.Quotas.request``):
    ``"file"`` for the client's files and pages (served from memory), ``"costly"`` for
    a read that costs the server milliseconds (a finished match, its notation and its
    hands for the replay viewer, a notation file opened in the viewer, a score sheet and
    its CSV, the invite dialog and its QR code: counted as a request too), ``"request"``
    for every other."""
    if method == "POST" and path == "/api/replays":
        return "costly"
    if method in ("GET", "HEAD"):
        if path.startswith("/static/") or path in _FILES or path.startswith(_PAGES):
            return "file"
        if path.startswith("/api/sheets/") or _match_read(path):
            return "costly"
        if path.startswith("/api/tables/") and path.endswith(_COSTLY):
            return "costly"
    return "request"


def _match_read(path: str) -> bool:
    """A finished match as a whole: ``/api/matches/{id}``, its notation, its hands for
    the replay viewer and a hand's analysis or the bots' advice (each replays a hand)."""
    if not path.startswith("/api/matches/"):
        return False
    slashes = path.count("/")
    return slashes == 3 or (slashes == 4 and path.endswith(_MATCH_READS))


_KIND_CODES = {
    "file": ("too_many_files",),
    "costly": ("too_many_requests", "too_many_reads"),
    "request": ("too_many_requests",),
}


def refused_by(method: str, path: str) -> tuple[str, ...]:
    """The refusal codes that, given to an address, refuse this request from it too:
    its kind's request rate (``request_kind``) and the quotas its route checks before
    doing anything else (tables_api.py, practice_api.py, daily_api.py, sharing.py, web.py,
    me.py)."""
    return (*_KIND_CODES[request_kind(method, path)], *_route_codes(method, path))


def _route_codes(method: str, path: str) -> tuple[str, ...]:
    if method == "POST":
        if path == "/api/tables":
            return _CREATE
        if path.startswith("/api/tables/") and path.endswith("/join"):
            return ("too_many_joins", *_LOOKUP)
        if path == "/api/sheets":
            return ("too_many_sheets",)
        if path in ("/api/practice", "/api/learn", "/api/daily"):
            return (*_CREATE, "too_many_joins")
        if path == "/api/quick":
            return ("too_many_joins",)
        if path in _CEREMONIES:
            return ("too_many_ceremonies",)
        if path == "/api/account/recover":
            return ("too_many_recoveries",)
    elif method == "GET":
        if path.startswith(("/api/tables/", "/api/invites/")):
            return _LOOKUP
        if (
            path == "/api/me"
            or path.startswith(("/api/ratings/", "/api/players/"))
            or (path.startswith("/api/matches/") and path.count("/") == 4 and not _match_read(path))
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
        pace: RefusalPace | None = None,
    ) -> None:
        self.memory, self.refused, self.rate = memory, refused, rate
        """``rate(address, kind)``: the request rate of ``kind`` (``request_kind``)
        spends one for ``address``, or refuses it (``limits.Quotas.request``)."""
        self.ipv6_prefix = ipv6_prefix
        self.pace = pace
        """When each address's refusals are answered (None: all at once)."""
        self._bodies: dict[tuple[str, str, int], bytes] = {}

    def key(self, client: str) -> str:
        """``client``'s address as quotas count it (``address_key``)."""
        return address_key(client, self.ipv6_prefix)

    def turn(self, address: str) -> float | None:
        """The seconds a refusal to ``address`` waits before it is answered (``pace``),
        its turn taken; None: too long, close the connection with no answer."""
        return 0.0 if self.pace is None else self.pace.turn(address)

    @property
    def longest_wait_s(self) -> float:
        """The longest a refusal waits for its turn (0: no pace)."""
        return 0.0 if self.pace is None else self.pace.max_wait_s

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
    routing, no body read and no JSON parsed. The ``HeadGate`` answers most of them
    before this; what comes here is the rest: requests that name a client in
    ``X-Forwarded-For``, whose address only the app's scope knows, and those sent on a
    connection while another request on it waited for its answer."""

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
                wait = self.door.turn(client_address(scope))
                # Its turn (``Door.turn``); one too far away waits the longest there is
                # and is answered closing the connection (ASGI cannot drop a request).
                if wait is None:
                    wait = self.door.longest_wait_s
                    headers = [*headers, (b"connection", b"close")]
                if wait > 0:
                    await asyncio.sleep(wait)
                await send({"type": "http.response.start", "status": status, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


class _BodyRefused(Exception):
    def __init__(self, status: int, code: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.code, self.reason = status, code, reason


class BodyLimit:
    """Refuse a request body over ``limit`` bytes (over ``larger[path]`` for a path that
    takes a file, the replay viewer's notation file), or one that stalls for
    ``stall_s``, while it streams in; ``refused(code)`` is told of each refusal
    (metrics)."""

    def __init__(
        self,
        app: ASGIApp,
        limit: int,
        stall_s: float,
        refused: Callable[[str], None] = lambda code: None,
        larger: Mapping[str, int] | None = None,
    ) -> None:
        self.app, self.limit, self.stall_s, self.refused = app, limit, stall_s, refused
        self.larger = dict(larger or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(scope["path"], self.limit)
        too_big = _BodyRefused(413, "too_big", f"a request body may be at most {limit} bytes")
        body_done = True  # no body coming (no length, not chunked)
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > limit:
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
                if seen > limit:
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


_END = b"\r\n\r\n"
"""The end of a request head (RFC 9112, 2.1)."""
_HEAD_CAP = 64 * 1024
"""The most of one request head the gate keeps; a longer head is the HTTP protocol's
to refuse (uvicorn's h11 takes 16 KiB at most), and the gate stops reading it."""
_FRAMING = (b"\ncontent-length:", b"\ntransfer-encoding:", b"\nupgrade:")
"""The header fields that say whether a body follows a head (as they start a line)."""
_REASONS = {429: b"Too Many Requests", 503: b"Service Unavailable"}


class _Head:
    """What the gate reads of a request head: the request line and the header fields,
    names in lower case (as ASGI gives them), and whether a body follows it."""

    __slots__ = ("body", "headers", "keep_alive", "method", "path", "version")

    def __init__(self, head: bytes) -> None:
        lines = head.split(b"\r\n")
        request = lines[0].split(b" ")
        if len(request) != 3 or not request[2].startswith(b"HTTP/1."):
            raise ValueError("not an HTTP/1.x request line")
        self.method = request[0].decode("ascii")
        self.version = request[2][5:].decode("ascii")
        target = request[1]
        # Only the origin form (``/path?query``) names a path the door knows.
        self.path = unquote(target.split(b"?", 1)[0].decode("ascii")) if target[:1] == b"/" else ""
        self.headers: list[tuple[bytes, bytes]] = []
        lengths: set[bytes] = set()
        self.body: int | None = 0
        """The body's length in bytes; None when its end is not known here (chunked,
        or an upgrade: the HTTP protocol finds it)."""
        connection = b""
        for line in lines[1:]:
            if not line:
                continue
            name, colon, value = line.partition(b":")
            if not colon or not name or name != name.strip(b" \t"):
                raise ValueError("not a header field")  # the HTTP protocol answers 400
            name, value = name.lower(), value.strip(b" \t")
            self.headers.append((name, value))
            if name == b"content-length":
                lengths.add(value)
            elif name in (b"transfer-encoding", b"upgrade"):
                self.body = None
            elif name == b"connection":
                connection = value.lower()
        if lengths and self.body is not None:
            length = lengths.pop()
            self.body = int(length) if not lengths and length.isdigit() else None
        if self.version == "1.1":
            self.keep_alive = b"close" not in connection
        else:
            self.keep_alive = b"keep-alive" in connection


@functools.cache
def _http_class(name: str) -> Callable[..., asyncio.Protocol]:
    """Uvicorn's HTTP/1.1 protocol class of that name (``h11`` or ``httptools``), found
    as ``uvicorn.Config(http=name)`` finds it."""
    return cast(Callable[..., asyncio.Protocol], import_from_string(HTTP_PROTOCOLS[name]))


class _Watched(asyncio.Transport):
    """The connection's transport as uvicorn's HTTP protocol sees it: every call goes
    to the real transport; a write also tells the gate that answer bytes went out, and
    ``set_protocol`` (a WebSocket upgrade) that the connection is no longer HTTP."""

    def __init__(self, transport: asyncio.Transport, gate: HeadGate) -> None:
        super().__init__()
        self.transport, self.gate = transport, gate

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.transport.write(data)
        self.gate.wrote(data)

    def writelines(self, list_of_data: Iterable[bytes | bytearray | memoryview]) -> None:
        self.write(b"".join(list_of_data))

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.gate.upgraded()
        # The upgraded protocol (``PlaySocket``) was given this object: its writes go
        # straight to the real transport from now on, not through the gate.
        self.write = self.transport.write  # type: ignore[method-assign]
        self.transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self.transport.get_protocol()

    def write_eof(self) -> None:
        self.transport.write_eof()

    def can_write_eof(self) -> bool:
        return self.transport.can_write_eof()

    def abort(self) -> None:
        self.transport.abort()

    def close(self) -> None:
        self.transport.close()

    def is_closing(self) -> bool:
        return self.transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.transport.get_extra_info(name, default)

    def pause_reading(self) -> None:
        self.transport.pause_reading()

    def resume_reading(self) -> None:
        self.transport.resume_reading()

    def is_reading(self) -> bool:
        return self.transport.is_reading()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self.transport.set_write_buffer_limits(high, low)

    def get_write_buffer_size(self) -> int:
        return self.transport.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self.transport.get_write_buffer_limits()


class HeadGate(asyncio.Protocol):
    """One HTTP connection: uvicorn's own HTTP/1.1 protocol (``inner``), made and
    driven through ``asyncio.Protocol``'s calls, behind a gate that reads only the
    bytes. ``guarded_protocol`` makes the class uvicorn is given, with its figures set.

    * The head timer: armed when the connection opens and by every write of an
      answer once no passed request waits for one, disarmed by a whole request head
      (its end, ``CRLF CRLF``, seen in the bytes); when it fires the connection closes.
      A body's end is found by its ``Content-Length``; after a body whose end is not
      known here (chunked) the next head is looked for once its answer went out.
    * The door: a request head from an address the ``Door`` remembers as refused,
      with no other request of the connection waiting for its answer, is held until
      it is whole; if the door refuses it, the refusal is written here and the request
      never reaches uvicorn (its small body is skipped, a big or chunked one never
      read: the connection closes after the refusal); else it goes on as it came.
    * The pace: a refusal is written when its address's turn comes (``Door.turn``,
      ``pace.RefusalPace``); till then the connection is not read (``pause_reading``)
      and its head timer stopped, and what had come after the refused head is read on
      once it is answered. A turn too far away closes the connection unanswered.
    * The line: bytes that begin a new request while the event loop is behind (or
      others wait) are kept, the connection is not read and its head timer stopped
      until the ``line`` (``line.DoorLine``) gives it its turn."""

    inner_class: ClassVar[Callable[..., asyncio.Protocol]]
    head_timeout_s: ClassVar[float] = 10.0
    door: ClassVar[Door | None] = None
    line: ClassVar[DoorLine | None] = None

    @staticmethod
    def silent() -> None:
        """Told of each connection closed for not sending a head in time."""

    def __init__(self, config: Any, server_state: Any, app_state: dict[str, Any], **_: Any) -> None:
        self.inner = self.inner_class(config=config, server_state=server_state, app_state=app_state)
        self.default_headers: list[tuple[bytes, bytes]] = server_state.default_headers
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.client: tuple[str, int] | None = None
        self.address: str | None = None
        """The client's address as quotas count it, if the door is kept here."""
        self.timer: asyncio.TimerHandle | None = None
        self.since = 0.0
        """When the head timer last started (it fires ``head_timeout_s`` after)."""
        self.waiting = 0
        """Whole request heads passed on whose answer has not started."""
        self.head = bytearray()
        """What has come of the request head being read."""
        self.held = False
        """The head being read is held back: the door may refuse it."""
        self.body = 0
        """Bytes of the last request's body still to come."""
        self.dropping = False
        """That body is a refused request's: not passed on."""
        self.opaque = False
        """The last body's end is not known here: no head is looked for till an answer."""
        self.done = False
        """Upgraded (WebSocket) or lost: nothing more to watch."""
        self.parked: asyncio.TimerHandle | None = None
        """A refusal waiting its turn (``Door.turn``): reading is paused till it is
        answered; what came after its head waits in ``backlog``."""
        self.backlog = b""
        self.in_line = False
        """Waiting in the door's line (``line.DoorLine``): reading is paused till its
        turn, and what came waits in ``backlog``."""

    # asyncio.Protocol, each passed on to uvicorn's protocol.

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        peer = self.transport.get_extra_info("peername")
        if isinstance(peer, tuple) and len(peer) >= 2:
            self.client = (str(peer[0]), int(peer[1]))
            if self.door is not None:
                self.address = self.door.key(self.client[0])
        self.inner.connection_made(_Watched(self.transport, self))
        self.arm()

    def data_received(self, data: bytes) -> None:
        if self.in_line:  # read before the pause took: kept for its turn
            self.backlog += data
            if self.transport is not None:
                self.transport.pause_reading()  # again, if uvicorn's flow control resumed it
            return
        if self.line is not None and self.starts_request() and self.line.waits(self.loop):
            assert self.transport is not None
            self.in_line, self.backlog = True, data
            self.disarm()  # its wait is the server's, not the client's slowness
            self.transport.pause_reading()
            self.line.wait(self.address or self.peer(), self.its_turn)
            return
        self.read(data)

    def starts_request(self) -> bool:
        """Whether bytes coming now begin a new request: nothing of one is being read
        and no answer is awaited (a request's body, a WebSocket's frames and requests
        sent while one waits for its answer never wait in line)."""
        return not (
            self.done
            or self.opaque
            or self.head
            or self.body
            or self.waiting
            or self.parked is not None
            or self.transport is None
        )

    def peer(self) -> str:
        return self.client[0] if self.client is not None else "unknown"

    def its_turn(self) -> None:
        """Its turn in the door's line: what came is read, and reading goes on."""
        self.in_line = False
        if self.done or self.transport is None:
            return
        backlog, self.backlog = self.backlog, b""
        self.arm()
        self.transport.resume_reading()
        self.read(backlog)

    def read(self, data: bytes) -> None:
        """Bytes read, past the line: the door looks at each request head."""
        if self.parked is not None:  # read before the pause took: kept for later
            self.backlog += data
            return
        if self.done or self.opaque:
            self.inner.data_received(data)
            return
        out: list[bytes] = []  # what goes on to uvicorn's protocol, in order
        start = at = 0  # data[start:at] is yet to go on
        size = len(data)
        while at < size and not self.opaque:
            if self.body:
                take = min(self.body, size - at)
                if self.dropping:
                    out.append(data[start:at])
                    start = at + take
                at += take
                self.body -= take
                self.dropping = self.dropping and self.body > 0
                continue
            if not self.head:
                self.held = self.holds()
            if self.held:
                out.append(data[start:at])
                start = at
            tail = bytes(self.head[-3:])
            found = (tail + data[at : at + 3]).find(_END)  # an end cut in two
            if found >= 0:
                stop = at + found + 4 - len(tail)
            else:
                found = data.find(_END, at)
                stop = found + 4
            if found < 0:  # the head goes on in the next bytes
                if len(self.head) + size - at > _HEAD_CAP:
                    self.give_up(out)
                    break
                self.head += data[at:]
                if self.held:
                    start = size
                break
            self.head += data[at:stop]
            head = bytes(self.head)
            self.head.clear()
            at = stop
            if self.held:
                start = stop
                if self.refused(head, out):
                    if self.done:
                        return
                    if self.parked is not None:
                        self.backlog = data[at:]
                        return
                    out.clear()
                    continue
                out.append(head)
            self.passed(head)
        if start == 0 and not out:
            self.inner.data_received(data)
            return
        out.append(data[start:])
        self.pass_on(out)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.done = True
        self.disarm()
        if self.in_line:  # its turn in line passes (``its_turn``)
            self.backlog = b""
        if self.parked is not None:
            self.parked.cancel()
            self.parked, self.backlog = None, b""
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    # The gate.

    def pass_on(self, out: list[bytes]) -> None:
        data = b"".join(out)
        if data:
            self.inner.data_received(data)

    def holds(self) -> bool:
        """Whether to hold the head that begins now (the door may refuse it)."""
        return (
            self.door is not None
            and not self.waiting
            and self.address in self.door.memory.by_address
        )

    def give_up(self, out: list[bytes]) -> None:
        """A head too long to keep: passed on as it is, for uvicorn to refuse."""
        if self.held:
            out.append(bytes(self.head))  # what came of it before these bytes
        self.head.clear()
        self.held = False
        self.opaque = True

    def passed(self, head: bytes) -> None:
        """A whole head passed on: its answer is awaited, and its body skipped."""
        if not head.strip(b"\r\n"):
            return  # blank lines before a request line, which HTTP lets a client send
        self.waiting += 1
        self.disarm()
        lower = head.lower()
        if not any(field in lower for field in _FRAMING):
            return  # no body (most requests): nothing more to read here
        try:
            body = _Head(head.lstrip(b"\r\n")).body
        except (ValueError, UnicodeDecodeError):
            body = None  # uvicorn's protocol answers it (400)
        if body is None:
            self.opaque = True
        else:
            self.body = body

    def refused(self, head: bytes, out: list[bytes]) -> bool:
        """Answer a held head here if the door refuses it (what came before it is
        passed on first); ``done`` when the connection closes after the answer."""
        assert self.door is not None and self.address is not None and self.client is not None
        try:
            request = _Head(head.lstrip(b"\r\n"))
        except (ValueError, UnicodeDecodeError):
            return False
        if not request.path:
            return False
        if any(name in (b"x-forwarded-for", b"upgrade") for name, _ in request.headers):
            return False  # the app's door knows whose address counts; a WebSocket passes
        found = self.door.answer(self.address, request.method, request.path, request.headers)
        if found is None:
            return False
        self.pass_on(out)
        if self.done or self.transport is None:
            return True
        wait = self.door.turn(self.address)
        if wait is None:  # asking far faster than it is answered: no answer at all
            self.done = True
            self.disarm()
            self.transport.close()
            return True
        if wait > 0:  # its turn comes later: nothing more is read till then
            self.disarm()
            self.transport.pause_reading()
            self.parked = self.loop.call_later(wait, self.answer, request, found)
            return True
        self.answer(request, found)
        return True

    def answer(self, request: _Head, found: tuple[int, list[tuple[bytes, bytes]], bytes]) -> None:
        """Write the door's refusal of ``request`` (``found``); then, if it was parked,
        read on."""
        parked, self.parked = self.parked, None
        if self.done or self.transport is None or self.client is None:
            return
        status, headers, body = found
        close = not request.keep_alive or (b"connection", b"close") in headers
        if close and (b"connection", b"close") not in headers:
            headers.append((b"connection", b"close"))
        lines = [b"HTTP/1.1 %d %s\r\n" % (status, _REASONS.get(status, b"Refused"))]
        for name, value in [*self.default_headers, *headers]:
            lines += [name, b": ", value, b"\r\n"]
        self.transport.write(b"".join([*lines, b"\r\n", body]))
        access = logging.getLogger("uvicorn.access")
        if access.hasHandlers():
            access.info(
                '%s - "%s %s HTTP/%s" %d',
                f"{self.client[0]}:{self.client[1]}",
                request.method,
                request.path,
                request.version,
                status,
            )
        if close:
            self.done = True
            self.disarm()
            self.transport.close()
            return
        self.body, self.dropping = request.body or 0, True  # small: skipped, never read
        self.arm()
        if parked is not None:
            backlog, self.backlog = self.backlog, b""
            self.transport.resume_reading()
            if backlog:
                self.data_received(backlog)

    def wrote(self, data: bytes | bytearray | memoryview) -> None:
        """uvicorn's protocol wrote ``data``: an answer's status line starts an answer
        (an interim ``100 Continue`` does not); once none is awaited the timer runs."""
        if self.done:
            return
        if self.waiting:
            line = bytes(data[:10])
            if line[:9] == b"HTTP/1.1 " and line[9:] != b"1":
                self.waiting -= 1
        if not self.waiting:
            self.opaque = False  # an answer went out: what comes next is a new head
            self.arm()

    def upgraded(self) -> None:
        """The connection is a WebSocket now: no more heads."""
        self.done = True
        self.disarm()

    def arm(self) -> None:
        """Start the head timer again from now."""
        self.since = self.loop.time()
        if self.timer is None:
            self.timer = self.loop.call_at(self.since + self.head_timeout_s, self.too_slow)

    def disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def too_slow(self) -> None:
        self.timer = None
        due = self.since + self.head_timeout_s
        if self.loop.time() < due:  # restarted since it was set
            self.timer = self.loop.call_at(due, self.too_slow)
        elif self.transport is not None and not self.transport.is_closing():
            self.silent()
            self.transport.close()


def guarded_protocol(
    timeout_s: float,
    silent: Callable[[], None],
    http: str = "h11",
    door: Door | None = None,
    line: DoorLine | None = None,
) -> type[asyncio.Protocol]:
    """The HTTP protocol class to give uvicorn (``uvicorn.Config(http=...)``): uvicorn's
    own (``http``: ``h11`` or ``httptools``) behind a ``HeadGate`` that closes a
    connection whose request head is not whole ``timeout_s`` after it opened or was
    last answered (``silent()`` is told), answers a request the ``door`` refuses at
    its head, and keeps a new request waiting unread in ``line`` while the event loop
    is behind."""
    if http not in ("h11", "httptools"):
        raise ValueError(f"unknown HTTP protocol {http!r}: h11 or httptools")
    attributes = {
        "inner_class": _http_class(http),
        "head_timeout_s": timeout_s,
        "silent": staticmethod(silent),
        "door": door,
        "line": line,
    }
    name = "GuardedH11" if http == "h11" else "GuardedHttpTools"
    return type(name, (HeadGate,), attributes)
