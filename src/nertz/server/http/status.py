"""The server's own figures: ``GET /`` (a balancer's health check and a glance at the
store, the cluster and the collector; the browser client's home to a browser) and
``GET /metrics`` (Prometheus text, the operator's alone: ``Config.metrics_from``).

The collector's full passes pause every table: they are timed here (``gc.callbacks``)
and what lives as long as the server is kept out of them (``freeze_survivors``)."""

from __future__ import annotations

import gc
import time

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nertz.server.door.edge import address_key, client_address
from nertz.server.door.requests import error_response
from nertz.server.http.metrics import CONTENT_TYPE
from nertz.server.http.services import Services
from nertz.server.http.web import page, wants_html

__all__ = ["freeze_survivors", "index_routes", "metrics_routes"]

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


def freeze_survivors() -> None:
    """Everything alive now (modules, restored tables) lives as long as the server:
    keep it out of the collector's full passes, which pause every table."""
    gc.freeze()
    _FROZEN[0] = gc.get_freeze_count()  # it walks them all: once, not per request


def index_routes(services: Services) -> list[BaseRoute]:
    """``GET /``."""

    async def index(request: Request) -> Response:
        if wants_html(request):
            return page(request)  # the browser client's home (web.py)
        store, lobby, cluster = services.store, services.lobby, services.cluster
        return JSONResponse(
            {
                "nertz": "server",
                "protocol": "docs/protocol.md",
                "tables": len(lobby.tables),
                "store": {
                    "batches": store.batches,
                    "errors": store.errors,
                    "commit_lag_ms": round(store.commit_lag_ms, 1),
                    "max_commit_lag_ms": round(store.max_lag_ms, 1),
                    "max_commit_lag_ms_10s": round(store.recent_lag_ms(10), 1),
                    "writes_10s": store.recent_writes(10),
                    "refused": store.refused,
                },
                "cluster": None if cluster is None else cluster.figures(),
                "table_failures": sum(e.actor.failures for e in lobby.tables.values()),
                "gc": {  # nothing here walks the heap: balancers ask twice a second
                    **_GC_PAUSES,
                    "young": gc.get_count()[0],
                    "frozen": _FROZEN[0],
                },
            }
        )

    return [Route("/", index)]


def metrics_routes(services: Services, metrics_from: tuple[str, ...]) -> list[BaseRoute]:
    """``GET /metrics``, answered to the addresses ``metrics_from`` alone (each counted
    as quotas count an address: ``address_key``)."""
    metrics, prefix = services.metrics, services.limits.ipv6_prefix
    operators = frozenset(address_key(a, prefix) for a in metrics_from)

    async def show_metrics(request: Request) -> Response:
        if client_address(request.scope) not in operators:  # the operator's alone
            return error_response("not_found", "no such page", 404)
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    return [Route("/metrics", show_metrics, methods=["GET"])]
