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

from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware

from nertz.server.cluster.routing import ClusterRouting
from nertz.server.door.edge import BodyLimit, Door, EarlyRefusals
from nertz.server.door.limits import Quotas
from nertz.server.door.site import Site, SiteGuard
from nertz.server.http.config import Config
from nertz.server.http.matches_api import matches_routes
from nertz.server.http.me import me_routes
from nertz.server.http.metrics import Figures, Metrics
from nertz.server.http.practice_api import practice_routes
from nertz.server.http.session import SessionServices
from nertz.server.http.sharing import sharing_routes
from nertz.server.http.sockets import socket_routes
from nertz.server.http.startup import lifespan
from nertz.server.http.status import index_routes, metrics_routes
from nertz.server.http.tables_api import tables_routes
from nertz.server.http.web import web_routes
from nertz.server.lobby.lobby import CreateTable, Lobby
from nertz.server.wire.connection import Connection

__all__ = ["Config", "CreateTable", "create_app"]


def create_app(config: Config) -> Starlette:
    """The ASGI app; the store opens and every unfinished match resumes at startup."""
    limits = config.limits
    quotas = Quotas(limits)
    connections: set[Connection] = set()
    site = Site.of(config.public_urls, config.host, config.port, config.allowed_origins)
    state: dict[str, Any] = {"quotas": quotas, "cluster": None, "site": site}

    def figures() -> Figures | None:
        if "lobby" not in state:
            return None  # not started yet
        return Figures.of(lobby().tables.values(), state["store"], quotas.open, connections)

    metrics = Metrics(figures)
    state["metrics"] = metrics

    def lobby() -> Lobby:
        return state["lobby"]  # type: ignore[no-any-return]

    sessions = SessionServices(lobby, quotas, limits, metrics, site, connections, state)
    routes = [
        *index_routes(state),
        *tables_routes(state),
        *matches_routes(state),
        *metrics_routes(metrics, config.metrics_from, limits.ipv6_prefix),
        *socket_routes(sessions),
        *sharing_routes(state),
        *me_routes(state),
        *web_routes(state, test_hooks=config.test_hooks),
        *practice_routes(state),
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
        routes=routes,
        lifespan=lifespan(config, state, quotas, site),
        middleware=[early, body_limit, guard, cluster],
    )
    app.state.nertz = state
    return app
