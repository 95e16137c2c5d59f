"""A real uvicorn server on 127.0.0.1, on a free port, that stops itself."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from nertz.server.http.app import Config

from ..live_server import free_port, running

SPEED = 20.0
"""Test-only clock speed (``Config.speed``): bots, countdowns and timers run 20x."""


@dataclass
class Live:
    http: str
    ws: str
    port: int


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    config = Config(db=str(tmp_path / "live.db"), port=free_port(), speed=SPEED)
    with running(config) as port:
        yield Live(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws", port)
