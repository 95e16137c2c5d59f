"""A player's own history (``GET /api/me``, ``me.py``, ``history.py``): a real server
with two browsers' device secrets, and the store's records read back as figures."""

from __future__ import annotations

import contextlib
import json
import secrets
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine
from websockets.sync.client import ClientConnection, connect

from nertz.server.door.limits import Limits
from nertz.server.http.app import Config
from nertz.server.lobby.devices import DevicePlace, Devices, weak_secret
from nertz.server.lobby.hashing import hash_secret
from nertz.server.lobby.history import device_history
from nertz.server.store.store import Store, TableCreated
from nertz.server.table.records import DealRecord, MatchRecord, RacesRecord, ScoreRecord, SeatRecord

from ..live_server import eventually, free_port, running

ANN = "nertz: AH; work: 6S / 9C / KC / 4C; stock: 2C 3C 7H; waste: -"
"""One Nertz card: Ann plays her ace to the middle and calls (R27)."""
BEN = "nertz: 9S 2S; work: KS / QD / 8D / 3S; stock: 4H 5H 6H; waste: -"
BOT = "nertz: 9S; work: KS / QS / JS / 10S; stock: 8S 7S; waste: -"
"""A bot that can neither empty its Nertz pile nor call."""


def device() -> str:
    return secrets.token_hex(32)  # as the browser makes it (device.js)


@pytest.fixture
def http(tmp_path: Path) -> Iterator[str]:
    limits = Limits(devices_per_hour=3, histories_per_minute=12)
    config = Config(db=str(tmp_path / "me.db"), port=free_port(), test_hooks=True, limits=limits)
    with running(config) as port:
        yield f"http://127.0.0.1:{port}"


def me(http: str, secret: str | None) -> httpx.Response:
    headers = {} if secret is None else {"X-Nertz-Device": secret}
    return httpx.get(f"{http}/api/me", headers=headers)


def join(http: str, code: str, name: str, secret: str) -> dict[str, Any]:
    answer = httpx.post(
        f"{http}/api/tables/{code}/join", json={"name": name}, headers={"X-Nertz-Device": secret}
    )
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def play_single(http: str, layouts: list[str], bots: dict[str, str], people: dict[str, str]) -> str:
    """A one-hand match (``match: single``) at a table dealt ``layouts``: the people
    (name -> device secret) sit at seats 0.. and say ready; seat 0 plays its ace and
    calls. Returns the table's code once the match is over."""
    made = httpx.post(
        f"{http}/api/test/tables",
        json={
            "layouts": layouts,
            "seats": len(layouts),
            "bots": bots,
            "options": {"match": "single"},
            "countdown_ms": 100,
        },
    ).json()
    code: str = made["code"]
    with contextlib.ExitStack() as stack:
        sockets = []
        for name, secret in people.items():
            seat = join(http, code, name, secret)
            ws = stack.enter_context(connect(http.replace("http", "ws") + "/ws"))
            ws.send(json.dumps({"type": "hello", "table": code, "token": seat["token"]}))
            ws.send(json.dumps({"type": "ready"}))
            sockets.append(ws)
        _call(sockets[0])
    first = next(iter(people.values()))
    eventually(
        lambda: any(s["code"] == code for s in me(http, first).json()["series"]),
        "the finished match in the first person's games (the group commit)",
    )
    return code


def _call(first: ClientConnection) -> None:
    """Seat 0 plays its ace when the hand starts and calls; wait for the match's end."""

    def until(kind: str) -> None:
        deadline = time.monotonic() + 10
        while True:
            message = json.loads(first.recv(max(0.01, deadline - time.monotonic())))
            if message["type"] == "event" and message["e"]["k"] == kind:
                return

    until("go")
    first.send(json.dumps({"type": "play", "seq": 1, "move": "N>F"}))
    first.send(json.dumps({"type": "call", "seq": 2}))
    until("match_end")


def test_my_games_lists_a_finished_match_with_its_figures_for_that_device_only(
    http: str,
) -> None:
    ann, ben = device(), device()
    code = play_single(http, [ANN, BEN, BOT], {"2": "beginner"}, {"Ann": ann, "Bert": ben})
    mine = me(http, ann).json()
    assert mine["name"] == "Ann"
    assert mine["figures"] == {
        "matches": 1,
        "wins": 1,
        "hands": 1,
        "points": 1,  # R30: her ace in the middle, no Nertz card left
        "points_per_hand": 1.0,
        "best_hand": 1,
        "calls": 1,
        "races_won": 0,
        "races_lost": 0,
    }
    [series] = mine["series"]
    assert series["code"] == code and series["wins"] == [1, 0, 0]
    [match] = series["matches"]
    assert match["seat"] == 0 and match["won"] and match["totals"] == [1, -4, -2]
    assert match["names"][:2] == ["Ann", "Bert"] and match["names"][2]  # the bot's name
    his = me(http, ben).json()
    assert his["figures"]["matches"] == 1 and his["figures"]["wins"] == 0
    assert his["figures"]["best_hand"] == -4 and his["figures"]["calls"] == 0
    assert his["series"][0]["matches"][0]["seat"] == 1

    page = httpx.get(f"{http}{match['link'].replace('/matches', '/api/matches')}")
    hands = page.json()["hands"]
    assert [h["scores"][0]["score"] for h in hands] == [1] and hands[0]["caller"] == 0
    assert page.json()["you"] is None  # asked without a device
    yours = httpx.get(
        f"{http}/api/matches/{series['table']}/1", headers={"X-Nertz-Device": ann}
    ).json()
    assert yours["you"] == 0 and yours["names"][:2] == ["Ann", "Bert"]
    assert httpx.get(f"{http}/api/matches/{series['table']}/2").status_code == 404

    stranger = me(http, device()).json()  # another browser sees nothing
    assert stranger["name"] is None and stranger["series"] == []
    assert stranger["figures"]["matches"] == 0 and stranger["figures"]["best_hand"] is None


def test_a_match_against_bots_counts_and_a_practice_table_never_does(
    http: str, tmp_path: Path
) -> None:
    ann = device()
    play_single(http, [ANN, BOT], {"1": "beginner"}, {"Ann": ann})
    mine = me(http, ann).json()
    assert mine["figures"]["matches"] == 1 and mine["series"][0]["matches"][0]["won"]
    store = Store(str(tmp_path / "p.db"))  # a practice table, as if its place were recorded
    devices = Devices(store.engine)
    _one_hand_match(store, "P1", {"seats": 2, "practice": True})
    _one_hand_match(store, "T1", {"seats": 2})
    for table_id in ("P1", "T1"):
        devices.took(DevicePlace(hash_secret(ann), table_id, 0, 0, 1, "Ann"))
    store.flush()
    listed = device_history(store.engine, devices, hash_secret(ann))["series"]
    assert [s["table"] for s in listed] == ["T1"]
    store.close()


def _one_hand_match(store: Store, table_id: str, settings: dict[str, Any]) -> None:
    score = {"middle": 1, "nertz_left": 0, "bonus": 0, "score": 1}
    store.submit(
        table_id,
        [
            TableCreated(table_id, None, False, {}, settings, 1.0),
            DealRecord(1, (), None),
            ScoreRecord(1, (score, score), 0, "called"),
            RacesRecord(1, 1, (0, 0), (0, 0)),
            MatchRecord((1, 1), (0, 1), 1, 1),
        ],
    )


def test_a_missing_or_malformed_secret_is_answered_with_a_code_and_a_sentence(
    http: str,
) -> None:
    missing = me(http, None)
    assert missing.status_code == 401
    assert missing.json() == {
        "error": "no_device",
        "reason": "send this browser's device secret in the X-Nertz-Device header",
    }
    for bad in ("short", "x" * 200, "not a secret but words here"):
        answer = me(http, bad)
        assert answer.status_code == 400 and answer.json()["error"] == "bad_device"
    code = httpx.post(f"{http}/api/tables", json={"seats": 8}).json()["code"]
    joined = httpx.post(
        f"{http}/api/tables/{code}/join", json={"name": "Ann"}, headers={"X-Nertz-Device": "bad"}
    )
    assert joined.status_code == 400 and joined.json()["error"] == "bad_device"


def test_a_new_device_whose_secret_is_not_random_is_refused(http: str, tmp_path: Path) -> None:
    """ "a" x 22 has the form of a secret and none of its randomness: a new device with
    it (or a repeat, or too few hex digits) is refused with a sentence and nothing is
    seated; a device already stored with such a secret keeps working."""
    code = httpx.post(f"{http}/api/tables", json={"seats": 8}).json()["code"]
    for weak, words in (
        ("a" * 22, "characters spread over 0 bits (at least 64)"),
        ("Ab3-" * 8, "a shorter one repeated"),
        ("0123456789abcdef012345", "22 hex digits hold 88"),
    ):
        refused = httpx.post(
            f"{http}/api/tables/{code}/join", json={"name": "Eve"}, headers={"X-Nertz-Device": weak}
        )
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"] == "weak_device" and words in refused.json()["reason"]
        assert "a device secret must" in refused.json()["reason"]
    assert all(s["name"] is None for s in httpx.get(f"{http}/api/tables/{code}").json()["seats"])
    # Stored before the check: "a" x 22 still names its browser.
    old = "a" * 22
    Devices(create_engine(f"sqlite:///{tmp_path / 'me.db'}")).took(
        DevicePlace(hash_secret(old), "T0", 0, 0, 1, "Old")
    )
    join(http, code, "Old", old)
    assert me(http, old).json()["name"] == "Old"


def test_the_browsers_own_secrets_always_pass() -> None:
    """device.js's generator (256 bits as hex), run in node: a thousand secrets, each
    one a device the server takes."""
    module = Path(__file__).resolve().parents[2] / "src/nertz/web/js/device.js"
    script = (
        f"const {{ deviceSecret }} = await import({json.dumps(module.as_uri())});"
        "for (let i = 0; i < 1000; i++) console.log(deviceSecret());"
    )
    made = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    ).stdout.split()
    assert len(set(made)) == 1000
    assert [s for s in made if weak_secret(s) is not None] == []


def test_histories_asked_for_from_one_address_are_limited(http: str) -> None:
    ann = device()
    codes = []
    while 429 not in codes and len(codes) < 40:  # a slow machine's requests refill a little
        codes.append(me(http, ann).status_code)
    assert codes[:12] == [200] * 12 and codes[-1] == 429  # Limits(histories_per_minute=12)
    refused = me(http, ann)
    assert refused.json()["error"] == "too_many_histories" and "Retry-After" in refused.headers
    assert httpx.get(f"{http}/api/matches/x/1").status_code == 429  # match pages count too


def test_new_identities_from_one_address_are_limited(http: str) -> None:
    code = httpx.post(f"{http}/api/tables", json={"seats": 8}).json()["code"]
    known = device()
    for n in range(3):  # Limits(devices_per_hour=3)
        join(http, code, f"P{n}", known if n == 0 else device())
    join(http, code, "Again", known)  # a known browser is no new identity
    refused = httpx.post(
        f"{http}/api/tables/{code}/join",
        json={"name": "New"},
        headers={"X-Nertz-Device": device()},
    )
    assert refused.status_code == 429 and refused.json()["error"] == "too_many_devices"
    assert "Retry-After" in refused.headers
    assert httpx.post(f"{http}/api/tables/{code}/join", json={"name": "Plain"}).status_code == 200


def test_figures_count_the_hands_a_device_held_and_the_races_stored_per_hand(
    tmp_path: Path,
) -> None:
    """Two matches of one series: Ann holds seat 0 throughout, Cy takes seat 1 from hand
    2, so hand 1 is Bert's (his device) and not Cy's."""
    store = Store(str(tmp_path / "h.db"))
    devices = Devices(store.engine)
    ann, ben, cy = (hash_secret(device()) for _ in range(3))

    def score(n: int) -> dict[str, int]:
        return {"middle": max(n, 0), "nertz_left": 0, "bonus": 0, "score": n}

    store.submit(
        "T1",
        [
            TableCreated("ABCDEF", None, True, {}, {"seats": 2}, 1.0),
            SeatRecord(0, "Ann", "a", None),
            SeatRecord(1, "Cy", "c", None),
            *(DealRecord(n, (), None) for n in (1, 2, 3)),
            ScoreRecord(1, (score(5), score(3)), 0, "called"),
            RacesRecord(1, 1, (2, 0), (1, 3)),
            ScoreRecord(2, (score(-2), score(7)), 1, "called"),
            RacesRecord(2, 1, (0, 1), (1, 0)),
            MatchRecord((3, 10), (1,), 1, 1),
            ScoreRecord(3, (score(9), score(0)), 0, "called"),
            RacesRecord(3, 2, (1, 0), (0, 1)),
            MatchRecord((9, 0), (0,), 2, 3),
        ],
    )
    for who, seat, since, name in ((ann, 0, 1, "Ann"), (ben, 1, 1, "Bert"), (cy, 1, 2, "Cy")):
        devices.took(DevicePlace(who, "T1", seat, 0, since, name))
    store.flush()
    figures = device_history(store.engine, devices, ann)["figures"]
    assert figures == {
        "matches": 2,
        "wins": 1,
        "hands": 3,
        "points": 12,
        "points_per_hand": 4.0,
        "best_hand": 9,
        "calls": 2,
        "races_won": 3,
        "races_lost": 2,
    }
    cys = device_history(store.engine, devices, cy)
    assert cys["figures"]["hands"] == 2 and cys["figures"]["races_lost"] == 1  # hands 2, 3
    assert cys["figures"]["wins"] == 1 and cys["figures"]["best_hand"] == 7
    assert [m["names"] for m in cys["series"][0]["matches"]] == [["Ann", "Cy"]] * 2
    bens = device_history(store.engine, devices, ben)["figures"]
    assert bens["matches"] == 0  # he left before the first match's end
    store.close()


def test_a_place_given_up_is_the_devices_no_more(tmp_path: Path) -> None:
    """Ann leaves after the first match (her place released, a bot plays on): the
    second match at that table is not hers."""
    store = Store(str(tmp_path / "l.db"))
    devices = Devices(store.engine)
    ann = hash_secret(device())
    ben = hash_secret(device())
    score = {"middle": 1, "nertz_left": 0, "bonus": 0, "score": 1}
    store.submit(
        "T1",
        [
            TableCreated("T1", None, True, {}, {"seats": 2}, 1.0),
            DealRecord(1, (), None),
            ScoreRecord(1, (score, score), 0, "called"),
            RacesRecord(1, 1, (0, 0), (0, 0)),
            MatchRecord((1, 1), (0, 1), 1, 1),
        ],
    )
    store.flush()
    devices.took(DevicePlace(ann, "T1", 0, 0, 1, "Ann"))
    devices.took(DevicePlace(ben, "T1", 1, 0, 1, "Bert"))
    store.submit(
        "T1",
        [
            SeatRecord(0, "", None, None),  # Ann left: the place is free, a bot plays it
            DealRecord(2, (), None),
            ScoreRecord(2, (score, score), 1, "called"),
            RacesRecord(2, 2, (0, 0), (0, 0)),
            MatchRecord((1, 1), (0, 1), 2, 2),
        ],
    )
    store.flush()
    hers = device_history(store.engine, devices, ann)
    assert hers["figures"]["matches"] == 1 and hers["figures"]["calls"] == 1
    assert [m["number"] for m in hers["series"][0]["matches"]] == [1]
    his = device_history(store.engine, devices, ben)
    assert his["figures"]["matches"] == 2 and his["figures"]["calls"] == 1
    assert his["series"][0]["matches"][0]["names"] == ["Seat 1", "Bert"]
    store.close()


def test_a_database_from_before_the_last_hand_column_still_opens(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:  # device_places as it was first made
        conn.execute(
            "CREATE TABLE device_places (id INTEGER PRIMARY KEY, device VARCHAR(64) NOT NULL, "
            "table_id VARCHAR(40) NOT NULL, seat INTEGER NOT NULL, partner INTEGER NOT NULL, "
            "since_hand INTEGER NOT NULL, name VARCHAR(64) NOT NULL, joined FLOAT NOT NULL)"
        )
        conn.execute("INSERT INTO device_places VALUES (1, 'd', 'T1', 0, 0, 1, 'Ann', 1.0)")
    store = Store(str(db))
    assert Devices(store.engine).places_of("d") == [DevicePlace("d", "T1", 0, 0, 1, "Ann")]
    store.close()


def test_a_finished_match_names_its_players_after_a_bot_stands_in_and_a_removal(
    http: str,
) -> None:
    """Issue 23: Cat wins a one-hand match and closes her tab; Ann, the host, puts "a
    bot for Cat" in, then removes her. Every record of the match still names Cat: her
    own history, the match page, the table's history and the live table's series."""
    ann, cat = device(), device()
    made = httpx.post(
        f"{http}/api/test/tables",
        json={"layouts": [BEN, ANN], "seats": 2, "bots": {}, "options": {"match": "single"}},
    ).json()
    code = made["code"]
    ws_url = http.replace("http", "ws") + "/ws"
    with connect(ws_url) as host_ws:
        seat = join(http, code, "Ann", ann)
        host_ws.send(json.dumps({"type": "hello", "table": code, "token": seat["token"]}))
        host_ws.send(json.dumps({"type": "ready"}))
        with connect(ws_url) as cat_ws:
            mine = join(http, code, "Cat", cat)
            cat_ws.send(json.dumps({"type": "hello", "table": code, "token": mine["token"]}))
            cat_ws.send(json.dumps({"type": "ready"}))
            _call(cat_ws)  # Cat plays her ace and calls: she wins the match
        for action in ({"do": "bot", "seat": 1}, {"do": "remove", "seat": 1}):
            host_ws.send(json.dumps({"type": "host", **action}))
        deadline = time.monotonic() + 10
        while httpx.get(f"{http}/api/tables/{code}").json()["seats"][1]["name"] is not None:
            assert time.monotonic() < deadline, "Cat was never removed"
            time.sleep(0.05)
    live = httpx.get(f"{http}/api/tables/{code}").json()
    assert live["series"]["names"] == [["Ann", "Cat"]] and live["winners"] == [1]
    time.sleep(0.3)  # the group commit
    hers = me(http, cat).json()
    [match] = hers["series"][0]["matches"]
    assert match["names"] == ["Ann", "Cat"] and match["won"] and match["seat"] == 1
    table_id = hers["series"][0]["table"]
    page = httpx.get(f"{http}/api/matches/{table_id}/1").json()
    assert page["names"] == ["Ann", "Cat"] and page["winners"] == [1]
    stored = httpx.get(f"{http}/api/matches/{table_id}").json()
    assert [s["name"] for s in stored["seats"]] == ["Ann", "Cat"]


def test_a_database_from_before_match_players_still_opens_and_names_seats(
    tmp_path: Path,
) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:  # series as it was before its players column
        conn.execute(
            "CREATE TABLE series (table_id VARCHAR(40) NOT NULL, number INTEGER NOT NULL, "
            "first_hand INTEGER NOT NULL, finished FLOAT NOT NULL, totals TEXT NOT NULL, "
            "winners TEXT NOT NULL, PRIMARY KEY (table_id, number))"
        )
        conn.execute("INSERT INTO series VALUES ('T1', 1, 1, 1.0, '[1, 1]', '[0]')")
    store = Store(str(db))
    devices = Devices(store.engine)
    ann = hash_secret(device())
    score = {"middle": 1, "nertz_left": 0, "bonus": 0, "score": 1}
    store.submit(
        "T1",
        [
            TableCreated("T1", None, True, {}, {"seats": 2}, 1.0),
            SeatRecord(1, "Ben", "tok", None),
            DealRecord(1, (), None),
            ScoreRecord(1, (score, score), 0, "called"),
            RacesRecord(1, 1, (0, 0), (0, 0)),
        ],
    )
    store.flush()
    devices.took(DevicePlace(ann, "T1", 0, 0, 1, "Ann"))
    [match] = device_history(store.engine, devices, ann)["series"][0]["matches"]
    assert match["names"] == ["Ann", "Ben"] and match["won"]  # read as before
    store.close()
