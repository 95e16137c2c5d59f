"""Sharing a table over HTTP: where a typed invite leads, the invite dialog's links and
the invite link as a QR code (``invites.py`` makes and checks invites).

* ``GET /api/invites/{invite}``: the table an invite (or a public table's code) opens,
  ``{"code", "link"}``;
* ``GET /api/tables/{code}/invite``: ``invites.links`` for someone holding the key;
* ``GET /api/tables/{code}/qr.svg``: the invite link as an SVG QR code (``segno``),
  the link built from the site's public URL (``site.Site.base``), never from the
  request's ``Host``. The watch secret and the QR code are kept once made
  (``invites.watch_key``, ``invites.qr_svg``): opening the dialog again costs little.

Each is a lookup by a code or a secret: an unknown code, a wrong invite and a private
table asked for without its key all get the same ``404 unknown_table``, each counting
as a miss against the address, and an address over ``Limits.misses_per_minute`` is
refused every lookup (``429 too_many_misses``) until it has waited.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nertz.server.cluster.quotas import shared_lookup, shared_missed
from nertz.server.door.edge import client_address
from nertz.server.http.services import Services
from nertz.server.lobby.invites import grouped, invite_form, qr_svg, watch_key
from nertz.server.lobby.lobby import CODE_LENGTH, Entry, Lobby, LobbyError, unknown_table

__all__ = ["links", "sharing_routes"]


def links(entry: Entry, key: str | None) -> dict[str, Any]:
    """What the invite dialog shows, for someone holding ``key`` (None at a public
    table): ``invite`` (what to type; None for a key older than invites), ``link``,
    ``watch`` (None when the table has no watch link) and ``qr``."""
    code = entry.code
    if entry.key_hash is None:
        return {
            "invite": code,
            "link": f"/t/{code}",
            "watch": f"/t/{code}?watch",
            "qr": f"/api/tables/{code}/qr.svg",
        }
    assert key is not None
    invite = invite_form(key)
    secret = invite or key
    watch = None
    if entry.watch_hash is not None:
        watch = f"/t/{code}?watch={watch_key(secret)}"
    return {
        "invite": None if invite is None else grouped(invite),
        "link": f"/t/{code}?key={secret}",
        "watch": watch,
        "qr": f"/api/tables/{code}/qr.svg?key={secret}",
    }


def sharing_routes(services: Services) -> list[BaseRoute]:
    """The sharing routes."""

    def guarded(
        handler: Callable[[Request, Lobby], Any],
    ) -> Callable[[Request], Any]:
        """A lookup by code or secret: refused while the address is over its misses;
        a miss (``unknown_table``) counts against it."""

        async def run(request: Request) -> Response:
            address = client_address(request.scope)
            refusal = await shared_lookup(services.cluster, services.quotas, address)
            if refusal is not None:
                services.metrics.refused(refusal.code)
                return refusal.response()
            try:
                response: Response = await handler(request, services.lobby)
            except LobbyError as error:
                if error.code == "unknown_table":
                    await shared_missed(services.cluster, services.quotas, address)
                return error.response()
            return response

        return run

    def keyed(request: Request, lobby: Lobby) -> tuple[Entry, str | None]:
        code = request.path_params["code"]
        entry = lobby.find(code)
        key = request.query_params.get("key")
        if entry.key_hash is not None and not entry.key_ok(key):
            raise unknown_table(code)  # the same answer: private codes cannot be probed
        return entry, key

    @guarded
    async def follow(request: Request, lobby: Lobby) -> Response:
        text = request.path_params["invite"]
        invite = invite_form(text)
        if invite is not None:
            entry = lobby.by_invite(invite)
            return JSONResponse({"code": entry.code, "link": f"/t/{entry.code}?key={invite}"})
        code = "".join(ch for ch in text.upper() if ch.isalnum())
        if len(code) == CODE_LENGTH:
            entry = lobby.find(code)
            if entry.key_hash is None:
                return JSONResponse({"code": entry.code, "link": f"/t/{entry.code}"})
        raise unknown_table(text)

    @guarded
    async def invite(request: Request, lobby: Lobby) -> Response:
        entry, key = keyed(request, lobby)
        shared = await asyncio.to_thread(links, entry, key)  # the watch key's rounds
        return JSONResponse(shared)

    @guarded
    async def qr(request: Request, lobby: Lobby) -> Response:
        entry, key = keyed(request, lobby)
        base = services.site.base  # never the request's Host: it could be anyone's
        shared = await asyncio.to_thread(links, entry, key)
        link = base + shared["link"]
        return Response(
            # Drawn once for all who ask at once (the cache keeps it after), in one of
            # the makers' few slots: pure Python, it holds the GIL while it draws.
            await services.makers.make(("qr", link), partial(qr_svg, link)),
            media_type="image/svg+xml",
            headers={"Cache-Control": "private, max-age=3600"},
        )

    return [
        Route("/api/invites/{invite}", follow, methods=["GET"]),
        Route("/api/tables/{code}/invite", invite, methods=["GET"]),
        Route("/api/tables/{code}/qr.svg", qr, methods=["GET"]),
    ]
