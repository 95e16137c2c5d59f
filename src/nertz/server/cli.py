"""``nertz serve``: run the server on uvicorn."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from .app import Config, create_app
from .protocol import MAX_MESSAGE_BYTES

__all__ = ["add_parser", "main"]


def add_parser(sub: Any) -> None:
    """Add the ``serve`` subcommand to the ``nertz`` command."""
    serve = sub.add_parser("serve", help="run the real-time server (docs/protocol.md)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--db", default="nertz.db", help="SQLite file or SQLAlchemy URL (default nertz.db)"
    )
    serve.add_argument(
        "--play",
        action="store_true",
        help="create a table against three bots and print how to join",
    )
    serve.add_argument("--max-tables", type=int, default=2000, help="tables per server (2000)")
    serve.add_argument(
        "--allow-origin", action="append", default=[], help="extra WebSocket Origin to accept"
    )
    serve.add_argument("--speed", type=float, default=1.0, help=argparse.SUPPRESS)  # tests only
    serve.add_argument("--log-level", default="warning", help=argparse.SUPPRESS)
    serve.add_argument("--ws", default="websockets-sansio", help=argparse.SUPPRESS)


def main(args: argparse.Namespace) -> int:
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    # The store's writer thread gives up the GIL for every row SQLite writes and must
    # win it back from the event loop each time; at the default 5 ms switch interval a
    # busy loop makes a batch wait up to 5 ms per row (docs/performance.md).
    sys.setswitchinterval(0.0005)
    config = Config(
        db=args.db,
        host=args.host,
        port=args.port,
        speed=args.speed,
        max_tables=args.max_tables,
        allowed_origins=tuple(args.allow_origin),
        play=args.play,
    )
    uvicorn.run(
        create_app(config),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws=args.ws,
        ws_max_size=16 * MAX_MESSAGE_BYTES,  # bigger frames are cut off; smaller get an answer
        ws_ping_interval=20,
        ws_per_message_deflate=False,  # messages are small; compressing them costs CPU
        ws_ping_timeout=20,
    )
    return 0
