"""The ratings over HTTP (``lobby/standings.py``; docs/protocol.md, "Ratings"): what
players see of them (issue 26, point 4). Read-only; nothing a client sends changes a
rating (``lobby/ratings.py`` rates from the store alone).

* ``GET /api/ratings/{mode}`` (``solo`` or ``partners``; ``?page=N``, from 1, at most
  ``LEADERBOARD_PAGES``): the mode's leaderboard, established players only (name, shown
  rating, rated matches), ``LEADERBOARD_PAGE`` a page. ``404 unknown_mode``, ``400
  bad_page``.
* ``GET /api/players/{name}``: the player whose account holds ``name``: each mode's
  rating (with "?" while provisional), its history and their rated matches, each
  linking to its match page. ``404 unknown_player``.
* The pages ``/ratings`` (the leaderboards) and ``/p/{name}`` (a player).

Both APIs are a quota of the client's address, with a player's history
(``Limits.histories_per_minute``, ``429 too_many_histories``): each reads the store.
"""

from __future__ import annotations

import asyncio
import time

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nertz.rating import MODES
from nertz.server.door.requests import error_response
from nertz.server.http.me import history_refusal
from nertz.server.http.services import Services
from nertz.server.http.web import page
from nertz.server.lobby.standings import LEADERBOARD_PAGES, leaderboard, player

__all__ = ["ratings_routes"]

_NAME_MAX = 64
"""A name in a path longer than this is no account's (``lobby.NAME_MAX`` is 24)."""


def ratings_routes(services: Services) -> list[BaseRoute]:
    """The routes above."""

    async def board(request: Request) -> Response:
        if (refusal := await history_refusal(services, request)) is not None:
            return refusal
        mode = request.path_params["mode"]
        if mode not in MODES:
            return error_response(
                "unknown_mode", f"ratings are kept for the modes {', '.join(MODES)}", 404
            )
        asked = request.query_params.get("page", "1")
        if not asked.isdigit() or not 1 <= int(asked) <= LEADERBOARD_PAGES:
            return error_response(
                "bad_page", f"a leaderboard's page is a number from 1 to {LEADERBOARD_PAGES}"
            )
        body = await asyncio.to_thread(
            leaderboard, services.store.engine, mode, int(asked), time.time()
        )
        return JSONResponse(body)

    async def one_player(request: Request) -> Response:
        if (refusal := await history_refusal(services, request)) is not None:
            return refusal
        name = request.path_params["name"]
        found = None
        if len(name) <= _NAME_MAX:
            found = await asyncio.to_thread(player, services.store.engine, name, time.time())
        if found is None:
            return error_response("unknown_player", f"no account holds the name {name!r}", 404)
        return JSONResponse(found)

    async def html(request: Request) -> Response:
        return page(request)

    return [
        Route("/api/ratings/{mode}", board, methods=["GET"]),
        Route("/api/players/{name}", one_player, methods=["GET"]),
        Route("/ratings", html),
        Route("/p/{name}", html),
    ]
