"""A cluster on this machine: ``nertz serve`` nodes (each its own process) on one
PostgreSQL and one Redis, behind HAProxy; for the tests, ``make cluster`` and
``bench/cluster.py``.

The nodes may run another source tree than the harness (``node_env``, and
``bench/cluster.py --node-python-path``): bisecting a regression starts an older tree's
nodes while this harness, and its imports, stay current.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from .. import services


@dataclass
class Node:
    node_id: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path | None = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def figures(self) -> dict[str, Any]:
        """``GET /`` of this node itself (not through the balancer)."""
        answer: dict[str, Any] = httpx.get(self.http + "/", timeout=5).json()
        return answer


@dataclass
class Cluster:
    pg: str
    redis: str
    nodes: list[Node]
    port: int = 0
    """The load balancer's."""
    logs: Path | None = None
    extra: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    """What the nodes' environment adds to the harness's (``node_env``)."""

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def node(self, node_id: str) -> Node:
        return next(n for n in self.nodes if n.node_id == node_id)

    def kill(self, node_id: str) -> None:
        """``kill -9``: no shutdown, no lease given back."""
        process = self.node(node_id).process
        process.kill()
        process.wait(10)

    def pause(self, node_id: str) -> None:
        os.kill(self.node(node_id).process.pid, signal.SIGSTOP)

    def resume(self, node_id: str) -> None:
        os.kill(self.node(node_id).process.pid, signal.SIGCONT)


def node_env(python_path: str | None = None, pairs: list[str] | None = None) -> dict[str, str]:
    """The environment nodes get on top of the harness's: ``KEY=VALUE`` pairs, and
    ``python_path`` (another tree's ``src``, built by its ``make install`` so that its
    compiled modules are there) put first on ``PYTHONPATH``, so ``python -m nertz``
    runs that tree's server."""
    env: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"{pair!r}: give KEY=VALUE")
        env[key] = value
    if python_path is not None:
        given = env.get("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (python_path, given) if p)
    return env


def node_command(port: int, env: dict[str, str] | None = None) -> dict[str, Any]:
    """``Popen`` arguments for ``nertz serve --port PORT`` (more flags to add) in the
    nodes' environment."""
    return {
        "args": [sys.executable, "-m", "nertz", "serve", "--port", str(port)],
        "env": {**os.environ, **env} if env else None,
    }


def start_node(
    node_id: str,
    pg: str,
    redis: str,
    extra: list[str],
    log: Path | None = None,
    env: dict[str, str] | None = None,
) -> Node:
    port = services.free_port()
    log = log or Path(tempfile.mkstemp(prefix=f"nertz-{node_id}-", suffix=".log")[1])
    out = open(log, "ab")  # noqa: SIM115 -- the child keeps it
    command = node_command(port, env)
    process = subprocess.Popen(
        [
            *command["args"],
            *("--db", pg, "--redis", redis, "--node-id", node_id),
            *("--forwarded-allow-ips", "127.0.0.1", *extra),
        ],
        env=command["env"],
        stdout=out,
        stderr=out,
    )
    out.close()
    return Node(node_id, port, process, log)


def _tail(log: Path | None) -> str:
    return "" if log is None else log.read_text(errors="replace")[-2000:]


def wait_up(node: Node, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(node.http + "/", timeout=1).status_code == 200:
                return
        if node.process.poll() is not None:
            raise AssertionError(f"node {node.node_id} died at startup: {_tail(node.log)}")
        assert time.monotonic() < deadline, f"node {node.node_id} did not start"
        time.sleep(0.1)


@contextlib.contextmanager
def running(
    pg: str,
    redis: str,
    count: int = 3,
    extra: list[str] | None = None,
    logs: Path | None = None,
    port: int | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[Cluster]:
    """``count`` nodes (``n1``, ``n2`` ...) and HAProxy in front of them; ``env`` adds
    to the nodes' environment (``node_env``)."""
    extra, env = extra or [], env or {}
    port = port or services.free_port()
    public = ["--public-url", f"http://127.0.0.1:{port}"]  # links name the balancer
    nodes = [
        start_node(f"n{i}", pg, redis, [*public, *extra], logs / f"n{i}.log" if logs else None, env)
        for i in range(1, count + 1)
    ]
    try:
        for node in nodes:
            wait_up(node)
        backends = [services.HaproxyBackend(n.node_id, n.port) for n in nodes]
        with services.haproxy(backends, port) as front:
            yield Cluster(pg, redis, nodes, front, logs, extra, env)
    finally:
        for node in nodes:
            services.stop(node.process)
