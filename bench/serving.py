"""The benchmarks' server: ``nertz serve`` in its own process on 127.0.0.1, on a fresh
database, answering before the benchmark begins and stopped when it ends."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.cluster.harness import node_env  # the cluster bench builds its nodes with it


@contextlib.contextmanager
def serving(
    port: int, db: str, *extra: str, path: str | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """``nertz serve --port port --db db *extra``, once ``GET /`` answers (30 s at most;
    else ``SystemExit``), terminated when the block ends; ``path``: a source tree to run
    it from instead (first on its ``PYTHONPATH``: an older tree, to compare with)."""
    command = [sys.executable, "-m", "nertz", "serve", "--port", str(port), "--db", db, *extra]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **node_env(path)}
    server = subprocess.Popen(command, env=env)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=0.5)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.1)
        yield server
    finally:
        server.terminate()
        server.wait(20)
