"""A real uvicorn server on 127.0.0.1, on a free port, in a thread; it stops itself."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import uvicorn

from nertz.server.cli import uvicorn_config
from nertz.server.http.app import Config, create_app

T = TypeVar("T")

PATIENCE_S = 60.0
"""How long a test waits for something the server does by itself (a group commit, a
timer): a cap for a machine busy with other work, never a pause. A test that waits
returns the moment the thing is done."""


def eventually(probe: Callable[[], T | None], what: str, seconds: float = PATIENCE_S) -> T:
    """Ask ``probe`` until it answers (anything but None or False) and return that
    answer; fail naming ``what`` was awaited if it never does within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        answer = probe()
        if answer is not None and answer is not False:
            return answer
        assert time.monotonic() < deadline, f"still waiting for {what} after {seconds} s"
        time.sleep(0.02)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running(
    config: Config, http: str | None = None, loop: str | None = None, app: Any = None
) -> Iterator[int]:
    """Serve ``app`` (by default ``create_app(config)``) on ``config.port`` until the
    block ends (``http`` and ``loop``: the HTTP parser and event loop, by default the
    server's)."""
    assert config.host == "127.0.0.1"
    app = create_app(config) if app is None else app
    server = uvicorn.Server(uvicorn_config(app, config, http=http, loop=loop))
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
