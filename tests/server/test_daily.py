"""The daily deal (issue 27, point 4; ``lobby/daily.py``, ``http/daily_api.py``): one deal
a day for everyone from a seed kept on the server until the day is over, one counted
try per player, the day's board read from the hands the server dealt. A real server
whose day is a test clock's (``Config.clock``): no test waits for a day."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from nertz.engine import deal, preset
from nertz.server.door.limits import Limits
from nertz.server.http.app import Config
from nertz.server.lobby.daily import Attempt, DailyDeals
from nertz.server.store.store import Store, TableCreated
from nertz.server.table.records import DealRecord, MatchRecord, ScoreRecord

from ..live_server import PATIENCE_S, eventually, free_port, running

SPEED = 20.0
"""The tables' clocks run this much faster (``Config.speed``): the bots play a hand in
seconds."""
ROOMY = Limits(
    creates_per_minute=10_000,
    open_tables_per_address=10_000,
    bot_tables_per_address=10_000,
    joins_per_minute=10_000,
    devices_per_hour=10_000,
    histories_per_minute=10_000,
    requests_per_s=10_000,
    costly_per_minute=10_000,
)
"""Every request comes from 127.0.0.1: no quota of the address gets in the way."""
ELSEWHERE = "203.0.113.7"
"""Another address, named by the trusted proxy (the test itself, ``X-Forwarded-For``)."""
SEAT_KEYS = {
    "seat",
    "nertz_top",
    "nertz_count",
    "work",
    "pinned",
    "stock_count",
    "waste_count",
    "waste",
    "middle",
    "stuck",
}
"""All a view says of a seat (``engine/view.py``): face-down cards as counts only."""


class DayClock:
    """The server's wall clock: the real one, ``ahead`` seconds on (a day: 86,400)."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead

    def today(self) -> dt.date:
        return dt.datetime.fromtimestamp(self(), dt.UTC).date()


@dataclass
class Server:
    http: str
    clock: DayClock
    db: Path
    seen: list[str] = field(default_factory=list)
    """Every HTTP answer's body, as text."""

    def get(self, path: str, device: str | None = None, address: str | None = None) -> Any:
        answer = httpx.get(self.http + path, headers=_headers(device, address))
        self.seen.append(answer.text)
        return answer

    def start(
        self,
        device: str | None,
        name: str = "Ann",
        address: str | None = None,
        **body: Any,
    ) -> httpx.Response:
        answer = httpx.post(
            self.http + "/api/daily", json={"name": name, **body}, headers=_headers(device, address)
        )
        self.seen.append(answer.text)
        return answer

    def rows(self, query: str, *args: Any) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.db) as conn:
            return conn.execute(query, args).fetchall()


def _headers(device: str | None, address: str | None) -> dict[str, str]:
    headers = {}
    if device is not None:
        headers["X-Nertz-Device"] = device
    if address is not None:
        headers["X-Forwarded-For"] = address
    return headers


def daily_seed(secret: bytes, day: dt.date) -> int:
    """The day's seed as docs/protocol.md gives it: the first 63 bits of
    HMAC-SHA256(secret, ``nertz-daily:D``)."""
    mac = hmac.new(secret, f"nertz-daily:{day.isoformat()}".encode(), hashlib.sha256)
    return int.from_bytes(mac.digest()[:8], "big") >> 1


def device() -> str:
    return secrets.token_hex(32)  # as the browser makes it (device.js)


@contextmanager
def serving(db: Path, clock: DayClock, secret: str | None = None) -> Iterator[Server]:
    config = Config(
        db=str(db),
        port=free_port(),
        speed=SPEED,
        limits=ROOMY,
        forwarded_allow_ips="127.0.0.1",
        clock=clock,
        daily_secret=secret,
    )
    with running(config) as port:
        yield Server(f"http://127.0.0.1:{port}", clock, db)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with serving(tmp_path / "daily.db", DayClock()) as served:
        yield served


def play_to_the_end(server: Server, made: dict[str, Any]) -> list[str]:
    """The person at ``made``'s seat says ready and leaves the cards to the bots until
    the match (one hand) is over; every message the page got, as text."""
    got: list[str] = []
    with connect(server.http.replace("http", "ws") + "/ws") as ws:
        ws.send(json.dumps({"type": "hello", "table": made["code"], "token": made["token"]}))
        ws.send(json.dumps({"type": "ready"}))
        deadline = time.monotonic() + PATIENCE_S
        while True:
            text = ws.recv(max(0.01, deadline - time.monotonic()))
            assert isinstance(text, str)
            got.append(text)
            message = json.loads(text)
            if message["type"] == "event" and message["e"]["k"] == "go":
                ws.send(json.dumps({"type": "play", "seq": 1, "move": "T"}))  # a card turned
            if message["type"] == "event" and message["e"]["k"] == "match_end":
                return got


def stored_hand(server: Server, table_id: str) -> tuple[int, list[str], int]:
    """The seed and layouts the table's first hand was dealt, and seat 0's score, as
    the store keeps them (once the hand is scored)."""

    def scored() -> tuple[Any, ...] | None:
        rows = server.rows(
            "SELECT seed, layouts, scores FROM hands WHERE table_id = ? AND number = 1", table_id
        )
        return rows[0] if rows and rows[0][2] is not None else None

    seed, layouts, scores = eventually(scored, "the hand's scores in the store")
    return int(seed), json.loads(layouts), int(json.loads(scores)[0]["score"])


def table_id(server: Server, code: str) -> str:
    return str(server.rows("SELECT id FROM tables WHERE code = ?", code)[0][0])


def secret_of(server: Server) -> bytes:
    return str(server.rows("SELECT value FROM server_secrets WHERE name = 'daily'")[0][0]).encode()


def hidden_runs(layout: str) -> list[str]:
    """Each run of five cards that lay face down together at the deal, as JSON would
    list them (either way round): the Nertz pile under its top card (R4), the stock (R6)."""
    parts = dict(part.strip().split(":", 1) for part in layout.split(";"))
    nertz, stock = parts["nertz"].split(), parts["stock"].split()
    runs = []
    for cards in (nertz[:-1], stock):
        for order in (cards, cards[::-1]):
            for at in range(len(order) - 4):
                runs.append(",".join(f'"{c}"' for c in order[at : at + 5]))
    return runs


def seat_views(message: Any) -> Iterator[dict[str, Any]]:
    """Every seat of every view or table a message holds, however deep."""
    if isinstance(message, dict):
        seats = message.get("seats")
        if isinstance(seats, list) and "foundations" in message:
            yield from seats
        for value in message.values():
            yield from seat_views(value)
    elif isinstance(message, list):
        for value in message:
            yield from seat_views(value)


def test_the_seed_and_the_face_down_cards_stay_on_the_server_until_the_day_is_over(
    server: Server,
) -> None:
    ann = device()
    today = server.clock.today()
    before = server.get("/api/daily", ann).json()
    assert before["date"] == today.isoformat() and before["seed"] is None
    made = server.start(ann, date=today.isoformat())
    assert made.status_code == 201, made.text
    seat = made.json()
    assert seat["counted"] is True and seat["date"] == today.isoformat()
    code, key = seat["code"], seat["key"]
    server.get(f"/api/tables/{code}?key={key}")
    wire = play_to_the_end(server, seat)
    match = table_id(server, code)
    seed, layouts, _ = stored_hand(server, match)
    assert seed == daily_seed(secret_of(server), today), "the table dealt the day's deal"
    # Every HTTP answer a player might ask for while the day runs.
    server.get(f"/api/tables/{code}?key={key}")
    server.get("/api/daily", ann)
    server.get(f"/api/daily/{today.isoformat()}", ann)
    server.get("/api/me", ann)
    server.get("/api/matches")
    server.get(f"/api/matches/{match}")
    server.get(f"/api/matches/{match}/1", ann)
    notation = server.get(f"/api/matches/{match}/notation")
    assert notation.status_code == 409 and notation.json()["error"] == "daily_withheld"
    # The replay and the analysis show the cards face up: not to someone who has not
    # played the day's deal (another device, another address).
    face_up = ("replay?hand=1", "analysis?hand=1&seat=0", "advice?hand=1&seat=0&t=500")
    for path in face_up:
        stranger = server.get(f"/api/matches/{match}/{path}", device(), address=ELSEWHERE)
        assert stranger.status_code == 409, (path, stranger.text)
        assert stranger.json()["error"] == "daily_withheld", path
    said = wire + server.seen
    numbers = {str(seed), f"{seed:x}", f"{seed:016x}"}
    runs = [run for layout in layouts for run in hidden_runs(layout)]
    for text in said:
        assert not any(n in text for n in numbers), f"the seed went out: {text[:200]}"
        assert not any(layout in text for layout in layouts), f"a layout went out: {text[:200]}"
        leaked = next((run for run in runs if run in text), None)
        assert leaked is None, f"face-down cards {leaked} went out in order: {text[:200]}"
    seats = [s for text in wire for s in seat_views(json.loads(text))]
    assert seats, "the page was shown the table"
    assert all(set(s) <= SEAT_KEYS for s in seats), "a seat shows face-down cards as counts only"
    # She played it to its end: her own replay and analysis show it.
    for path in face_up:
        assert server.get(f"/api/matches/{match}/{path}", ann).status_code == 200, path
    # The next day the seed is published, with the deal, and matches its fingerprint.
    server.clock.ahead = 86_400
    shown = server.get(f"/api/daily/{today.isoformat()}").json()
    assert shown["seed"] == str(seed) and shown["layouts"] == layouts
    text = f"nertz-daily:{today.isoformat()}:{seed}".encode()
    assert shown["commitment"] == before["commitment"] == hashlib.sha256(text).hexdigest()
    rules = preset("standard").with_options(match="single")  # one hand (R32)
    assert [str(line) for line in deal(4, rules, seed).layouts] == layouts
    assert server.get(f"/api/matches/{match}/notation").status_code == 200


def test_yesterdays_board_stays_readable_with_its_seed(server: Server) -> None:
    ann = device()
    yesterday = server.clock.today()
    seat = server.start(ann, name="Ann").json()
    play_to_the_end(server, seat)
    match = table_id(server, seat["code"])
    seed, _, score = stored_hand(server, match)
    board = eventually(
        lambda: (b := server.get("/api/daily", ann).json())["players"] == 1 and b,
        "Ann's try on the board",
    )
    assert board["rows"][0]["name"] == "Ann" and board["rows"][0]["score"] == score
    assert board["rows"][0]["ms"] > 0, "the hand's time, from Go"
    assert board["you"]["entry"]["rank"] == 1, "her own try, marked as hers"
    assert board["best"]["link"] == f"/replay/{match}?hand=1", "the best hand, once she played"
    unplayed = server.get("/api/daily", device(), address=ELSEWHERE).json()
    assert unplayed["best"] is None, "not to someone who has not played"
    assert sum(bar["count"] for bar in board["histogram"]) == 1
    server.clock.ahead = 86_400  # the next day
    old = server.get(f"/api/daily/{yesterday.isoformat()}").json()
    assert old["date"] == yesterday.isoformat() and old["today"] is False
    assert old["seed"] == str(seed) and old["players"] == 1
    assert old["rows"][0] == board["rows"][0]
    assert old["best"]["link"] == f"/replay/{match}?hand=1", "public once the day is over"
    today = server.get("/api/daily", ann).json()
    assert today["date"] != yesterday.isoformat() and today["players"] == 0
    assert today["you"]["counted"] is False, "a new day, a new try"
    again = server.start(ann)
    assert again.status_code == 201, again.text
    second = table_id(server, again.json()["code"])
    assert server.get(f"/api/daily/{today['date']}").json()["seed"] is None
    page = httpx.get(f"{server.http}/daily/{yesterday.isoformat()}")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert second != match


def test_one_counted_try_per_device_and_per_address(server: Server) -> None:
    ann, fresh = device(), device()
    first = server.start(ann)
    assert first.status_code == 201 and first.json()["counted"] is True
    again = server.start(ann)
    assert again.status_code == 409 and again.json()["error"] == "daily_played"
    assert "practi" in again.json()["reason"], "the refusal offers practice"
    # A fresh device secret from the same address buys no second try ...
    other = server.start(fresh, name="Ann2")
    assert other.status_code == 409 and other.json()["error"] == "daily_played"
    assert "this address" in other.json()["reason"]
    # ... nor the same device from another address.
    moved = server.start(ann, address=ELSEWHERE)
    assert moved.status_code == 409 and moved.json()["error"] == "daily_played"
    assert "this browser" in moved.json()["reason"]
    # Practice replays, as many as wanted, after the counted try; not before one.
    for _ in range(2):
        replay = server.start(fresh, practice=True)
        assert replay.status_code == 201 and replay.json()["counted"] is False
    before = server.start(device(), address=ELSEWHERE, practice=True)
    assert before.status_code == 409 and before.json()["error"] == "daily_not_played"
    # Someone else, elsewhere, has their own counted try.
    assert server.start(device(), name="Bea", address=ELSEWHERE).status_code == 201
    counted = server.rows("SELECT counted, account FROM daily_attempts ORDER BY id")
    assert counted == [(1, None), (0, None), (0, None), (1, None)]
    seen = server.get("/api/daily", fresh).json()["you"]
    assert seen["counted"] is True and seen["by"] == "address"
    assert server.start(None).json()["error"] == "no_device"


def test_a_try_left_to_a_bot_is_used_and_not_on_the_board(server: Server) -> None:
    """Leaving the table gives the place to a bot (``seats.release``): the bot's hand
    is nobody's score, and the day's try is spent all the same."""
    ann = device()
    seat = server.start(ann).json()
    with connect(server.http.replace("http", "ws") + "/ws") as ws:
        ws.send(json.dumps({"type": "hello", "table": seat["code"], "token": seat["token"]}))
        ws.send(json.dumps({"type": "ready"}))
        deadline = time.monotonic() + PATIENCE_S
        while True:
            message = json.loads(ws.recv(max(0.01, deadline - time.monotonic())))
            if message["type"] == "event" and message["e"]["k"] == "go":
                break
        ws.send(json.dumps({"type": "leave"}))
    match = table_id(server, seat["code"])
    stored_hand(server, match)  # the bots played the hand out
    eventually(
        lambda: server.rows("SELECT 1 FROM series WHERE table_id = ?", match),
        "the match's end in the store",
    )
    board = server.get("/api/daily", ann).json()
    assert board["players"] == 0 and board["rows"] == []
    assert board["you"]["counted"] is True and board["you"]["done"] is False
    refused = server.start(ann)
    assert refused.status_code == 409 and refused.json()["error"] == "daily_played"


def test_a_restart_keeps_the_days_deal_and_its_board(tmp_path: Path) -> None:
    clock, db, ann = DayClock(), tmp_path / "kept.db", device()
    with serving(db, clock) as server:  # no secret configured: the server makes one
        seat = server.start(ann).json()
        play_to_the_end(server, seat)
        match = table_id(server, seat["code"])
        seed, layouts, score = stored_hand(server, match)
        board = eventually(
            lambda: (b := server.get("/api/daily").json())["players"] == 1 and b,
            "the try on the board",
        )
        secret = secret_of(server)
    with serving(db, clock) as server:
        assert secret_of(server) == secret
        assert server.get("/api/daily").json()["rows"] == board["rows"]
        assert board["rows"][0]["score"] == score
        refused = server.start(ann)
        assert refused.status_code == 409 and refused.json()["error"] == "daily_played"
        replay = server.start(ann, practice=True).json()
        play_to_the_end(server, replay)
        again, again_layouts, _ = stored_hand(server, table_id(server, replay["code"]))
        assert (again, again_layouts) == (seed, layouts), "the same deal after the restart"


def test_a_forged_result_or_try_is_refused_and_changes_nothing(server: Server) -> None:
    ann = device()
    today = server.clock.today()
    forged = server.start(ann, score=60, ms=1000)
    assert forged.status_code == 400 and forged.json()["error"] == "bad_field"
    assert "score" in forged.json()["reason"] or "ms" in forged.json()["reason"]
    posted = httpx.post(
        f"{server.http}/api/daily/{today.isoformat()}",
        json={"name": "Ann", "score": 60},
        headers={"X-Nertz-Device": ann},
    )
    assert posted.status_code == 405 and posted.json()["error"] == "read_only"
    yesterday = (today - dt.timedelta(days=1)).isoformat()
    late = server.start(ann, date=yesterday)
    assert late.status_code == 409 and late.json()["error"] == "not_today"
    ahead = server.get(f"/api/daily/{(today + dt.timedelta(days=1)).isoformat()}")
    assert ahead.status_code == 404 and ahead.json()["error"] == "daily_not_yet"
    bad = server.get("/api/daily/2026-13-40")
    assert bad.status_code == 400 and bad.json()["error"] == "bad_date"
    assert server.rows("SELECT COUNT(*) FROM daily_attempts") == [(0,)]
    board = server.get("/api/daily", ann).json()
    assert board["players"] == 0 and board["you"]["counted"] is False
    assert server.start(ann).status_code == 201, "her one counted try is still hers"
    # A second counted start is the forged try: refused, and still one try kept.
    assert server.start(ann).status_code == 409
    assert server.rows("SELECT COUNT(*) FROM daily_attempts") == [(1,)]


def test_the_daily_routes_are_quotas_of_the_address(tmp_path: Path) -> None:
    """The start is a table made and a join (as a practice table's); the board a request."""
    limits = Limits(creates_per_minute=2, requests_per_s=10_000, devices_per_hour=10_000)
    config = Config(db=str(tmp_path / "q.db"), port=free_port(), limits=limits)
    with running(config) as port:
        http = f"http://127.0.0.1:{port}"
        answers = [
            httpx.post(
                f"{http}/api/daily",
                json={"practice": i > 0},
                headers={"X-Nertz-Device": device()},
            )
            for i in range(3)
        ]
        assert [a.status_code for a in answers[:2]] == [201, 201], [a.text for a in answers]
        assert answers[2].status_code == 429
        assert answers[2].json()["error"] in ("too_many_creates", "too_many_open_tables")


def test_a_replay_shows_a_daily_tries_cards_only_to_someone_who_has_played_the_day(
    tmp_path: Path,
) -> None:
    """``DailyDeals.shown_to``, the replay viewer's check: a try at today's deal is shown
    face up only to someone whose own counted try is over; any other table to anyone,
    and that one to anyone once the day is over."""
    store, clock = Store(str(tmp_path / "shown.db")), DayClock()
    try:
        daily = DailyDeals(store.engine, b"a secret", clock)
        today = clock.today().isoformat()
        score = {"middle": 3, "nertz_left": 0, "bonus": 0, "score": 3}

        def table(table_id: str, settings: dict[str, Any], over: bool) -> None:
            records: list[Any] = [TableCreated(table_id, None, False, {}, settings, time.time())]
            if over:
                records += [
                    DealRecord(1, (), None),
                    ScoreRecord(1, (score, score), 0, "called"),
                    MatchRecord((3, 3), (0,), 1, 1),
                ]
            store.submit(table_id, records)

        def counted(table_id: str, device: str, address: str, over: bool) -> None:
            table(table_id, {"daily": today}, over)
            daily.record(Attempt(today, table_id, True, "x", device, address, time.time()))

        counted("best", "ann", "home", over=True)
        counted("going", "bea", "work", over=False)
        table("other", {}, over=True)
        store.flush()
        assert daily.shown_to("best", "ann", "home")
        assert daily.shown_to("best", "new-device", "home"), "her address has played it"
        assert not daily.shown_to("best", "bea", "work"), "hers is still being played"
        assert not daily.shown_to("best", "cat", "cafe"), "she has not played it"
        assert daily.shown_to("other", "cat", "cafe"), "not a daily try"
        clock.ahead = 86_400
        assert daily.shown_to("best", "cat", "cafe"), "the day is over"
    finally:
        store.close()
