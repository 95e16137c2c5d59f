"""A real uvicorn server on 127.0.0.1, on a free port, in a thread; it stops itself."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from nertz.server.app import Config, create_app
from nertz.server.cli import uvicorn_config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running(config: Config, http: str | None = None, loop: str | None = None) -> Iterator[int]:
    """Serve ``create_app(config)`` on ``config.port`` until the block ends (``http``
    and ``loop``: the HTTP parser and event loop, by default the server's)."""
    assert config.host == "127.0.0.1"
    server = uvicorn.Server(uvicorn_config(create_app(config), config, http=http, loop=loop))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.01)
    try:
        yield config.port
    finally:
        server.should_exit = True
        thread.join(10)
