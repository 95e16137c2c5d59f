"""The site's own: which ``Host`` and ``Origin`` are this server's, what a request that
changes something must carry, and the headers every answer sends.

A page of another site can make a visitor's browser send requests here, with the
visitor's address (and so the visitor's quotas): a form or a ``fetch`` in ``no-cors``
mode may POST a ``text/plain`` body, and a page on a name the attacker points at this
machine (DNS rebinding) is "same-origin" to its own name. So (``SiteGuard``):

* ``Host`` must be one of the configured public hosts (``Config.public_urls``), an IP
  address or ``localhost``, else ``421 unknown_host`` (a WebSocket: refused, 403).
  Rebinding needs a name of the attacker's, which is none of these.
* A request that changes something (POST, PUT, PATCH, DELETE) that carries an
  ``Origin`` (every browser's does) must come from the site itself: one of the public
  origins, an ``--allow-origin``, or its own ``Host``; else ``403 cross_site``. One
  with no ``Origin`` (a program, not a browser) must say ``Content-Type:
  application/json``, else ``415 not_json``: a foreign page can send that type only
  after a CORS preflight, which the server refuses (no route answers ``OPTIONS``).
  Programs that send JSON (the documented clients, the bots) are unchanged.
* Every answer says ``X-Content-Type-Options: nosniff``, ``Referrer-Policy:
  same-origin`` (a private table's invite is in its link), ``X-Frame-Options: DENY``
  and a ``Content-Security-Policy`` (scripts only from the site, ``frame-ancestors
  'none'``).

Links shown to people (the QR code) are built from the first public URL
(``Site.base``), never from the request's ``Host``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

import msgspec
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["SECURITY_HEADERS", "Site", "SiteGuard", "is_ip_address", "public_url"]

_CHANGES = frozenset(("POST", "PUT", "PATCH", "DELETE"))
_WILDCARDS = ("0.0.0.0", "::", "")

SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        b"img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; "
        b"base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
]
"""Sent with every HTTP answer (pages, files and JSON alike)."""


def public_url(text: str) -> str:
    """``text`` as a public URL, ``scheme://host[:port]`` (``ValueError`` naming what is
    wrong): http or https, a host, no path, query or fragment."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"--public-url {text!r}: give http(s)://HOST[:PORT]")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise ValueError(f"--public-url {text!r}: only a scheme, a host and a port")
    return f"{parts.scheme}://{parts.netloc.lower()}"


def is_ip_address(name: str) -> bool:
    """Is the host ``name`` an IP address (not a name)?"""
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Site:
    """The server's public face: its URLs (the first builds links), the hosts and the
    origins that are its own."""

    urls: tuple[str, ...]
    origins: frozenset[str]
    hosts: frozenset[str]

    @classmethod
    def of(
        cls, urls: Iterable[str], host: str, port: int, allowed_origins: Iterable[str] = ()
    ) -> Site:
        """The site of ``urls`` (``public_url`` each); none given: the listening
        address, ``http://host:port`` (``127.0.0.1`` for a wildcard), as ``make play``
        and the tests reach it."""
        found = tuple(public_url(url) for url in urls)
        if not found:
            shown = "127.0.0.1" if host in _WILDCARDS else host
            shown = f"[{shown}]" if ":" in shown else shown
            found = (f"http://{shown}:{port}",)
        hosts = frozenset(urlsplit(url).netloc for url in found)
        return cls(found, frozenset(found) | frozenset(allowed_origins), hosts)

    @property
    def base(self) -> str:
        """The URL links are built from (the first public URL)."""
        return self.urls[0]

    def host_ok(self, host: str | None) -> bool:
        """Is ``host`` (a ``Host`` header) this server's: a public host, an IP address
        or ``localhost``? None (HTTP/1.0, no header): yes, no browser sends none."""
        if host is None:
            return True
        host = host.lower()
        if host in self.hosts:
            return True
        name = urlsplit(f"//{host}").hostname
        if name is None:
            return False
        return name == "localhost" or is_ip_address(name)

    def origin_ok(self, origin: str, host: str | None) -> bool:
        """Is ``origin`` (an ``Origin`` header) the site's own: a public origin, an
        allowed one, or the origin of the ``host`` the request came to?"""
        if origin in self.origins:
            return True
        return host is not None and self.host_ok(host) and urlsplit(origin).netloc == host


def _refusal(status: int, code: str, reason: str) -> tuple[Message, Message]:
    body = msgspec.json.encode({"error": code, "reason": reason})
    start: Message = {
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *SECURITY_HEADERS,
        ],
    }
    return start, {"type": "http.response.body", "body": body}


class SiteGuard:
    """ASGI middleware: the ``Host``, ``Origin`` and ``Content-Type`` checks and the
    security headers (the module's docstring); ``refused(code)`` is told of each
    refusal (metrics)."""

    def __init__(
        self, app: ASGIApp, site: Site, refused: Callable[[str], None] = lambda code: None
    ) -> None:
        self.app, self.site, self.refused = app, site, refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = origin = content_type = None
        for name, value in scope["headers"]:
            if name == b"host":
                host = value.decode("latin-1")
            elif name == b"origin":
                origin = value.decode("latin-1")
            elif name == b"content-type":
                content_type = value.decode("latin-1")
        refusal = None
        if not self.site.host_ok(host):
            refusal = (
                421,
                "unknown_host",
                f"this server is {self.site.base}, not {host!r}: use its own address",
            )
        elif kind == "http" and scope["method"] in _CHANGES:
            if origin is not None:
                if not self.site.origin_ok(origin, host):
                    refusal = (
                        403,
                        "cross_site",
                        f"a page of another site ({origin}) may not change anything here",
                    )
            elif content_type is None or (
                content_type.split(";", 1)[0].strip().lower() != "application/json"
            ):
                refusal = (
                    415,
                    "not_json",
                    "a request that changes something must send Content-Type: "
                    "application/json (docs/protocol.md)",
                )
        if refusal is not None:
            self.refused(refusal[1])
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 1008, "reason": refusal[1]})
                return
            for message in _refusal(*refusal):
                await send(message)
            return
        if kind == "websocket":
            await self.app(scope, receive, send)
            return

        async def headed(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *SECURITY_HEADERS]}
            await send(message)

        await self.app(scope, receive, headed)
