"""The HTTP and WebSocket front end (Starlette): thin adapters around the lobby and
the table actors.

Routes (``docs/protocol.md``):

* ``POST /api/tables`` create; ``GET /api/tables`` open public tables;
  ``GET /api/tables/{code}`` one table; ``POST /api/tables/{code}/join`` take a seat;
  invites, the watch link and the QR code (``sharing.py``);
* ``GET /api/matches`` finished matches; ``GET /api/matches/{id}`` a match's hands,
  scores and full event log; ``GET /api/me`` a device's own history (``me.py``);
* ``WS /ws`` play or watch; ``WS /echo`` a bare echo on the same stack (the load
  benchmark's baseline).

Every connection is limited: a message over 4 KiB is refused unread; 20 messages a
second with a burst of 40, then refusals, then the connection is closed if the abuse
goes on; a connection that cannot keep up with its messages is closed. The WebSocket
``Origin`` must match the server's host (or ``allowed_origins``), and every request's
``Host`` and every change's ``Origin`` or ``Content-Type`` are checked by
``site.SiteGuard``. What one client address may hold or ask for (requests, tables,
joins, connections, spectators, full states, request bodies) is counted by
``limits.Quotas`` and refused with a code and a sentence (``429`` and ``Retry-After``
over HTTP); ``GET /metrics`` gives the figures to the operator (``metrics_from``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from nertz.bots import DEFAULT_CHOICE, bot_name, choice
from nertz.engine import preset
from nertz.server.cluster.live import (
    shared_table,
)
from nertz.server.cluster.quotas import shared_lookup, shared_missed, shared_rate
from nertz.server.cluster.routing import (
    ClusterRouting,
    new_table,
    start_node,
)
from nertz.server.door.edge import BodyLimit, Door, EarlyRefusals, address_key, client_address
from nertz.server.door.limits import Limits, Quotas, Refusal
from nertz.server.door.requests import RequestError, decode_body, error_response
from nertz.server.door.site import Site, SiteGuard
from nertz.server.http.bots_api import bots_routes
from nertz.server.http.kept import FinishedMatches, Listing
from nertz.server.http.me import joining_device, me_routes, took_place
from nertz.server.http.metrics import CONTENT_TYPE, Figures, Metrics
from nertz.server.http.practice_api import practice_routes
from nertz.server.http.session import PlaySession, SessionServices
from nertz.server.http.sharing import links, sharing_routes
from nertz.server.http.sheets import SheetStore, prune_sheets
from nertz.server.http.web import page, wants_html, web_routes
from nertz.server.lobby.devices import person_id
from nertz.server.lobby.lobby import (
    CreateTable,
    Lobby,
    LobbyError,
    table_request,
    unknown_table,
)
from nertz.server.store.store import Store
from nertz.server.table.settings import Settings
from nertz.server.wire.connection import Connection

__all__ = ["Config", "CreateTable", "create_app"]

log = logging.getLogger("nertz.app")


@dataclass(slots=True)
class Config:
    """Server settings (``nertz serve`` options)."""

    db: str = "nertz.db"
    host: str = "127.0.0.1"
    port: int = 8000
    speed: float = 1.0
    """Test-only: table clocks run this many times faster than real time."""
    limits: Limits = field(default_factory=Limits)
    """What one client may take (``limits.py``; docs/server.md, "Running it in public")."""
    forwarded_allow_ips: str = ""
    """Reverse proxies whose ``X-Forwarded-For`` names the client (comma-separated
    addresses or networks, ``*`` for any); by default none is trusted."""
    log_json: bool = False
    """Logs as JSON lines (one object a record) instead of text."""
    allowed_origins: tuple[str, ...] = ()
    public_urls: tuple[str, ...] = ()
    """The site's own URLs, ``scheme://host[:port]`` (``--public-url``): their hosts
    are accepted in ``Host`` and their origins in ``Origin``, and the first builds the
    links people are given (``site.py``); none: ``http://host:port``."""
    metrics_from: tuple[str, ...] = ("127.0.0.1", "::1")
    """Client addresses ``GET /metrics`` answers (``--metrics-from``); to anyone else it
    is ``404``: by default only the machine itself, so not the public behind a proxy
    that names its clients (``forwarded_allow_ips``)."""
    play: bool = False
    """``make play``: create a table with three bots and print how to join it."""
    play_bots: str = DEFAULT_CHOICE
    """The bots of that table: a choice of ``nertz.bots.choices`` (``--bots``)."""
    test_hooks: bool = False
    """Test-only: ``POST /api/test/tables`` deals explicit layouts (``web.py``)."""
    redis: str | None = None
    """A cluster node (``--redis``): leases, routing and the lobby through this Redis
    (docs/cluster.md); None runs alone, as always."""
    node_id: str | None = None
    """This node's name in the cluster (the load balancer's server name)."""


class JoinTable(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    seat: int | None = None
    key: str | None = None
    partner: int | None = None
    """At a partnership table (R40): which place of ``seat``, i.e. sit with whom."""
    host_token: str | None = None
    """The creator's host token, from the create answer: the host sits (``host.py``)."""


_GC_PAUSES: dict[str, float] = {"count": 0, "max_ms": 0.0, "total_ms": 0.0}
_gc_started = [0.0]
_FROZEN = [0]
"""What ``gc.freeze`` kept out of the collector at startup (counted once: it walks them)."""


def _gc_watch(phase: str, info: dict[str, int]) -> None:
    if info.get("generation") != 2:
        return
    if phase == "start":
        _gc_started[0] = time.perf_counter()
    else:
        ms = (time.perf_counter() - _gc_started[0]) * 1000
        _GC_PAUSES["count"] += 1
        _GC_PAUSES["total_ms"] = round(_GC_PAUSES["total_ms"] + ms, 1)
        _GC_PAUSES["max_ms"] = round(max(_GC_PAUSES["max_ms"], ms), 1)


gc.callbacks.append(_gc_watch)


def create_app(config: Config) -> Starlette:
    """The ASGI app; the store opens and every unfinished match resumes at startup."""
    limits = config.limits
    quotas = Quotas(limits)
    connections: set[Connection] = set()
    site = Site.of(config.public_urls, config.host, config.port, config.allowed_origins)
    state: dict[str, Any] = {"quotas": quotas, "cluster": None, "site": site}
    operators = frozenset(address_key(a, limits.ipv6_prefix) for a in config.metrics_from)

    def figures() -> Figures | None:
        if "lobby" not in state:
            return None  # not started yet
        return Figures.of(lobby().tables.values(), state["store"], quotas.open, connections)

    metrics = Metrics(figures)
    state["metrics"] = metrics

    def refused(refusal: Refusal) -> Response:
        metrics.refused(refusal.code)
        return refusal.response()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = Store(config.db)
        lobby = Lobby(store, max_tables=limits.max_tables, speed=config.speed)
        state["store"], state["lobby"] = store, lobby
        cluster = state["cluster"] = await start_node(
            config.redis, config.node_id, config.port, lobby, store, quotas
        )
        resumed = lobby.restore() if cluster is None else 0  # a node's sweep takes them
        sheets = state["sheets"] = SheetStore(store.engine)
        pruner = asyncio.get_running_loop().create_task(prune_sheets(sheets, limits.sheet_days))
        if resumed:
            log.info("resumed %d unfinished match(es)", resumed)
        if config.play:
            await _play_table(lobby, config, site)
        # Everything alive now (modules, restored tables) lives as long as the server:
        # keep it out of the collector's full passes, which pause every table.
        gc.freeze()
        _FROZEN[0] = gc.get_freeze_count()  # it walks them all: once, not per request
        try:
            yield
        finally:
            pruner.cancel()
            await lobby.stop()
            store.flush()
            if cluster is not None:
                await cluster.stop()
            store.close()

    def lobby() -> Lobby:
        return state["lobby"]  # type: ignore[no-any-return]

    def held(code: str) -> bool:
        return code in lobby().tables  # an address's table counts until it is gone

    async def create_table(request: Request) -> Response:
        address = client_address(request.scope)
        refusal = quotas.create_table(address, held)
        refusal = refusal or await shared_rate(state, "creates", address)
        if (refusal := refusal or await shared_table(state, address)) is not None:
            return refused(refusal)
        try:
            rules, settings = table_request(await decode_body(request, CreateTable, "table"))
            bots_only = len(settings.bots) >= settings.seats  # no seat for a person
            if bots_only and (refusal := quotas.bot_table(address, held)) is not None:
                return refused(refusal)
            entry, key = await new_table(state, rules, settings)
        except RequestError as error:
            if error.code == "too_many_tables":  # the server-wide cap
                metrics.refused(error.code)
                return Refusal(error.code, error.reason, 60, error.status).response()
            return error.response()
        quotas.table_created(address, entry.code, held, bots_only)
        host_token = lobby().keep_for_creator(entry, address)
        out: dict[str, Any] = {
            "code": entry.code,
            "id": entry.id,
            "ws": "/ws",
            "host_token": host_token,
        }
        if key is not None:
            out["key"] = key
        shared = links(entry, key)
        out.update(link=shared["link"], invite=shared["invite"], watch=shared["watch"])
        return JSONResponse(out, status_code=201)

    listing = Listing()

    async def list_tables(request: Request) -> Response:
        async def made() -> bytes:
            cluster = state["cluster"]
            found = lobby().open_tables() if cluster is None else await cluster.open_tables()
            return msgspec.json.encode({"tables": found})

        body = await listing.get(len(lobby().tables), made)
        return Response(body, media_type="application/json")

    async def show_table(request: Request) -> Response:
        code, key = request.path_params["code"], request.query_params.get("key")
        address = client_address(request.scope)
        refusal = await shared_lookup(state, address)
        if refusal is not None:
            return refused(refusal)
        try:
            if code.strip().upper() not in lobby().tables:  # over and gone: from the store
                return JSONResponse((await lobby().archived(code, key)).info)
            entry = lobby().find(code)
            if not entry.watch_ok(key):
                raise unknown_table(code)  # the same answer: private codes cannot be probed
        except LobbyError as error:
            await shared_missed(state, address)
            return error.response()
        return JSONResponse(entry.table.info())

    async def join_table(request: Request) -> Response:
        address = client_address(request.scope)
        refusal = quotas.join(address) or await shared_lookup(state, address)
        if refusal is not None:
            return refused(refusal)
        code = request.path_params["code"]
        if (refusal := await shared_rate(state, "joins", address)) is not None:
            return refused(refusal)
        try:
            body = await decode_body(request, JoinTable, "join")
            device, refusal = await joining_device(state, request, address)  # me.py
            if refusal is not None:
                return refused(refusal)
            person = None if device is None else person_id(lobby().find(code).id, device)
            entry, seat, partner, token = await lobby().join(
                code,
                body.name,
                body.seat,
                body.key,
                body.partner,
                body.host_token,
                address,
                person,
            )
            if device is not None:
                await took_place(state, device, entry, seat, partner, body.name)
        except RequestError as error:
            if error.code in ("private_table", "unknown_table"):  # the same answer for both
                await shared_missed(state, address)
                return unknown_table(code).response()
            return error.response()
        answer: dict[str, Any] = {"code": entry.code, "seat": seat, "token": token, "ws": "/ws"}
        if entry.table.per_seat > 1:
            answer["partner"] = partner
        return JSONResponse(answer)

    async def matches(request: Request) -> JSONResponse:
        rows = await asyncio.to_thread(state["store"].history)
        return JSONResponse({"matches": rows})

    finished = FinishedMatches()

    async def match(request: Request) -> Response:
        body = await finished.get(state["store"].engine, request.path_params["match"])
        if body is None:
            return error_response("unknown_match", "no finished match with that id", 404)
        return Response(body, media_type="application/json")

    async def index(request: Request) -> Response:
        if wants_html(request):
            return page(request)  # the browser client's home (web.py)
        store: Store = state["store"]
        return JSONResponse(
            {
                "nertz": "server",
                "protocol": "docs/protocol.md",
                "tables": len(lobby().tables),
                "store": {
                    "batches": store.batches,
                    "errors": store.errors,
                    "commit_lag_ms": round(store.commit_lag_ms, 1),
                    "max_commit_lag_ms": round(store.max_lag_ms, 1),
                    "max_commit_lag_ms_10s": round(store.recent_lag_ms(10), 1),
                    "writes_10s": store.recent_writes(10),
                    "refused": store.refused,
                },
                "cluster": None if state["cluster"] is None else state["cluster"].figures(),
                "table_failures": sum(e.actor.failures for e in lobby().tables.values()),
                "gc": {  # nothing here walks the heap: balancers ask twice a second
                    **_GC_PAUSES,
                    "young": gc.get_count()[0],
                    "frozen": _FROZEN[0],
                },
            }
        )

    async def show_metrics(request: Request) -> Response:
        if client_address(request.scope) not in operators:  # the operator's alone
            return error_response("not_found", "no such page", 404)
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    sessions = SessionServices(lobby, quotas, limits, metrics, site, connections, state)

    async def play_ws(websocket: WebSocket) -> None:
        await PlaySession(sessions, websocket).run()  # session.py: all of /ws

    async def echo_ws(websocket: WebSocket) -> None:
        address = client_address(websocket.scope)
        refusal = quotas.open_connection(address)  # counted with /ws's: bounded alike
        if refusal is not None:
            metrics.refused(refusal.code)
            await websocket.close(1013, refusal.code)
            return
        try:
            await websocket.accept()
            while True:
                await websocket.send_text(await websocket.receive_text())
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass
        finally:
            quotas.close_connection(address, False)

    routes = [
        Route("/", index),
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/tables", list_tables, methods=["GET"]),
        Route("/api/tables/{code}", show_table, methods=["GET"]),
        Route("/api/tables/{code}/join", join_table, methods=["POST"]),
        Route("/api/matches", matches, methods=["GET"]),
        Route("/api/matches/{match}", match, methods=["GET"]),
        Route("/metrics", show_metrics, methods=["GET"]),
        WebSocketRoute("/ws", play_ws),
        WebSocketRoute("/echo", echo_ws),
        *sharing_routes(state),
        *me_routes(state),
        *web_routes(state, test_hooks=config.test_hooks),
        *practice_routes(state),
        *bots_routes(state),  # bots_api.py: outside bots
    ]
    body_limit = Middleware(
        BodyLimit,
        limit=limits.body_bytes,
        stall_s=limits.header_timeout_s,
        refused=metrics.refused,
    )
    door = state["door"] = Door(  # also the protocol's
        quotas.memory, metrics.refused_early, quotas.request, limits.ipv6_prefix
    )
    early = Middleware(EarlyRefusals, door=door)
    guard = Middleware(SiteGuard, site=site, refused=metrics.refused)
    cluster = Middleware(ClusterRouting, state=state)  # tables on other nodes (cluster/)
    app = Starlette(
        routes=routes, lifespan=lifespan, middleware=[early, body_limit, guard, cluster]
    )
    app.state.nertz = state
    return app


async def _play_table(lobby: Lobby, config: Config, site: Site) -> None:
    """``make play``: one table, seat 0 joined for you, the other seats the bots of
    ``config.play_bots`` (a first-timer's "relaxed" unless ``--bots`` says otherwise)."""
    bots = choice(config.play_bots)
    specs = {seat: spec for seat, spec in enumerate(bots.specs, start=1)}
    settings = Settings(seats=1 + len(specs), bots=specs)
    entry, _ = lobby.create(preset("standard"), settings)
    _, seat, _, token = await lobby.join(entry.code, "you", 0)
    ws = f"ws://{config.host}:{config.port}/ws"
    hello = f'{{"type": "hello", "table": "{entry.code}", "token": "{token}"}}'
    url = f"{site.base}/t/{entry.code}#seat={token}"
    lines = [
        f"Open in your browser: {url}",
        f"Nertz table {entry.code}: you are seat {seat} against {len(specs)} bots"
        f" ({bots.label}: {', '.join(bot_name(n) for n in specs)}).",
        f"WebSocket: {ws}",
        f"Seat token: {token}",
        f"Connect:   {sys.executable} -m websockets {ws}",
        f"then send: {hello}",
        'then:      {"type": "ready"}   and play: {"type": "play", "seq": 1, "move": "T"}',
        "(moves: N>F, W>F3, 3/2>1, W<2, T, NERTZ, STUCK; see docs/protocol.md)",
    ]
    print("\n".join(lines), flush=True)
