"""A real server (a subprocess) killed with SIGKILL right after an event: the client
that comes back with its last version and epoch is never silently out of step — it
gets a full state, or the events after its version with no gap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from .conftest import free_port
from .test_app import Client
from .test_store import _serve

BOTS = {"1": "demon:prompt", "2": "demon:prompt", "3": "demon:prompt"}


def _hello(port: int, code: str, token: str, last: int, epoch: str | None) -> Client:
    me = Client(f"ws://127.0.0.1:{port}/ws")
    me.send({"type": "hello", "table": code, "token": token, "last_version": last, "epoch": epoch})
    return me


def _in_step(me: Client, last: int) -> tuple[int, str | None]:
    """Read what a resuming client gets until it has a full state, checking that every
    event before it follows on from ``last`` with no gap; the state's version and epoch."""
    version = last
    while True:
        message: dict[str, Any] = me.recv(15)
        if message["type"] == "state":
            assert message["v"] >= version, "the state is older than what was seen"
            return message["v"], message["epoch"]
        events = message["events"] if message["type"] == "ack" else [message]
        for event in events:
            if event["type"] == "event":
                assert event["v"] == version + 1, f"event {event['v']} after {version}: a gap"
                version = event["v"]


def test_kill_9_right_after_an_event_never_leaves_a_client_out_of_step(tmp_path: Path) -> None:
    port, db = free_port(), tmp_path / "events.db"
    http = f"http://127.0.0.1:{port}"
    server = _serve(port, db)
    try:
        table = httpx.post(
            f"{http}/api/tables", json={"bots": BOTS, "countdown_ms": 0, "next_hand_s": 1}
        ).json()
        code = table["code"]
        token = httpx.post(f"{http}/api/tables/{code}/join", json={"name": "Ann"}).json()["token"]
        me = _hello(port, code, token, -1, None)
        last, epoch = _in_step(me, -1)
        me.send({"type": "ready"})
        for kill in range(4):
            while True:  # the next event the bots' play sends Ann, then SIGKILL at once
                message = me.recv(20)
                if message["type"] == "event":
                    assert message["v"] == last + 1
                    last = message["v"]
                    if message["e"]["k"] in ("moved", "turned"):
                        break
                elif message["type"] == "state":
                    last, epoch = message["v"], message["epoch"]
            server.kill()
            server.wait(10)
            me.close()
            server = _serve(port, db)
            me = _hello(port, code, token, last, epoch)
            seen, new_epoch = _in_step(me, last)
            assert new_epoch != epoch, f"kill {kill}: the restored table is a new incarnation"
            last, epoch = seen, new_epoch
        me.close()
    finally:
        server.terminate()
        server.wait(10)
