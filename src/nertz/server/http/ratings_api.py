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
* ``GET /api/tables/{code}/ratings`` (``?key=`` for a private table, as watching it):
  a rated table's places with their ratings (``lobby/standings.seated``): as of now
  until the match is rated, then the rating before, after and the change. ``404
  unknown_table`` (also a private table without its key), ``404 not_rated``.
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

from nertz.bots import parse_seat
from nertz.rating import MODES, mode_of
from nertz.server.door.requests import error_response
from nertz.server.http.me import history_refusal
from nertz.server.http.services import Services
from nertz.server.http.web import page
from nertz.server.lobby.lobby import Entry, LobbyError, unknown_table
from nertz.server.lobby.ratings import RATED_MATCH
from nertz.server.lobby.standings import LEADERBOARD_PAGES, Seated, leaderboard, player, seated

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

    async def table_ratings(request: Request) -> Response:
        if (refusal := await history_refusal(services, request)) is not None:
            return refusal
        code, key = request.path_params["code"], request.query_params.get("key")
        try:
            entry = services.lobby.find(code)
            if not entry.watch_ok(key):
                raise unknown_table(code)  # private codes cannot be probed
        except LobbyError as error:
            return error.response()
        table = entry.table
        if not table.settings.rated:
            return error_response("not_rated", f"table {entry.code} is not a rated table", 404)
        mode = mode_of(table.rules.partnerships)
        body = await asyncio.to_thread(
            seated,
            services.store.engine,
            entry.id,
            RATED_MATCH,
            mode,
            _places(entry),
            time.time(),
        )
        return JSONResponse({"mode": mode, "places": body})

    async def html(request: Request) -> Response:
        return page(request)

    return [
        Route("/api/ratings/{mode}", board, methods=["GET"]),
        Route("/api/players/{name}", one_player, methods=["GET"]),
        Route("/api/tables/{code}/ratings", table_ratings, methods=["GET"]),
        Route("/ratings", html),
        Route("/p/{name}", html),
    ]


def _places(entry: Entry) -> list[Seated]:
    """The rated table's places as they stand: whose account, or which bot level."""
    out = []
    for place in entry.table.places:
        # Every level has a fixed rating (tests/rating: BOT_RATINGS covers LEVELS); a
        # rated table seats no outside bot (seats.outside_refusal).
        level = None if place.bot is None or place.outside else parse_seat(place.bot).level
        if level is None and place.account is None:
            continue
        out.append(Seated(place.number, place.partner, place.name, place.account, level))
    return out
