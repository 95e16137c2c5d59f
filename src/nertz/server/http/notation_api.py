"""``GET /api/matches/{id}/notation``: a finished match in the match notation
(docs/notation.md), for a replay in the terminal (``nertz replay FILE``) or elsewhere.

``?number=N`` names the match of the table's series (by default its last finished
one). Whoever holds the match's id may read it, as ``GET /api/matches/{id}``: the id is
listed for a public table, given to the people who played it (``GET /api/me``) and to
those who hold a private table's link (``GET /api/tables/{code}?key=``). A match still
being played is refused (``409 match_in_progress``): its seeds and face-down cards never
leave the server before it is over; so is a try at a daily deal whose day is not over
(``409 daily_withheld``, ``lobby/daily.py``): everyone plays that deal all day.

A costly read: the door counts it against ``costly_per_minute`` (``edge.request_kind``);
its text is made off the event loop and kept once made (``NOTATION_BYTES`` of them, the
most recently asked), since a finished match never changes.
"""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from nertz.server.door.requests import RequestError, error_response
from nertz.server.http.kept import Kept
from nertz.server.http.replay_api import match_refusal
from nertz.server.http.services import Services
from nertz.server.lobby.notation import match_notation

__all__ = ["NOTATION_BYTES", "notation_routes"]

NOTATION_BYTES = 32 * 1024 * 1024
"""The notations kept, in bytes (a 14-hand match of four expert bots is 36 KB)."""
_MAX_NUMBER = 1_000_000


def notation_routes(services: Services) -> list[BaseRoute]:
    """The route above, reading the store of ``services`` (once started)."""
    kept: Kept[tuple[str, int], tuple[str, bytes]] = Kept(NOTATION_BYTES, lambda a: len(a[1]))

    async def notation(request: Request) -> Response:
        table_id = request.path_params["match"]
        asked = request.query_params.get("number")
        number: int | None = None
        if asked is not None:
            digits = len(asked) <= 7 and asked.isascii() and asked.isdigit()
            if not (digits and 1 <= int(asked) <= _MAX_NUMBER):
                return error_response(
                    "bad_number", f"number is a match of the series, 1 to {_MAX_NUMBER}"
                )
            number = int(asked)
        withheld = await asyncio.to_thread(services.daily.withheld, table_id)
        if withheld is not None:
            return error_response(
                "daily_withheld",
                f"this match was a try at the daily deal of {withheld}: its deal stays on the "
                "server until that day is over (midnight UTC)",
                409,
            )
        answer = kept.get((table_id, number)) if number is not None else None
        if answer is None:
            try:
                found = await asyncio.to_thread(
                    match_notation, services.store.engine, table_id, number
                )
            except RequestError as error:
                return match_refusal(services, table_id, error)
            number, answer = found.number, (found.code, found.text.encode())
            kept.keep((table_id, found.number), answer)
        code, body = answer
        disposition = f'inline; filename="nertz-{code}-{number}.txt"'
        return Response(
            body,
            media_type="text/plain; charset=utf-8",
            headers={"Content-Disposition": disposition},
        )

    return [Route("/api/matches/{match}/notation", notation, methods=["GET"])]
