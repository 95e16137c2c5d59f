"""``nertz serve``: run the server on uvicorn."""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import json
import logging
import os
import sys
import time
from typing import Any, cast

import msgspec
import uvicorn
from starlette.applications import Starlette
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from nertz.bots import CHOICES, DEFAULT_CHOICE
from nertz.server.door.edge import guarded_protocol
from nertz.server.door.limits import Limits
from nertz.server.door.site import public_url
from nertz.server.http.app import Config, create_app
from nertz.server.http.services import services_of
from nertz.server.protocol import MAX_MESSAGE_BYTES
from nertz.server.store.store import db_url
from nertz.server.wire.wsprotocol import play_socket

__all__ = [
    "HTTPS",
    "LOOPS",
    "WS",
    "JsonLines",
    "StackError",
    "add_parser",
    "main",
    "stack",
    "tune_process",
    "uvicorn_config",
]

_LIMITS = ", ".join(Limits.__struct_fields__)
LOOPS = ("uvloop", "asyncio")
"""Event loops ``nertz serve`` runs on, the default first (the faster: docs/performance.md)."""
HTTPS = ("httptools", "h11")
"""HTTP/1.1 parsers, the default first (the faster)."""
WS = "nertz"
"""The WebSocket protocol ``nertz serve`` runs: the server's own (``wsprotocol.py``);
``--ws websockets-sansio`` (or another of uvicorn's) runs the app through ASGI alone."""
PING_S = 20.0
"""A ping every 20 s; no pong within 20 s closes the connection."""
_log = logging.getLogger("nertz.server")


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


class StackError(ValueError):
    """An event loop or HTTP parser was asked for whose package is not installed."""


def stack(loop: str | None = None, http: str | None = None) -> tuple[str, str]:
    """The event loop and HTTP parser to run on: the ones asked for (``StackError`` if
    a package is missing), else the fastest installed, with a warning for each fallback."""
    chosen = []
    for asked, choices, flag in ((loop, LOOPS, "--loop"), (http, HTTPS, "--http")):
        if asked is not None and asked not in choices:
            raise StackError(f"{flag} {asked!r}: one of {', '.join(choices)}")
        best, plain = choices
        name = asked or best
        if name == best and not _importable(best):
            if asked is not None:
                raise StackError(
                    f"{flag} {best} needs the {best} package (make install, as "
                    f"pyproject.toml pins it), or give {flag} {plain}"
                )
            _log.warning(
                "%s is not installed: running on %s (slower; docs/performance.md)", best, plain
            )
            name = plain
        chosen.append(name)
    return chosen[0], chosen[1]


def add_parser(sub: Any) -> None:
    """Add the ``serve`` subcommand to the ``nertz`` command."""
    serve = sub.add_parser("serve", help="run the real-time server (docs/protocol.md)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--db",
        default="nertz.db",
        help="SQLite file or SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db "
        "(default nertz.db; docs/server.md)",
    )
    serve.add_argument(
        "--play",
        action="store_true",
        help="create a table against bots and print how to join",
    )
    serve.add_argument(
        "--bots",
        default=DEFAULT_CHOICE,
        choices=list(CHOICES),
        help=f"the bots of --play: {', '.join(CHOICES)} (default {DEFAULT_CHOICE})",
    )
    serve.add_argument(
        "--max-tables", type=int, default=None, help="tables per server (2000; --limit too)"
    )
    serve.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=f"change a limit (docs/server.md, 'Running it in public'): {_LIMITS}",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        default="",
        metavar="IPS",
        help="reverse proxies trusted to name the client in X-Forwarded-For "
        "(comma-separated addresses or networks; default: none)",
    )
    serve.add_argument(
        "--redis",
        default=None,
        metavar="URL",
        help="run as a cluster node: leases, routing and the lobby through this Redis "
        "(redis://host:port/0; --db must then be PostgreSQL; docs/cluster.md)",
    )
    serve.add_argument(
        "--node-id",
        default=None,
        help="this node's name in the cluster, as the load balancer knows it "
        "(default HOSTNAME-PORT)",
    )
    serve.add_argument("--log-json", action="store_true", help="log JSON lines, one a record")
    serve.add_argument(
        "--loop",
        choices=LOOPS,
        default=None,
        help=f"event loop (default {LOOPS[0]}, {LOOPS[1]} if it is not installed)",
    )
    serve.add_argument(
        "--http",
        choices=HTTPS,
        default=None,
        help=f"HTTP/1.1 parser (default {HTTPS[0]}, {HTTPS[1]} if it is not installed)",
    )
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        help="extra Origin to accept (WebSocket and changes), e.g. https://other.example",
    )
    serve.add_argument(
        "--public-url",
        action="append",
        default=[],
        metavar="URL",
        help="the site's own address as people reach it, http(s)://HOST[:PORT] "
        "(repeatable; the first builds links and QR codes; its host is accepted in Host "
        "and its origin in Origin; default http://HOST:PORT as listening)",
    )
    serve.add_argument(
        "--metrics-from",
        action="append",
        default=None,
        metavar="ADDRESS",
        help="client address GET /metrics answers (repeatable; default 127.0.0.1 and "
        "::1: the machine itself; anyone else gets 404)",
    )
    serve.add_argument("--speed", type=float, default=1.0, help=argparse.SUPPRESS)  # tests only
    serve.add_argument("--log-level", default="warning", help=argparse.SUPPRESS)
    serve.add_argument("--ws", default=WS, help=argparse.SUPPRESS)


def parse_limits(given: list[str], max_tables: int | None = None) -> Limits:
    """``Limits`` from ``NAME=VALUE`` texts (``ValueError`` naming a bad one)."""
    values: dict[str, Any] = {}
    names = set(Limits.__struct_fields__)
    for text in given:
        name, _, value = text.partition("=")
        name = name.strip().replace("-", "_")
        if name not in names or not value:
            raise ValueError(f"--limit {text!r}: give NAME=VALUE, NAME one of {_LIMITS}")
        values[name] = value
    if max_tables is not None:
        values["max_tables"] = max_tables
    try:
        return msgspec.convert(values, Limits, strict=False)
    except msgspec.ValidationError as error:
        raise ValueError(f"--limit: {error}") from None


class JsonLines(logging.Formatter):
    """A log record as one JSON object on one line (``--log-json``)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def uvicorn_config(
    app: Starlette,
    config: Config,
    *,
    log_level: str = "warning",
    ws: str = "nertz",
    loop: str | None = None,
    http: str | None = None,
) -> uvicorn.Config:
    """Uvicorn as this server runs on it (``nertz serve`` and the tests): the event loop
    and the guarded HTTP protocol (``stack``), the trusted proxies, the WebSocket
    protocol (``ws``: the server's own, ``wsprotocol.PlaySocket``, or one of uvicorn's
    by name, through ASGI alone), its sizes and pings."""
    services = services_of(app)
    metrics = services.metrics
    trusted = config.forwarded_allow_ips
    loop, http = stack(loop, http)
    max_size = 16 * MAX_MESSAGE_BYTES  # bigger frames are cut off; smaller get an answer
    ws_protocol: str | type[asyncio.Protocol] = ws
    if ws == WS:
        # uvicorn wraps the app it runs for its own protocols; the server's own runs it
        # through the same documented middleware for the client a proxy names.
        asgi: Any = ProxyHeadersMiddleware(cast(Any, app), trusted) if trusted else app
        ws_protocol = play_socket(asgi, max_size, PING_S, PING_S)
    return uvicorn.Config(
        app,
        host=config.host,
        port=config.port,
        log_level=log_level,
        log_config=None if config.log_json else uvicorn.config.LOGGING_CONFIG,
        lifespan="on",
        loop=loop,
        http=guarded_protocol(
            config.limits.header_timeout_s,
            lambda: metrics.closed("silent"),
            http,
            services.door,
            services.line,
        ),
        ws=ws_protocol,
        ws_max_size=max_size,
        ws_ping_interval=PING_S,
        ws_per_message_deflate=False,  # messages are small; compressing them costs CPU
        ws_ping_timeout=PING_S,
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or None,
    )


YOUNG_OBJECTS = 50_000
"""Allocations between the collector's young passes in a server process."""


def tune_process() -> None:
    """What a server process sets before it serves (``nertz serve`` and the benchmarks
    that run the app themselves)."""
    # The store's writer thread gives up the GIL for every row SQLite writes and must
    # win it back from the event loop each time; at the default 5 ms switch interval a
    # busy loop makes a batch, and so every acknowledgement, wait up to 5 ms per step
    # (docs/performance.md).
    sys.setswitchinterval(0.0005)
    # A young collection every 50,000 new objects, not every 700: at 300 tables a play
    # lives a few ms to a few seconds (waiting for its commit, its race, its timers),
    # and at 700 what lived past a tenth of a second reached the oldest generation,
    # whose growth set off a full collection (265-270 ms, every table paused) about
    # every 30 s. At 50,000 they die young and no full collection runs at all; the
    # price is up to 50,000 more objects alive, a few MB (docs/performance.md).
    gc.set_threshold(YOUNG_OBJECTS, *gc.get_threshold()[1:])


def main(args: argparse.Namespace) -> int:
    handler = logging.StreamHandler()
    if args.log_json:
        handler.setFormatter(JsonLines())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    tune_process()
    try:
        limits = parse_limits(args.limit, args.max_tables)
        loop, http = stack(args.loop, args.http)
        public_urls = tuple(public_url(url) for url in args.public_url)
    except ValueError as error:
        print(f"nertz serve: {error}", file=sys.stderr)
        return 2
    if args.redis and db_url(args.db).startswith("sqlite"):
        print(
            "nertz serve: --redis needs a shared database (--db postgresql+psycopg://...)",
            file=sys.stderr,
        )
        return 2
    config = Config(
        redis=args.redis,
        node_id=args.node_id,
        db=args.db,
        host=args.host,
        port=args.port,
        speed=args.speed,
        limits=limits,
        forwarded_allow_ips=args.forwarded_allow_ips,
        log_json=args.log_json,
        allowed_origins=tuple(args.allow_origin),
        public_urls=public_urls,
        metrics_from=tuple(args.metrics_from) if args.metrics_from else Config().metrics_from,
        play=args.play,
        play_bots=args.bots,
        daily_secret=os.environ.get("NERTZ_DAILY_SECRET") or None,
    )
    app = create_app(config)
    uvicorn.Server(
        uvicorn_config(app, config, log_level=args.log_level, ws=args.ws, loop=loop, http=http)
    ).run()
    return 0
