"""The replay viewer: its page and the hands it shows (``lobby/replays.py``).

* ``/replay/{id}`` (``?hand=N&t=MS&seat=S``) and ``/replay``: the client's page, whose
  router opens the viewer (``web/js/replay/page.js``).
* ``GET /api/matches/{id}/replay?hand=N``: hand ``N`` (the table's number; by default
  the first of its last finished match) as a timeline: every seat's cards at Go, then
  each change with its time. Whoever holds the match's id may read it, as its notation
  (``notation_api.py``); a hand of the match still played is refused (``409
  match_in_progress``); ``400 bad_hand`` for a malformed number or no hand of a
  finished match; a try at a daily deal whose day is not over only to those who
  played that deal (``409 daily_withheld``, ``daily_api.daily_refusal``). A costly read
  at the door (``edge.request_kind``); made off the
  event loop and kept once made (``REPLAY_BYTES`` of answers, the most recently
  asked), since a finished hand never changes. An answer is bounded: a hand of more
  than ``MAX_HAND_INPUTS`` inputs is refused (``413 hand_too_large``).
* ``POST /api/replays`` ``{"text": "..."}``: a notation file a person opened in the
  viewer, read with ``MatchText.parse`` (docs/notation.md) and given back as every
  hand's timeline. At most ``FILE_BYTES`` of text (``413 file_too_large``; the door's
  body limit for this path is ``FILE_BODY_BYTES``); ``400 bad_notation`` names the
  line and the fault. A costly request at the door; nothing is kept or stored.
"""

from __future__ import annotations

import asyncio

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from nertz.server.door.requests import RequestError, decode_body, error_response
from nertz.server.http.daily_api import daily_refusal
from nertz.server.http.kept import Kept
from nertz.server.http.services import Services
from nertz.server.http.web import page
from nertz.server.lobby.replays import file_replay, in_progress, stored_replay

__all__ = [
    "FILE_BODY_BYTES",
    "FILE_BYTES",
    "REPLAY_BYTES",
    "ReplayFile",
    "match_refusal",
    "replay_routes",
]

REPLAY_BYTES = 32 * 1024 * 1024
"""The hands' answers kept, in bytes (a hand of four greedy seats is 11-32 KB)."""
FILE_BYTES = 256 * 1024
"""The longest notation file the viewer opens, in bytes of UTF-8: some seven times a
14-hand match of four expert bots (36 KB), and read and replayed in well under a
second."""
FILE_BODY_BYTES = 2 * FILE_BYTES + 1024
"""The body of ``POST /api/replays`` (``FILE_BYTES`` of text, written in JSON: every
line break escaped)."""
_MAX_HAND = 10**9
"""A hand's number at a table is at most this (``match_text.MAX_HAND_NUMBER``)."""

_KEEP = "private, max-age=86400"
"""How long a browser keeps a hand it was given."""


class ReplayFile(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/replays``: the text of a notation file."""

    text: str


def _hand(asked: str | None) -> int | None:
    """The ``hand`` asked for (None: not given); ``bad_hand`` if it is no hand number."""
    if asked is None:
        return None
    digits = len(asked) <= 10 and asked.isascii() and asked.isdigit()
    if not (digits and 1 <= int(asked) <= _MAX_HAND):
        raise RequestError(
            "bad_hand", f"hand is a hand's number at the table, 1 to {_MAX_HAND}, not {asked!r}"
        )
    return int(asked)


def match_refusal(services: Services, table_id: str, error: RequestError) -> Response:
    """The answer for ``error``, raised reading match ``table_id`` from the store: a
    table the lobby still plays is a match in progress (409) even before the store has
    written it (its row follows the answer that made it), never an unknown one."""
    if error.code == "unknown_match" and services.lobby.plays(table_id):
        return in_progress().response()
    return error.response()


def replay_routes(services: Services) -> list[BaseRoute]:
    """The routes above, reading the store of ``services`` (once started)."""
    kept: Kept[tuple[str, int], bytes] = Kept(REPLAY_BYTES, len)

    async def html(request: Request) -> Response:
        return page(request)

    async def hand(request: Request) -> Response:
        table_id = request.path_params["match"]
        refused = await daily_refusal(services, request, table_id)
        if refused is not None:
            return refused
        try:
            number = _hand(request.query_params.get("hand"))
            body = kept.get((table_id, number)) if number is not None else None
            if body is None:
                found = await asyncio.to_thread(
                    stored_replay, services.store.engine, table_id, number
                )
                body = msgspec.json.encode(found)
                kept.keep((table_id, found["hand"]), body)
        except RequestError as error:
            return match_refusal(services, table_id, error)
        # A finished hand never changes: the browser keeps it (a reload asks for nothing).
        return Response(body, media_type="application/json", headers={"Cache-Control": _KEEP})

    async def from_file(request: Request) -> Response:
        try:
            text = (await decode_body(request, ReplayFile, "notation file")).text
        except RequestError as error:
            return error.response()
        size = len(text.encode())
        if size > FILE_BYTES:
            return error_response(
                "file_too_large",
                f"the file is {size} bytes; the viewer opens notation files of at most "
                f"{FILE_BYTES} bytes",
                413,
            )
        try:
            found = await asyncio.to_thread(file_replay, text)
        except RequestError as error:
            return error.response()
        return Response(msgspec.json.encode(found), media_type="application/json")

    return [
        Route("/replay", html),
        Route("/replay/{match}", html),
        Route("/api/matches/{match}/replay", hand, methods=["GET"]),
        Route("/api/replays", from_file, methods=["POST"]),
    ]
