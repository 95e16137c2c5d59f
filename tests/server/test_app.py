"""End to end: a real uvicorn server, real HTTP and WebSocket clients."""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import httpx
import pytest
from starlette.requests import Request
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from nertz.server.door.requests import RequestError, decode_body
from nertz.server.http.tables_api import JoinTable

from ..live_server import eventually
from .conftest import Live

BOTS = {"1": "demon:prompt", "2": "demon:prompt", "3": "demon:prompt"}


class Client:
    """A scripted WebSocket client that keeps every message it gets."""

    def __init__(self, url: str, **kwargs: Any) -> None:
        self.ws: ClientConnection = connect(url, **kwargs).__enter__()
        self.got: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any] | str) -> None:
        self.ws.send(message if isinstance(message, str) else json.dumps(message))

    def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        message = json.loads(self.ws.recv(timeout))
        self.got.append(message)
        return message

    def until(self, test: Any, timeout: float = 10.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            message = self.recv(max(0.01, end - time.monotonic()))
            if test(message):
                return message

    def close(self) -> None:
        self.ws.close()


def create(live: Live, **body: Any) -> dict[str, Any]:
    response = httpx.post(f"{live.http}/api/tables", json=body)
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


def join(live: Live, code: str, name: str, **body: Any) -> httpx.Response:
    return httpx.post(f"{live.http}/api/tables/{code}/join", json={"name": name, **body})


def is_event(kind: str) -> Any:
    return lambda m: m["type"] == "event" and m["e"]["k"] == kind


def test_a_full_match_over_websockets_against_three_bots(live: Live) -> None:
    table = create(live, bots=BOTS, options={"target": "20"}, countdown_ms=200, next_hand_s=2)
    seat = join(live, table["code"], "Ann").json()
    assert seat["seat"] == 0 and len(seat["token"]) >= 32
    me = Client(live.ws)
    me.send({"type": "hello", "table": table["code"], "token": seat["token"]})
    assert me.recv()["type"] == "state"
    me.send({"type": "ready"})
    seq = 0
    ends: list[dict[str, Any]] = []
    final: dict[str, Any] | None = None
    deadline = time.monotonic() + 40
    while final is None:
        assert time.monotonic() < deadline, "the match did not end"
        message = me.recv()
        events = message.get("events", []) if message["type"] == "ack" else [message]
        for m in events:
            if m["type"] != "event":
                continue
            kind = m["e"]["k"]
            if kind in ("go", "moved", "turned", "rotated") and m["e"].get("seat") in (0, None):
                me.send({"type": "resync"})
            elif kind == "hand_end":
                ends.append(m["e"])
                me.send({"type": "ready"})
            elif kind == "match_end":
                final = m["e"]
        if message["type"] == "state" and message["view"] and message["view"]["phase"] == "playing":
            legal = message["view"]["legal"]
            pick = next((x for x in legal if ">F" in x), "T" if "T" in legal else None)
            if pick:
                seq += 1
                me.send({"type": "play", "seq": seq, "move": pick})
        if message["type"] == "refused":
            me.send({"type": "resync"})
    totals = [0, 0, 0, 0]
    for end in ends:
        for s, score in enumerate(end["scores"]):
            assert score["score"] == score["middle"] - 2 * score["nertz_left"] + score["bonus"]
            totals[s] += score["score"]
    assert final["totals"] == totals and max(totals) >= 20
    assert final["winners"] == [s for s in range(4) if totals[s] == max(totals)]
    me.close()
    history = eventually(
        lambda: (
            (listed := httpx.get(f"{live.http}/api/matches").json()["matches"])
            and listed[0]["code"] == table["code"]
            and listed
        ),
        "the finished match in the history (the group commit)",
    )
    assert history[0]["code"] == table["code"] and history[0]["totals"] == totals
    stored = httpx.get(f"{live.http}/api/matches/{table['id']}").json()
    assert [h["scores"] for h in stored["hands"]] == [e["scores"] for e in ends]
    assert "match_end" in [e["e"]["k"] for e in stored["events"][-3:]]


def test_the_lobby_answers_bad_requests_with_a_code_and_a_sentence(live: Live) -> None:
    def post(path: str, body: Any) -> httpx.Response:
        return httpx.post(f"{live.http}{path}", json=body)

    bad = post("/api/tables", {"preset": "fast"})
    assert bad.status_code == 400 and bad.json()["error"] == "bad_rules"
    assert "presets are" in bad.json()["reason"]
    bad = post("/api/tables", {"options": {"draw": "2"}})
    assert bad.json() == {"error": "bad_rules", "reason": "option 'draw' must be 3 or 1, not 2"}
    bad = post("/api/tables", {"bots": {"1": "genius"}})
    assert bad.json()["error"] == "bad_bots" and "levels are" in bad.json()["reason"]
    bad = post("/api/tables", {"seats": 9})
    assert bad.json()["error"] == "bad_field"
    bad = post("/api/tables", {"sets": 4})
    assert bad.json()["error"] == "bad_field" and "sets" in bad.json()["reason"]
    json_type = {"Content-Type": "application/json"}
    garbled = httpx.post(f"{live.http}/api/tables", content=b"{", headers=json_type)
    assert garbled.json()["error"] == "bad_json"

    public = create(live, seats=2)
    private = create(live, seats=2, public=False)
    assert "key" in private and private["key"] not in private["code"]
    listed = [t["code"] for t in httpx.get(f"{live.http}/api/tables").json()["tables"]]
    assert public["code"] in listed and private["code"] not in listed
    refused = join(live, private["code"], "Bo")
    assert refused.status_code == 404 and refused.json()["error"] == "unknown_table"
    assert join(live, private["code"], "Bo", key=private["key"]).status_code == 200
    for name in ("", "x" * 25, "<script>", "a\u0000b"):
        answer = join(live, public["code"], name)
        assert answer.status_code == 400 and answer.json()["error"] == "bad_name", name
    assert join(live, public["code"], "Ann").json()["seat"] == 0
    assert join(live, public["code"], "Bo", seat=0).json()["error"] == "seat_taken"
    assert join(live, public["code"], "Cy").json()["seat"] == 1
    assert join(live, public["code"], "Di").json()["error"] == "table_full"
    assert join(live, "NOPE12", "Di").status_code == 404


def test_a_client_gone_before_its_body_came_is_a_refusal_not_a_server_error() -> None:
    """Half a join's body, then the client left: an ordinary refusal with a code (its
    answer goes nowhere), not an exception in the server's log."""
    messages = [
        {"type": "http.request", "body": b'{"name": "A', "more_body": True},
        {"type": "http.disconnect"},
    ]

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    scope = {"type": "http", "method": "POST", "path": "/api/tables/ABCD/join", "headers": []}
    with pytest.raises(RequestError) as refused:
        asyncio.run(decode_body(Request(scope, receive), JoinTable, "join"))
    assert refused.value.code == "body_incomplete" and refused.value.status == 400
    assert "join" in refused.value.reason


def test_websocket_limits_origin_size_and_rate(live: Live) -> None:
    with pytest.raises(InvalidStatus), connect(live.ws, origin="http://evil.example"):  # type: ignore[arg-type]
        pass
    same = Client(live.ws, origin=f"http://127.0.0.1:{live.port}")
    same.send({"type": "resync"})
    assert same.recv()["code"] == "not_joined"
    same.send("x" * 5000)
    answer = same.recv()
    assert answer["code"] == "too_big" and "4096" in answer["reason"]
    same.send({"type": "hello", "table": "NOPE12"})
    assert same.recv()["code"] == "unknown_table"
    # Flooding: refusals first, then the connection is closed.
    codes = []
    with pytest.raises(ConnectionClosed):
        try:
            for _ in range(400):
                same.send({"type": "resync"})
        except ConnectionClosed:
            pass  # closed while still flooding: the answers sent before are still readable
        while True:
            codes.append(same.recv(2)["code"])
    assert "rate_limited" in codes
    assert same.ws.close_code == 1008


def test_hostile_messages_over_the_wire_are_answered_and_the_connection_stays(
    live: Live,
) -> None:
    table = create(live, bots=BOTS, countdown_ms=0)
    token = join(live, table["code"], "Ann").json()["token"]
    me = Client(live.ws)
    me.send({"type": "hello", "table": table["code"], "token": token})
    me.recv()
    me.send({"type": "ready"})
    me.until(is_event("go"))
    rng = random.Random(4)
    hostile: list[str] = [
        "",
        "null",
        "[]",
        '{"type": "play"}',
        '{"type": "play", "seq": 1e400, "move": "T"}',
        '{"type": "play", "seq": 1, "move": "T", "seat": 3}',
        '{"type": "play", "seq": 2, "move": "' + "N>F" * 30 + '"}',
        '{"type": "hello", "table": "X", "token": "y"}',
        '{"type": "call", "seq": 3}',
        '{"type": "play", "seq": 4, "move": "9/9>9"}',
        '{"type": {"nested": [1, 2]}}',
        "\udcff" if False else "\u0000\u0001",
        '{"type": "play", "seq": -1, "move": "T"}',
    ]
    hostile += ["".join(chr(rng.randrange(32, 127)) for _ in range(20)) for _ in range(12)]
    for text in hostile:
        me.send(text)
        answer = me.until(lambda m: m["type"] in ("error", "refused", "ack"))
        assert answer["code" if answer["type"] != "ack" else "type"], text
        if answer["type"] != "ack":
            assert answer["reason"]
    me.send({"type": "resync"})
    state = me.until(lambda m: m["type"] == "state")
    assert state["seat"] == 0 and state["view"]["seats"][0]["nertz_count"] >= 1
