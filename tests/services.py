"""Private PostgreSQL, Redis and HAProxy instances from Debian's packages, for the
cluster's tests, ``make cluster`` and ``bench/cluster.py``.

Each runs in the foreground as a child process, on a free loopback port, with its data
in a temporary directory of its own, and is stopped (and its directory removed) when
its ``with`` block ends. Nothing here touches a system-wide instance.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "HaproxyBackend",
    "Missing",
    "RedisServer",
    "binary",
    "free_port",
    "haproxy",
    "haproxy_config",
    "postgres",
    "postgres_bin",
    "redis",
    "redis_server",
    "stop",
]

PACKAGES = "apt-get install postgresql redis-server haproxy"


class Missing(RuntimeError):
    """A service's binary is not installed (the message says which package brings it)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def postgres_bin() -> Path:
    """The newest installed PostgreSQL's ``bin`` (Debian keeps one per major version)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(p.split("/")[4])
    )
    if not found:
        raise Missing(f"no PostgreSQL in /usr/lib/postgresql ({PACKAGES})")
    return Path(found[-1]).parent


def binary(name: str, package: str | None = None) -> str:
    path = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if path is None:
        raise Missing(f"no {name} ({PACKAGES}: {package or name})")
    return path


def _wait_port(port: int, process: subprocess.Popen[bytes], what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited at start ({process.returncode})")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {port} within {timeout} s")


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM, timeout: float = 10) -> None:
    """Stop a child (``sig`` first, then SIGKILL) and reap it."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGCONT)  # a paused child cannot handle sig
            process.send_signal(sig)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout)


def _as_postgres_user() -> tuple[Callable[[], None] | None, int | None]:
    """PostgreSQL refuses to run as root: as root, run it as Debian's ``postgres``."""
    if os.geteuid() != 0:
        return None, None
    user = pwd.getpwnam("postgres")

    def demote() -> None:
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)

    return demote, user.pw_uid


@contextlib.contextmanager
def postgres(*, fsync: bool = True) -> Iterator[str]:
    """A fresh PostgreSQL cluster on a free port; yields its SQLAlchemy URL
    (``postgresql+psycopg://nertz@127.0.0.1:PORT/nertz``). ``fsync=False`` is for
    tests that do not crash the machine (a killed node never loses a commit either way:
    PostgreSQL's own process keeps running)."""
    bindir = postgres_bin()
    demote, uid = _as_postgres_user()
    root = Path(tempfile.mkdtemp(prefix="nertz-pg-"))
    data = root / "data"
    if uid is not None:
        os.chown(root, uid, -1)
    port = free_port()
    run = {"preexec_fn": demote, "stdout": subprocess.DEVNULL}
    subprocess.run(
        [str(bindir / "initdb"), "-D", str(data), "-U", "nertz", "--auth=trust", "-E", "UTF8"],
        check=True,
        stderr=subprocess.PIPE,
        **run,  # type: ignore[arg-type]
    )
    log = open(root / "postgres.log", "wb")  # noqa: SIM115 -- closed below
    process = subprocess.Popen(
        [
            str(bindir / "postgres"),
            "-D",
            str(data),
            "-p",
            str(port),
            "-k",
            str(root),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            f"fsync={'on' if fsync else 'off'}",
            "-c",
            "max_connections=200",
            "-c",
            "shared_buffers=64MB",
        ],
        preexec_fn=demote,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        _wait_port(port, process, "postgres", 30)
        deadline = time.monotonic() + 30
        while True:  # the port opens before the server accepts ("starting up")
            made = subprocess.run(
                [
                    str(bindir / "createdb"),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    str(port),
                    "-U",
                    "nertz",
                    "nertz",
                ],
                stderr=subprocess.PIPE,
                **run,  # type: ignore[arg-type]
            )
            if made.returncode == 0:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"createdb failed: {made.stderr.decode()}")
            time.sleep(0.2)
        yield f"postgresql+psycopg://nertz@127.0.0.1:{port}/nertz"
    finally:
        stop(process, signal.SIGINT)  # "fast" shutdown
        log.close()
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class RedisServer:
    """A private Redis (``redis_server``): its URL, and a restart that loses everything,
    as a Redis without persistence does when it crashes (``make cluster``'s)."""

    port: int
    root: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        exe = binary("redis-server")
        self.process = subprocess.Popen(
            [
                *(exe, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.root)),
                *("--save", "", "--appendonly", "no", "--daemonize", "no"),
                *("--loglevel", "warning"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_port(self.port, self.process, "redis-server", 15)

    def crash(self) -> None:
        """``kill -9``: every key is gone (``start`` brings it back empty)."""
        if self.process is not None:
            stop(self.process, signal.SIGKILL)

    def restart_empty(self) -> None:
        self.crash()
        self.start()

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)


@contextlib.contextmanager
def redis_server() -> Iterator[RedisServer]:
    """A fresh Redis on a free port, nothing saved to disk, that can be restarted."""
    binary("redis-server")
    server = RedisServer(free_port(), Path(tempfile.mkdtemp(prefix="nertz-redis-")))
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.root, ignore_errors=True)


@contextlib.contextmanager
def redis() -> Iterator[str]:
    """A fresh Redis on a free port, nothing saved to disk; yields ``redis://...``."""
    with redis_server() as server:
        yield server.url


def _wait_ready(port: int, timeout: float) -> None:
    """Until the balancer forwards (it answers 503 while no node has passed a check)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 2) as s:
            s.sendall(b"GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            if b" 503 " not in s.recv(64):
                return
        time.sleep(0.1)
    raise RuntimeError(f"haproxy on {port} had no node up within {timeout} s")


@dataclass(frozen=True, slots=True)
class HaproxyBackend:
    """One ``nertz serve`` node behind the load balancer."""

    node_id: str
    port: int


def haproxy_config(port: int, nodes: list[HaproxyBackend]) -> str:
    """The load balancer's configuration (docs/cluster.md explains it line by line)."""
    servers = "\n".join(
        f"    server {n.node_id} 127.0.0.1:{n.port} check inter 500 fall 2 rise 1" for n in nodes
    )
    routes = "\n".join(
        f"    use-server {n.node_id} if {{ urlp(node) -m str {n.node_id} }}" for n in nodes
    )
    return f"""global
    maxconn 8000
    nbthread 1

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h
    timeout check 5s
    option redispatch
    option forwardfor

frontend nertz
    bind 127.0.0.1:{port}
    default_backend nodes

backend nodes
    balance roundrobin
    option httpchk GET /
{routes}
{servers}
"""


@contextlib.contextmanager
def haproxy(nodes: list[HaproxyBackend], port: int | None = None) -> Iterator[int]:
    """HAProxy in front of ``nodes`` on a free port (or ``port``); yields the port."""
    exe = binary("haproxy")
    root = Path(tempfile.mkdtemp(prefix="nertz-haproxy-"))
    port = port or free_port()
    config = root / "haproxy.cfg"
    config.write_text(haproxy_config(port, nodes))
    process = subprocess.Popen(
        [exe, "-db", "-f", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port(port, process, "haproxy", 15)
        _wait_ready(port, 30)
        yield port
    finally:
        stop(process)
        shutil.rmtree(root, ignore_errors=True)
