"""The browser client's side of the server: the static client, its pages, the
score sheet's HTTP API and a test-only hook.

Pages (every one is ``index.html``; the client's router picks the screen):
``/`` home, ``/t/{code}`` a table, ``/learn`` the guided first hand, ``/rules`` the
rules, ``/sheet`` a new score sheet and ``/sheet/{id}`` a stored one. Static files (ES
modules, CSS) are under ``/static``.

``GET /api/rules``: every table option as the engine declares it (``OPTIONS``: name,
type, default, allowed values or range, label, help, rule, whether a score sheet uses
it), the named presets and the plain choices of bots ("Relaxed", "Even", "Sharp", "Fierce",
each with its seat specs); the home page, the rules and the score sheet build their
forms from it, so the client keeps no list of options or bots of its own.

Score sheet API (``sheets.py`` checks and computes; docs/protocol.md lists it):

* ``POST /api/sheets`` ``{"names", "options"}`` -> ``201`` the sheet with ``id`` and ``link``
  (``429 too_many_sheets`` past ``Limits.sheets_per_hour`` from one address);
* ``GET /api/sheets/{id}`` the sheet: names, options, hands, ``scored`` (each hand's
  scores and running totals), ``totals``, ``over``, ``winners``;
* ``PUT /api/sheets/{id}`` ``{"names", "options", "hands"}`` replaces the whole sheet;
* ``POST /api/sheets/{id}/hands`` adds a hand ``{"middle", "nertz_left", "caller", "void"}``;
* ``PUT /api/sheets/{id}/hands/{n}`` replaces hand ``n`` (from 1): edit it, or void it;
* ``GET /api/sheets/{id}/csv`` the sheet as CSV.

Errors are ``{"error", "reason"}`` (400 ``bad_json``, ``bad_field``, ``bad_names``,
``bad_option``, ``bad_hand``, ``bad_count``, ``bad_caller``, ``too_many_hands``,
``match_over``; 404
``unknown_sheet``, ``no_such_hand``); a refused change stores nothing.

Test hook (only with ``Config.test_hooks``, never in ``nertz serve``): ``POST
/api/test/tables`` takes the body of ``POST /api/tables`` plus ``layouts`` (and
``middle``) in ``Deal.from_layouts`` form: every hand of that table is dealt from them,
so browser tests know the cards; ``"rated": true`` makes it a rated table (which only
the server makes otherwise: quick match). It answers the table's ``code`` and ``link``, and for
a private table (``"public": false``) its ``key`` too, in the link as well.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from nertz.bots import CHOICES, DEFAULT_LEVEL, DEFAULT_STYLE, LEVELS, STYLES
from nertz.engine import OPTIONS, PRESETS, Deal
from nertz.server.cluster.quotas import shared_rate
from nertz.server.door.edge import client_address
from nertz.server.door.limits import Refusal
from nertz.server.door.requests import RequestError, decode_body
from nertz.server.http.files import Files
from nertz.server.http.installable import installable_routes
from nertz.server.http.services import Services
from nertz.server.http.sheets import (
    HandIn,
    Sheet,
    SheetError,
    SheetIn,
    SheetStore,
    check_sheet,
    compute,
    parse_sheet,
    to_csv,
)
from nertz.server.lobby.lobby import CreateTable, table_request

__all__ = ["WEB_DIR", "page", "rules_catalogue", "wants_html", "web_routes"]

WEB_DIR = Path(__file__).resolve().parents[2] / "web"
"""The static client (``src/nertz/web``), installed as package data."""
KEPT_SHEETS = 256
"""Score sheets' answers kept, keyed by what is stored (``web_routes``)."""


def wants_html(request: Request) -> bool:
    """A browser asking for a page (not a script asking for JSON)."""
    return "text/html" in request.headers.get("accept", "")


_PAGE: dict[tuple[int, int], bytes] = {}


def page(request: Request | None = None) -> HTMLResponse:
    """The client's one page; its router shows the screen the path names (read again
    only when the file changed: a ``stat``, not a read, per page)."""
    path = WEB_DIR / "index.html"
    stat = path.stat()
    stamp = (stat.st_mtime_ns, stat.st_size)
    html = _PAGE.get(stamp)
    if html is None:
        _PAGE.clear()
        html = _PAGE[stamp] = path.read_bytes()
    return HTMLResponse(html, headers={"Cache-Control": "no-cache"})


def rules_catalogue() -> dict[str, Any]:
    """The body of ``GET /api/rules``: ``options`` in the engine's order, ``presets``,
    ``bots``, the plain choices of bots (``nertz.bots.choices``), gentlest first, the
    ``levels`` (weakest first) and ``styles`` a bot's seat spec may name, and
    ``bot_defaults``, the level and the style of a spec that names neither."""
    return {
        "options": [o.as_dict() for o in OPTIONS.values()],
        "presets": PRESETS,
        "bots": [c.as_dict() for c in CHOICES.values()],
        "levels": list(LEVELS),
        "styles": [DEFAULT_STYLE, *(s for s in STYLES if s != DEFAULT_STYLE)],
        "bot_defaults": {"level": DEFAULT_LEVEL, "style": DEFAULT_STYLE},
    }


class TestTable(CreateTable, kw_only=True):
    """``POST /api/test/tables``: a table whose every hand is dealt from ``layouts``."""

    layouts: list[str]
    middle: list[str] = msgspec.field(default_factory=list)
    rated: bool = False
    """A rated table (``Settings.rated``; the ``quick`` preset), which only the server
    makes (quick match): tests of rated play make one here."""


def web_routes(services: Services, *, test_hooks: bool = False) -> list[BaseRoute]:
    """The client's routes."""
    lock = asyncio.Lock()

    def sheets() -> SheetStore:
        return services.sheets

    def scored(sheet_id: str, sheet: Sheet) -> bytes:
        out = compute(sheet)
        out["id"], out["link"] = sheet_id, f"/sheet/{sheet_id}"
        return msgspec.json.encode(out)

    async def answer(sheet_id: str, sheet: Sheet, status: int = 200) -> Response:
        # Scored on a worker thread, as the sheet was checked: a long sheet is
        # milliseconds of Python, which on the event loop would hold up every table
        # for all of them (on a thread the loop takes its turns between), and in one
        # of the makers' few slots, so many sheets at once are not many such threads.
        body = await services.makers.run(partial(scored, sheet_id, sheet))
        return Response(body, status_code=status, media_type="application/json")

    def guarded(
        handler: Callable[[Request], Any],
    ) -> Callable[[Request], Any]:
        async def run(request: Request) -> Response:
            try:
                response: Response = await handler(request)
            except RequestError as error:
                return error.response()
            return response

        return run

    @guarded
    async def create_sheet(request: Request) -> Response:
        quotas = services.quotas
        address = client_address(request.scope)
        refusal = quotas.sheet(address) or await shared_rate(
            services.cluster, quotas, "sheets", address
        )
        if refusal is None and sheets().count >= quotas.limits.max_sheets:
            refusal = Refusal(
                "too_many_sheets",
                f"this server keeps at most {quotas.limits.max_sheets} score sheets; "
                "try again later",
                3600,
                503,
            )
        if refusal is not None:
            services.metrics.refused(refusal.code)
            return refusal.response()
        data = await decode_body(request, SheetIn, "sheet")
        sheet = await services.makers.run(partial(check_sheet, data))
        sheet_id = await asyncio.to_thread(sheets().create, sheet)
        return await answer(sheet_id, sheet, 201)

    made: collections.OrderedDict[tuple[str, str, bool], bytes] = collections.OrderedDict()

    async def kept(sheet_id: str, as_csv: bool) -> bytes:
        """The sheet's answer (JSON, or CSV): read from the store each time (another
        node may have changed it), checked and scored only when what is stored changed
        (20-27 ms for a long sheet). The last ``KEPT_SHEETS`` are kept."""
        stored = await asyncio.to_thread(sheets().stored, sheet_id)
        key = (sheet_id, stored, as_csv)
        body = made.get(key)
        if body is None:

            def make() -> bytes:
                sheet = parse_sheet(stored)
                return to_csv(sheet).encode() if as_csv else scored(sheet_id, sheet)

            # Made once for all who ask meanwhile, a few answers at once in all.
            body = made[key] = await services.makers.make(("sheet", *key), make)
            while len(made) > KEPT_SHEETS:
                made.popitem(last=False)
        made.move_to_end(key)
        return body

    @guarded
    async def get_sheet(request: Request) -> Response:
        body = await kept(request.path_params["id"], False)
        return Response(body, media_type="application/json")

    @guarded
    async def put_sheet(request: Request) -> Response:
        sheet_id = request.path_params["id"]
        data = await decode_body(request, SheetIn, "sheet")
        sheet = await services.makers.run(partial(check_sheet, data))
        async with lock:
            await asyncio.to_thread(sheets().save, sheet_id, sheet)
        return await answer(sheet_id, sheet)

    async def change_hands(request: Request, number: int | None) -> Response:
        sheet_id = request.path_params["id"]
        hand = await decode_body(request, HandIn, "hand")
        async with lock:
            old = await asyncio.to_thread(sheets().load, sheet_id)
            hands = list(old.hands)
            if number is None:
                hands.append(hand)
            elif 1 <= number <= len(hands):
                hands[number - 1] = hand
            else:
                raise SheetError("no_such_hand", f"this sheet has no hand {number}", 404)
            changed = SheetIn(old.names, old.body()["options"], hands)
            sheet = await services.makers.run(partial(check_sheet, changed))
            await asyncio.to_thread(sheets().save, sheet_id, sheet)
        return await answer(sheet_id, sheet, 201 if number is None else 200)

    @guarded
    async def add_hand(request: Request) -> Response:
        return await change_hands(request, None)

    @guarded
    async def edit_hand(request: Request) -> Response:
        return await change_hands(request, int(request.path_params["n"]))

    @guarded
    async def sheet_csv(request: Request) -> Response:
        sheet_id = request.path_params["id"]
        return Response(
            await kept(sheet_id, True),
            media_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="nertz-{sheet_id}.csv"'},
        )

    async def test_table(request: Request) -> Response:
        try:
            body = await decode_body(request, TestTable, "test table")
            rules, settings = table_request(body)
            if body.rated:
                settings = msgspec.structs.replace(settings, rated=True)
            try:
                dealt = Deal.from_layouts(body.layouts, body.middle)
            except ValueError as error:
                raise RequestError("bad_field", str(error)) from None
            entry, key = services.lobby.create(rules, settings)
        except RequestError as error:
            return error.response()
        entry.table.dealer = lambda seats, rules, seed: dealt
        out = {"code": entry.code, "link": f"/t/{entry.code}"}
        if key is not None:  # a private table (``"public": false``): its link carries the key
            out.update(key=key, link=f"/t/{entry.code}?key={key}")
        return JSONResponse(out, status_code=201)

    async def html(request: Request) -> Response:
        return page(request)

    catalogue = rules_catalogue()

    async def rules(request: Request) -> Response:
        return JSONResponse(catalogue)

    routes: list[BaseRoute] = [
        Route("/t/{code}", html),
        Route("/rules", html),
        Route("/learn", html),
        Route("/sheet", html),
        Route("/sheet/{id}", html),
        Route("/api/rules", rules, methods=["GET"]),
        Route("/api/sheets", create_sheet, methods=["POST"]),
        Route("/api/sheets/{id}", get_sheet, methods=["GET"]),
        Route("/api/sheets/{id}", put_sheet, methods=["PUT"]),
        Route("/api/sheets/{id}/hands", add_hand, methods=["POST"]),
        Route("/api/sheets/{id}/hands/{n:int}", edit_hand, methods=["PUT"]),
        Route("/api/sheets/{id}/csv", sheet_csv, methods=["GET"]),
        Mount("/static", Files(WEB_DIR), name="static"),
        *installable_routes(WEB_DIR),
    ]
    if test_hooks:
        routes.append(Route("/api/test/tables", test_table, methods=["POST"]))
    return routes
