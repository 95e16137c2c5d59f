"""The store: records in and out, and a server killed with SIGKILL that comes back
with every acknowledged play."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from nertz.engine import Rules
from nertz.server.lobby.lobby import Lobby
from nertz.server.store.store import Store, TableCreated
from nertz.server.table.commands import Stage
from nertz.server.table.records import DealRecord, InputRecord
from nertz.server.table.settings import Settings
from nertz.server.table.table import restore_from_records

from .conftest import free_port
from .harness import Harness
from .test_app import Client
from .test_table import fast


def test_records_written_and_read_back_rebuild_the_same_table(tmp_path: Path) -> None:
    records_round_trip(str(tmp_path / "s.db"))


def records_round_trip(db: str) -> None:
    """A table's records written and read back rebuild the same table (any backend)."""
    h = Harness(Rules(), fast())
    h.join("ann", "t0")
    h.connect(1, "t0")
    h.send(1, {"type": "ready"})
    h.run_until(lambda: h.table.stage is Stage.PLAYING)
    h.advance(3000)
    store = Store(db)
    created = TableCreated("TEST", None, True, Rules().as_dict(), fast().as_dict(), 0.0)
    store.submit("t1", [created, *h.records[:10]])
    store.submit("t1", h.records[10:])
    store.flush()
    [stored] = store.unfinished()
    assert stored.code == "TEST" and Settings.from_dict(stored.settings) == fast()
    again = restore_from_records("TEST", Rules(**stored.rules), fast(), stored.records)
    assert again.hand is not None and h.table.hand is not None
    assert again.hand.snapshot() == h.table.hand.snapshot()
    assert again.events[: h.table.version] == h.table.events
    assert store.errors == 0 and store.commit_lag_ms < 1000
    store.close()


def _serve(port: int, db: Path | str, *flags: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "nertz", "serve", "--port", str(port), "--db", str(db), *flags],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60  # a loaded machine: 2 cores shared by many
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/", timeout=0.5).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        assert proc.poll() is None, "the server died at startup"
        if time.monotonic() > deadline:
            proc.kill()  # never left running after the test
            proc.wait(10)
            raise AssertionError("the server did not start")
        time.sleep(0.05)


def _play(me: Client, seq: int) -> dict[str, Any]:
    """Look, then play a card if any moves, else turn; return the ack or refusal."""
    me.send({"type": "resync"})
    legal = me.until(lambda m: m["type"] == "state")["view"]["legal"]
    moves = [m for m in legal if m not in ("STUCK", "NERTZ")]
    cards = [m for m in moves if m != "T"]
    me.send({"type": "play", "seq": seq, "move": (cards or moves)[0]})
    return me.until(lambda m: m["type"] in ("ack", "refused") and m["seq"] == seq)


def _strip(state: dict[str, Any]) -> dict[str, Any]:
    view = dict(state["view"])
    view.pop("now_ms")
    return view


def test_kill_9_mid_hand_then_restart_resumes_with_every_acknowledged_play(
    tmp_path: Path,
) -> None:
    kill_9_then_restart(str(tmp_path / "crash.db"))


def kill_9_then_restart(db: str) -> None:
    """SIGKILL right after an ack, restart on the same database: every acknowledged
    play is there and play goes on (any backend)."""
    port = free_port()
    http = f"http://127.0.0.1:{port}"
    server = _serve(port, db)
    try:
        table = httpx.post(
            f"{http}/api/tables",
            json={"seats": 2, "countdown_ms": 0, "options": {"idle_rotate_s": 0}},
        ).json()
        tokens = [
            httpx.post(f"{http}/api/tables/{table['code']}/join", json={"name": n}).json()["token"]
            for n in ("Ann", "Bo")
        ]
        people = [Client(f"ws://127.0.0.1:{port}/ws") for _ in tokens]
        for me, token in zip(people, tokens):
            me.send({"type": "hello", "table": table["code"], "token": token})
            me.send({"type": "ready"})
        for me in people:
            me.until(lambda m: m["type"] == "event" and m["e"]["k"] == "go")
        acked = []
        for seq in range(1, 13):
            answer = _play(people[seq % 2], seq)
            if answer["type"] == "ack":
                acked.append(answer["v"])
        assert len(acked) >= 8
        # No pause: a state asked for now comes after those acks, so it is committed too.
        people[0].send({"type": "resync"})
        before = people[0].until(lambda m: m["type"] == "state")
        assert before["v"] >= max(acked)
        last = _play(people[1], 13)
        while last["type"] != "ack":
            last = _play(people[1], last["seq"] + 1)
        server.kill()  # SIGKILL at once after the ack: no shutdown, no flush, no grace
        server.wait(10)
        for me in people:
            me.close()

        server = _serve(port, db)
        again = Client(f"ws://127.0.0.1:{port}/ws")
        again.send(
            {
                "type": "hello",
                "table": table["code"],
                "token": tokens[0],
                "last_version": before["v"],
                "epoch": before["epoch"],
            }
        )
        # A new incarnation: a full state, never events patched onto the old versions.
        after = again.until(lambda m: m["type"] in ("state", "event"))
        assert after["type"] == "state" and after["epoch"] != before["epoch"]
        # The play acknowledged last, just before the kill, is there (the log is a prefix:
        # had it been lost, the rebuilt table would stop short of its version).
        assert after["v"] > last["v"]
        assert after["table"]["stage"] == "playing"
        assert _play(again, 100)["type"] in ("ack", "refused")  # and play goes on
        again.close()
        history = json.loads(httpx.get(f"{http}/api/tables/{table['code']}").text)
        assert history["stage"] == "playing"
    finally:
        server.terminate()
        server.wait(10)


def test_kill_9_between_matches_of_a_series_then_restart_plays_the_next_match(
    tmp_path: Path,
) -> None:
    db = tmp_path / "series.db"
    port = free_port()
    http = f"http://127.0.0.1:{port}"
    server = _serve(port, db, "--speed", "20")  # a demon bot wins a one-hand match fast
    try:
        table = httpx.post(
            f"{http}/api/tables",
            json={
                "seats": 2,
                "bots": {"1": "demon:racer"},
                "options": {"match": "single"},
                "countdown_ms": 0,
            },
        ).json()
        code = table["code"]
        token = httpx.post(f"{http}/api/tables/{code}/join", json={"name": "Ann"}).json()["token"]
        ann = Client(f"ws://127.0.0.1:{port}/ws")
        ann.send({"type": "hello", "table": code, "token": token})
        ann.send({"type": "ready"})
        end = ann.until(lambda m: m["type"] == "event" and m["e"]["k"] == "match_end", 60)
        assert end["e"]["winners"] == [1]  # Ann never played
        # An event goes out only once committed: the finished match is on disk now.
        server.kill()  # SIGKILL: no shutdown, no flush, no grace
        server.wait(10)
        ann.close()

        server = _serve(port, db, "--speed", "20")
        ann = Client(f"ws://127.0.0.1:{port}/ws")
        ann.send({"type": "hello", "table": code, "token": token})
        state = ann.until(lambda m: m["type"] == "state")
        # The table came back between its matches: over, the series 0-1, Ann's seat hers.
        assert state["table"]["stage"] == "over"
        played = [["Ann", "Ben"]]  # who played the finished match (Ben, the bot)
        assert state["table"]["series"] == {
            "match": 1,
            "wins": [0, 1],
            "first_hand": 1,
            "names": played,
            "winners": [[1]],
        }
        assert state["seat"] == 0 and state["host_start_ms"] > state["now_ms"]
        ann.send({"type": "again"})  # Play again: the only person here, so it deals
        nxt = ann.until(lambda m: m["type"] == "event" and m["e"]["k"] == "next_match")
        assert nxt["e"] == {"k": "next_match", "match": 2, "wins": [0, 1]}
        dealt = ann.until(lambda m: m["type"] == "event" and m["e"]["k"] == "dealt")
        assert dealt["e"]["hand"] == 2  # hands are numbered across the series
        ann.close()
        shown = httpx.get(f"{http}/api/tables/{code}").json()
        assert shown["series"] == {
            "match": 2,
            "wins": [0, 1],
            "first_hand": 2,
            "names": played,
            "winners": [[1]],
        }
    finally:
        server.terminate()
        server.wait(10)


def test_a_stored_log_that_no_longer_replays_is_left_out_not_resumed_wrong(
    tmp_path: Path,
) -> None:
    h = Harness(Rules(), fast())
    h.join("ann", "t0")
    h.connect(1, "t0")
    h.send(1, {"type": "ready"})
    h.run_until(lambda: h.table.stage is Stage.PLAYING)
    store = Store(str(tmp_path / "bad.db"))
    created = TableCreated("GOOD", None, True, Rules().as_dict(), fast().as_dict(), 0.0)
    store.submit("good", [created, *h.records])
    deal = next(r for r in h.records if isinstance(r, DealRecord))
    broken = TableCreated("BAD", None, True, Rules().as_dict(), fast().as_dict(), 1.0)
    store.submit("bad", [broken, deal, InputRecord(1, 0, 5, 0, "N>F9")])  # refused: corrupt
    store.flush()

    async def resume() -> list[str]:
        lobby = Lobby(store)
        assert lobby.restore() == 1
        codes = list(lobby.tables)
        await lobby.stop()
        return codes

    assert asyncio.run(resume()) == ["GOOD"]
    store.close()
