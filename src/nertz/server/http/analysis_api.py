"""A finished hand analysed for a seat (``lobby/analysis.py``, ``nertz.analysis``):

* ``GET /api/matches/{id}/analysis?hand=N&seat=S``: the seat's cards to
  the middle and Nertz cards left (R29), each card it let wait at least two seconds
  (how long, from where, how the chance ended), the races it won and lost (R16), and
  how many Nertz cards working the pile first at its own pace would have left.
* ``GET /api/matches/{id}/advice?hand=N&seat=S&t=MS``: the expert bots'
  move for that seat ``t`` ms after Go, from what the seat saw then.

``hand`` is the table's own number of the hand, as the replay viewer counts them
(``/replay/{id}?hand=N``), ``seat`` counts from 0. Whoever holds the match's id may
ask, as for its replay; a match still played is refused (``409 match_in_progress``),
and so is a try at a daily deal whose day is not over, to anyone who has not played
that deal (``409 daily_withheld``, ``daily_api.daily_refusal``). Both replay a hand with
the engine: costly reads at the door (``edge.request_kind``), computed off the event
loop, at most ``WORKERS`` at once with at most ``WAITING`` more queued (``503 busy``
beyond, with ``Retry-After``), and the analyses kept once made (a finished hand never
changes).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from nertz.server.door.requests import RequestError, error_response
from nertz.server.http.daily_api import daily_refusal
from nertz.server.http.kept import Kept
from nertz.server.http.replay_api import match_refusal
from nertz.server.http.services import Services
from nertz.server.lobby.analysis import MAX_MOMENT_MS, hand_advice, hand_analysis

__all__ = ["ANALYSES_BYTES", "WAITING", "WORKERS", "analysis_routes"]

ANALYSES_BYTES = 4 * 1024 * 1024
"""The analyses and advice kept, in bytes of their answers (one is about 1-3 KB)."""
WORKERS = 2
"""Analyses computed at once: each is CPU work; more than the cores gains nothing."""
WAITING = 16
"""Analyses queued behind those before ``503 busy``: no crowd of askers can queue
unbounded work on the server's threads."""
_MAX_HAND = 10**9
_MAX_SEAT = 7


def analysis_routes(services: Services) -> list[BaseRoute]:
    """The two routes above, reading the store of ``services`` (once started)."""
    kept: Kept[tuple[Any, ...], bytes] = Kept(ANALYSES_BYTES, len)
    gate = _Gate(WORKERS, WAITING)

    async def answer(
        request: Request, key: tuple[Any, ...], work: Callable[[], dict[str, Any]]
    ) -> Response:
        refused = await daily_refusal(services, request, key[1])
        if refused is not None:
            return refused
        body = kept.get(key)
        if body is None:
            if not gate.admits():
                busy = error_response(
                    "busy", "too many analyses are being made: ask again in a moment", 503
                )
                busy.headers["Retry-After"] = "2"
                return busy
            try:
                async with gate:
                    found = await asyncio.to_thread(work)
            except RequestError as error:
                return match_refusal(services, key[1], error)
            body = json.dumps(found, separators=(",", ":")).encode()
            kept.keep(key, body)
        return Response(body, media_type="application/json")

    async def analysis(request: Request) -> Response:
        try:
            hand, seat = _where(request)
        except RequestError as error:
            return error.response()
        table_id = request.path_params["match"]
        engine = services.store.engine
        return await answer(
            request,
            ("analysis", table_id, hand, seat),
            lambda: hand_analysis(engine, table_id, hand, seat),
        )

    async def advice(request: Request) -> Response:
        try:
            hand, seat = _where(request)
            at_ms = _whole(request, "t", 0, MAX_MOMENT_MS, "a moment of the hand in ms")
        except RequestError as error:
            return error.response()
        if at_ms is None:
            return error_response("bad_moment", "t (ms after Go) is required")
        table_id = request.path_params["match"]
        engine = services.store.engine
        return await answer(
            request,
            ("advice", table_id, hand, seat, at_ms),
            lambda: hand_advice(engine, table_id, hand, seat, at_ms),
        )

    return [
        Route("/api/matches/{match}/analysis", analysis, methods=["GET"]),
        Route("/api/matches/{match}/advice", advice, methods=["GET"]),
    ]


def _where(request: Request) -> tuple[int, int]:
    """``hand`` and ``seat`` from the query, or the ``RequestError`` naming the one that
    is wrong."""
    hand = _whole(request, "hand", 1, _MAX_HAND, "a hand's number at the table")
    seat = _whole(request, "seat", 0, _MAX_SEAT, "a seat of the table, from 0")
    if hand is None:
        raise RequestError("bad_hand", "hand (from 1) is required")
    if seat is None:
        raise RequestError("bad_seat", "seat (from 0) is required")
    return hand, seat


def _whole(request: Request, name: str, least: int, most: int, what: str) -> int | None:
    """The query's whole number ``name`` between ``least`` and ``most``, or None if it is
    not given; ``bad_<name>`` naming the bounds otherwise."""
    text = request.query_params.get(name)
    if text is None:
        return None
    if not (len(text) <= len(str(most)) and text.isascii() and text.isdigit()):
        raise RequestError(f"bad_{_CODES[name]}", f"{name} is {what}, {least} to {most}")
    value = int(text)
    if not least <= value <= most:
        raise RequestError(f"bad_{_CODES[name]}", f"{name} is {what}, {least} to {most}")
    return value


_CODES = {"hand": "hand", "seat": "seat", "t": "moment"}


class _Gate:
    """At most ``workers`` holders at once and ``waiting`` more queued for it."""

    def __init__(self, workers: int, waiting: int) -> None:
        self._slots = asyncio.Semaphore(workers)
        self._most = workers + waiting
        self._holders = 0

    def admits(self) -> bool:
        return self._holders < self._most

    async def __aenter__(self) -> None:
        self._holders += 1
        try:
            await self._slots.acquire()
        except BaseException:
            self._holders -= 1
            raise

    async def __aexit__(self, *_: object) -> None:
        self._slots.release()
        self._holders -= 1
