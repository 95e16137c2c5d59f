"""The finished matches (docs/protocol.md): ``GET /api/matches`` the list, ``GET
/api/matches/{id}`` one match's hands, scores and full event log (each answer kept
once made: ``kept.FinishedMatches``). A match hand by hand is ``me.py``'s."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nertz.server.door.requests import error_response
from nertz.server.http.kept import FinishedMatches
from nertz.server.http.services import Services

__all__ = ["matches_routes"]


def matches_routes(services: Services) -> list[BaseRoute]:
    """The routes above."""

    async def matches(request: Request) -> JSONResponse:
        rows = await asyncio.to_thread(services.store.history)
        return JSONResponse({"matches": rows})

    finished = FinishedMatches(services.makers)

    async def match(request: Request) -> Response:
        body = await finished.get(services.store.engine, request.path_params["match"])
        if body is None:
            return error_response("unknown_match", "no finished match with that id", 404)
        return Response(body, media_type="application/json")

    return [
        Route("/api/matches", matches, methods=["GET"]),
        Route("/api/matches/{match}", match, methods=["GET"]),
    ]
