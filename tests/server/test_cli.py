"""``nertz serve --play`` (what ``make play`` runs): a table against a first-timer's
bots ("Relaxed", ``--bots`` chooses others), and instructions that work."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from nertz.bots import CHOICES

from .conftest import free_port
from .test_app import Client


@pytest.mark.parametrize("bots", [None, "fierce"])
def test_serve_play_prints_a_table_you_can_join_and_play(tmp_path: Path, bots: str | None) -> None:
    port = free_port()
    db = tmp_path / "play.db"
    choose = ["--bots", bots] if bots else []
    command = [sys.executable, "-m", "nertz", "serve", "--play", *choose, "--port", str(port)]
    server = subprocess.Popen(
        [*command, "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        lines = []
        for line in server.stdout:
            lines.append(line)
            if line.startswith("then send:"):
                break
        text = "".join(lines)
        choice = CHOICES[bots or "relaxed"]
        assert f"ws://127.0.0.1:{port}/ws" in text
        assert f"against 3 bots ({choice.label}: Ben, Cleo, Dev)" in text  # names, not specs
        hello = json.loads(re.search(r"then send: (\{.*\})", text).group(1))  # type: ignore[union-attr]
        for _ in range(100):  # the lines come out just before the port opens
            try:
                me = Client(f"ws://127.0.0.1:{port}/ws")
                break
            except OSError:
                time.sleep(0.05)
        me.send(hello)
        state = me.recv()
        assert state["type"] == "state" and state["seat"] == 0
        seats = state["table"]["seats"]
        assert [s["bot"] for s in seats] == [None, *choice.as_dict()["specs"]]  # type: ignore[misc]
        assert [s["name"] for s in seats] == ["you", "Ben", "Cleo", "Dev"]
        me.send({"type": "ready"})
        me.until(lambda m: m["type"] == "event" and m["e"]["k"] == "countdown")
        me.send({"type": "play", "seq": 1, "move": "T"})
        assert me.until(lambda m: m["type"] in ("refused", "ack"))["code"] == "not_started"
        me.close()
    finally:
        server.terminate()
        server.wait(10)


def test_serve_without_uvloop_and_httptools_says_so(tmp_path: Path) -> None:
    """The fast event loop and HTTP parser are optional: asked for while missing, the
    server says which package to install; by default it runs without them and warns."""
    hidden = tmp_path / "hidden"
    for name in ("uvloop", "httptools"):
        (hidden / name).mkdir(parents=True)
        (hidden / name / "__init__.py").write_text("raise ImportError('not installed')\n")
    env = {**os.environ, "PYTHONPATH": str(hidden)}
    serve = [sys.executable, "-m", "nertz", "serve", "--db", str(tmp_path / "s.db")]
    for flag, name, other in (("--loop", "uvloop", "asyncio"), ("--http", "httptools", "h11")):
        asked = subprocess.run(
            [*serve, flag, name], env=env, capture_output=True, text=True, timeout=60
        )
        assert asked.returncode == 2
        assert f"{flag} {name} needs the {name} package (make install" in asked.stderr
        assert f"or give {flag} {other}" in asked.stderr
    port = free_port()
    server = subprocess.Popen(
        [*serve, "--port", str(port)], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                assert httpx.get(f"http://127.0.0.1:{port}/", timeout=1).status_code == 200
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and server.poll() is None
                time.sleep(0.1)
    finally:
        server.terminate()
        server.wait(10)
    assert server.stderr is not None
    warned = server.stderr.read()
    assert "uvloop is not installed: running on asyncio" in warned
    assert "httptools is not installed: running on h11" in warned
