"""The HTTP and WebSocket front end (Starlette): thin adapters around the lobby and
the table actors. ``create_app`` makes the server's ``Services`` (``services.py``) and
mounts each module's routes with them, and the middleware.

Routes (``docs/protocol.md``), each in its module by concern:

* ``POST /api/tables`` create; ``GET /api/tables`` open public tables;
  ``GET /api/tables/{code}`` one table; ``POST /api/tables/{code}/join`` take a seat
  (``tables_api.py``); invites, the watch link and the QR code (``sharing.py``);
* ``GET /api/matches`` finished matches; ``GET /api/matches/{id}`` a match's hands,
  scores and full event log (``matches_api.py``); ``GET /api/me`` a device's own
  history (``me.py``); accounts, passkeys and sessions (``accounts_api.py``);
* ``/replay/{id}``, ``GET /api/matches/{id}/replay``, ``POST /api/replays``: the replay
  viewer (``replay_api.py``);
* ``POST /api/daily``, ``GET /api/daily`` and ``/api/daily/{date}``: the daily deal, its
  tries and its board (``daily_api.py``);
* ``GET /api/ratings/{mode}`` a leaderboard, ``GET /api/players/{name}`` a player's
  ratings and rated matches (``ratings_api.py``);
* ``POST /api/practice``, ``POST /api/learn`` (``practice_api.py``); the client's pages,
  files, rules and score sheets (``web.py``);
* ``GET /`` and ``GET /metrics``, the server's figures (``status.py``);
* ``WS /ws`` play or watch; ``WS /echo`` a bare echo on the same stack (the load
  benchmark's baseline) (``sockets.py``).

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

from starlette.applications import Starlette
from starlette.middleware import Middleware

from nertz.server.cluster.routing import ClusterRouting
from nertz.server.door.edge import BodyLimit, EarlyRefusals
from nertz.server.door.site import Site, SiteGuard
from nertz.server.http.accounts_api import accounts_routes
from nertz.server.http.analysis_api import analysis_routes
from nertz.server.http.bots_api import bots_routes
from nertz.server.http.config import Config
from nertz.server.http.daily_api import daily_routes
from nertz.server.http.matches_api import matches_routes
from nertz.server.http.me import me_routes
from nertz.server.http.notation_api import notation_routes
from nertz.server.http.practice_api import practice_routes
from nertz.server.http.quick_api import quick_routes
from nertz.server.http.ratings_api import ratings_routes
from nertz.server.http.replay_api import FILE_BODY_BYTES, replay_routes
from nertz.server.http.services import Services
from nertz.server.http.sharing import sharing_routes
from nertz.server.http.sockets import socket_routes
from nertz.server.http.startup import lifespan
from nertz.server.http.status import index_routes, metrics_routes
from nertz.server.http.tables_api import tables_routes
from nertz.server.http.web import web_routes
from nertz.server.lobby.lobby import CreateTable

__all__ = ["Config", "CreateTable", "create_app"]


def create_app(config: Config) -> Starlette:
    """The ASGI app; the store opens and every unfinished match resumes at startup
    (``startup.py``). Its ``Services`` are ``services.services_of(app)``."""
    limits = config.limits
    site = Site.of(config.public_urls, config.host, config.port, config.allowed_origins)
    services = Services(limits, site)
    routes = [
        *index_routes(services),
        *tables_routes(services),
        *matches_routes(services),
        *metrics_routes(services, config.metrics_from),
        *socket_routes(services),
        *sharing_routes(services),
        *me_routes(services),
        *web_routes(services, test_hooks=config.test_hooks),
        *practice_routes(services),
        *quick_routes(services),
        *notation_routes(services),
        *replay_routes(services),
        *analysis_routes(services),
        *bots_routes(services),
        *accounts_routes(services),
        *daily_routes(services),
        *ratings_routes(services),
    ]
    refused = services.metrics.refused
    early = Middleware(EarlyRefusals, door=services.door)
    body_limit = Middleware(
        BodyLimit,
        limit=limits.body_bytes,
        stall_s=limits.header_timeout_s,
        refused=refused,
        larger={"/api/replays": max(FILE_BODY_BYTES, limits.body_bytes)},  # a notation file
    )
    guard = Middleware(SiteGuard, site=site, refused=refused)
    cluster = Middleware(ClusterRouting, node=lambda: services.cluster)  # tables elsewhere
    app = Starlette(
        routes=routes,
        lifespan=lifespan(config, services),
        middleware=[early, body_limit, guard, cluster],
    )
    app.state.services = services  # read through services_of
    return app
