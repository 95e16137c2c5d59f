"""``nertz serve --play`` (what ``make play`` runs): a table against three bots, and
instructions that work."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

from .conftest import free_port
from .test_app import Client


def test_serve_play_prints_a_table_you_can_join_and_play(tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "play.db"
    server = subprocess.Popen(
        [sys.executable, "-m", "nertz", "serve", "--play", "--port", str(port), "--db", str(db)],
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
        assert f"ws://127.0.0.1:{port}/ws" in text and "against three bots" in text
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
        assert [s["bot"] is not None for s in state["table"]["seats"]] == [False, True, True, True]
        me.send({"type": "ready"})
        me.until(lambda m: m["type"] == "event" and m["e"]["k"] == "countdown")
        me.send({"type": "play", "seq": 1, "move": "T"})
        assert me.until(lambda m: m["type"] in ("refused", "ack"))["code"] == "not_started"
        me.close()
    finally:
        server.terminate()
        server.wait(10)
