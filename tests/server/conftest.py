"""A real uvicorn server on 127.0.0.1, on a free port, that stops itself."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn

from nertz.server.app import Config, create_app

SPEED = 20.0
"""Test-only clock speed (``Config.speed``): bots, countdowns and timers run 20x."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Live:
    http: str
    ws: str
    port: int


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    port = free_port()
    config = Config(db=str(tmp_path / "live.db"), port=port, speed=SPEED)
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(config),
            host="127.0.0.1",
            port=port,
            log_level="warning",
            ws_max_size=65536,
            ws_per_message_deflate=False,
            lifespan="on",
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.01)
    yield Live(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws", port)
    server.should_exit = True
    thread.join(10)
