"""Fair races over the real transport (R16, issue 23; docs/fairness.md, "Liars"): the
server sends a WebSocket ping frame with each of the table's pings, which the client's
WebSocket stack answers by itself, and a page that answers the table's pings late and
stamps its plays early gains nothing by it."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from nertz.server.http.app import Config, create_app
from nertz.server.http.services import services_of
from nertz.server.protocol import PROTOCOL_VERSION

from ..live_server import PATIENCE_S, free_port, running

LAYOUT = "nertz: 3H; work: 2H / 2S / 2D / 2C; stock: 9C 9D; waste: -"
"""Both seats hold the 2 of hearts: whoever plays it first to F1 (the ace) wins (R16)."""
MIDDLE = ["AH@0", "AS@0", "AD@0", "AC@0"]
GAP_MS = 80
"""The honest seat plays first by this much: a race it wins outright (tie window 40)."""


def now_ms() -> float:
    return time.monotonic() * 1000


class Page:
    """A seat's page: it answers the table's pings (``late_ms`` late, a liar's) and
    stamps its plays with the table's clock as it reads it (``early_ms`` early)."""

    def __init__(self, ws: ClientConnection, late_ms: float = 0, early_ms: float = 0) -> None:
        self.ws, self.late_ms, self.early_ms = ws, late_ms, early_ms
        self.offset: float | None = None
        self.pongs = 0
        self.go = asyncio.Event()
        self.answers: dict[int, asyncio.Future[dict[str, Any]]] = {}

    async def read(self) -> None:
        async for body in self.ws:
            message = json.loads(body)
            if message["type"] == "ping":
                if message["o"] is not None:
                    self.offset = message["o"]
                pong = json.dumps({"type": "pong", "t": message["t"], "c": now_ms()})
                await asyncio.sleep(self.late_ms / 1000)
                await self.ws.send(pong)
                self.pongs += 1
            elif message["type"] == "event" and message["e"]["k"] == "go":
                self.go.set()
            elif message["type"] in ("ack", "refused") and message["seq"] in self.answers:
                self.answers[message["seq"]].set_result(message)

    def play(self, seq: int, move: str) -> asyncio.Future[dict[str, Any]]:
        assert self.offset is not None
        stamp = round(now_ms() - self.offset - self.early_ms)
        answer = self.answers[seq] = asyncio.get_running_loop().create_future()
        message = {"type": "play", "seq": seq, "move": move, "at": stamp}
        asyncio.get_running_loop().create_task(self.ws.send(json.dumps(message)))
        return answer


async def race(config: Config, app: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The honest seat plays 2H to F1 first; the liar (pongs 100 ms late, stamps 100 ms
    early) plays it ``GAP_MS`` later. The answers: the honest seat's, the liar's."""
    url = f"http://127.0.0.1:{config.port}"
    body = {"layouts": [LAYOUT] * 2, "middle": MIDDLE, "seats": 2, "countdown_ms": 0}
    async with httpx.AsyncClient(base_url=url) as http:
        code = (await http.post("/api/test/tables", json=body)).json()["code"]
        tokens = [
            (await http.post(f"/api/tables/{code}/join", json={"name": name})).json()["token"]
            for name in ("Ann", "Bert")
        ]
    ws_url = f"ws://127.0.0.1:{config.port}/ws"
    async with connect(ws_url) as a, connect(ws_url) as b:
        honest, liar = Page(a), Page(b, late_ms=100, early_ms=100)
        readers = [asyncio.create_task(p.read()) for p in (honest, liar)]
        for page, token in ((honest, tokens[0]), (liar, tokens[1])):
            hello = {"type": "hello", "table": code, "token": token, "protocol": PROTOCOL_VERSION}
            await page.ws.send(json.dumps(hello))
            await page.ws.send(json.dumps({"type": "ready"}))
        table = services_of(app).lobby.find(code).table

        def clocks() -> list[Any]:
            return list(table.fair.clocks.values())

        deadline = time.monotonic() + PATIENCE_S
        while not (
            honest.go.is_set()
            and liar.pongs >= 6  # its clock has learnt it "far away"
            and all(sum(s.wire_ms is not None for s in c.samples) >= 4 for c in clocks())
            and len(table.fair.clocks) == 2
        ):
            assert time.monotonic() < deadline, "the pings and ping frames never came"
            await asyncio.sleep(0.05)
        first = honest.play(1, "1>F1")
        await asyncio.sleep(GAP_MS / 1000)
        second = liar.play(1, "1>F1")
        answers = await asyncio.wait_for(asyncio.gather(first, second), PATIENCE_S)
        for reader in readers:
            reader.cancel()
    return answers[0], answers[1]


def test_a_page_that_answers_late_and_stamps_early_loses_the_race_it_lost(
    tmp_path: Path,
) -> None:
    """R16: the card played first wins. A page that holds its pongs back 100 ms and
    stamps 100 ms early would be credited 60 ms early by the table's pings alone (a tie
    here); the ping frames show its true round trip, and it loses by what it lost."""
    config = Config(db=str(tmp_path / "wire.db"), port=free_port(), test_hooks=True)
    app = create_app(config)
    with running(config, app=app):
        honest, liar = asyncio.run(race(config, app))
    assert honest["type"] == "ack"
    assert liar["type"] == "refused" and liar["code"] == "beaten", liar
