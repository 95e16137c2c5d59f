"""The replay viewer's data (issue 27): ``GET /api/matches/{id}/replay?hand=N`` gives a
finished hand as a timeline the engine made from the stored deal and inputs, and
``POST /api/replays`` the hands of a notation file. Rebuilt step by step the timeline
is the engine's table at every moment (jokers, slides and rotations too, R8-R28, R41);
a match still played, a private match without its id and a hand that is no hand are
refused; the reads are costly ones at the door; a malformed or huge file is refused
with a sentence saying why."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import delete, select
from starlette.testclient import TestClient

from nertz.engine import Hand, MatchText, Rules, apply
from nertz.server.door.edge import refused_by, request_kind
from nertz.server.door.limits import Limits
from nertz.server.http.app import Config, create_app
from nertz.server.http.replay_api import FILE_BODY_BYTES, FILE_BYTES
from nertz.server.http.services import services_of
from nertz.server.lobby.timeline import SEAT_PILES, hand_timeline
from nertz.server.store.schema import matches_t, tables_t

from ..live_server import eventually, free_port, running
from ..stored_match import engine_table, played_hand
from .conftest import SPEED
from .test_notation import bots_table, watch_to_the_end


@pytest.fixture
def http(tmp_path: Path) -> Iterator[str]:
    limits = Limits(costly_per_minute=40)
    config = Config(db=str(tmp_path / "r.db"), port=free_port(), speed=SPEED, limits=limits)
    with running(config) as port:
        yield f"http://127.0.0.1:{port}"


def start_table(timeline: dict[str, Any]) -> dict[str, Any]:
    return {
        "seats": [
            {**{p: s[p].split() for p in SEAT_PILES}, "fan": s["fan"], "stuck": False}
            for s in timeline["start"]["seats"]
        ],
        "middle": [f.split() for f in timeline["start"]["middle"]],
    }


def apply_step(table: dict[str, Any], step: list[Any]) -> None:
    """What the browser does with a step (web/js/replay/timeline.js ``applyStep``)."""
    for seat, pile, *rest in step[3]:
        if pile == "fan":
            table["seats"][seat]["fan"] = rest[0]
        elif pile == "stuck":
            table["seats"][seat]["stuck"] = rest[0] == 1
        elif seat < 0:
            n = int(pile[1:]) - 1
            while len(table["middle"]) <= n:
                table["middle"].append([])
            table["middle"][n] = table["middle"][n][: rest[0]] + rest[1].split()
        else:
            piles = table["seats"][seat]
            piles[pile] = piles[pile][: rest[0]] + rest[1].split()


@pytest.mark.parametrize(
    "rules", [Rules(nertz_pile=11), Rules(jokers=True), Rules(draw=1, max_rotations=2)]
)
def test_the_timeline_rebuilt_step_by_step_is_the_engines_table_at_every_moment(
    rules: Rules,
) -> None:
    """Each change applied in order gives the table the engine had after that input;
    every seat's input is a step, a tick that changed nothing is none."""
    for seed in (7, 8):
        played = played_hand(4, rules, seed, 5_000)
        timeline = hand_timeline(played.deal, rules, played.log)
        again = Hand(played.deal, rules)
        table = start_table(timeline)
        assert table == engine_table(again)
        steps = iter(timeline["steps"])
        go = played.log[0][0]
        for entry in played.log:
            before = engine_table(again)
            assert apply(again, entry).ok
            after = engine_table(again)
            if after == before and entry[1] < 0:
                continue  # time passed and nothing changed: no step
            step = next(steps)
            assert step[:3] == [entry[0] - go, entry[1], entry[2]]
            apply_step(table, step)
            assert table == after, f"step {step}"
        assert next(steps, None) is None
        assert timeline["end_ms"] == played.log[-1][0] - go
        assert timeline["scores"] == [s.as_dict() for s in played.scores()]


def test_a_finished_hand_is_replayed_from_the_store_and_not_before_the_match_ends(
    http: str,
) -> None:
    table = bots_table(http, public=True)
    playing = httpx.get(f"{http}/api/matches/{table['id']}/replay?hand=1")
    assert playing.status_code == 409, playing.text
    assert playing.json()["error"] == "match_in_progress"
    assert "hidden until it is over" in playing.json()["reason"]
    assert "match" not in httpx.get(f"{http}/api/tables/{table['code']}").json()
    stored = watch_to_the_end(http, table)
    # The end panel's way to the replay: the table gives its id once the match is over.
    assert httpx.get(f"{http}/api/tables/{table['code']}").json()["match"] == table["id"]

    first = httpx.get(f"{http}/api/matches/{table['id']}/replay")
    assert first.status_code == 200, first.text
    body = first.json()
    numbers = [h["hand"] for h in stored["hands"]]
    assert body["hand"] == numbers[0] and body["hands"] == numbers
    assert body["code"] == table["code"] and body["number"] == 1
    assert body["names"] == stored["names"]
    notation = MatchText.parse(httpx.get(f"{http}/api/matches/{table['id']}/notation").text)
    seeds = {str(h.deal.seed) for h in notation.hands}
    for kept, read in zip(stored["hands"], notation.hands, strict=True):
        answer = httpx.get(f"{http}/api/matches/{table['id']}/replay?hand={kept['hand']}")
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "application/json"
        timeline = answer.json()
        assert timeline["scores"] == kept["scores"] and timeline["caller"] == kept["caller"]
        # Rebuilt to its end, it is the hand the engine replays from the notation.
        table_now = start_table(timeline)
        for step in timeline["steps"]:
            apply_step(table_now, step)
        assert table_now == engine_table(read.replay(notation.rules))
        # The deck seeds never leave the server this way (the stored layouts are the deal).
        assert "seed" not in answer.text
        assert not seeds & set(re.findall(r"\d{6,}", answer.text))
    assert len(json.dumps(body)) < 200_000  # a hand, not the match's event log


BAD_HANDS = [
    ("0", "1 to 1000000000, not '0'"),
    ("first", "not 'first'"),
    ("9" * 30, "a hand's number at the table"),
    ("-1", "not '-1'"),
    ("999", "hand 999 is no hand of a finished match at that table (its hands: 1-"),
]
"""A hand asked for that is no hand, and what the answer says."""


def test_a_hand_that_is_no_hand_of_the_match_is_a_clear_400(http: str) -> None:
    table = bots_table(http, public=True)
    watch_to_the_end(http, table)
    for hand, says in BAD_HANDS:
        answer = httpx.get(f"{http}/api/matches/{table['id']}/replay", params={"hand": hand})
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"] == "bad_hand" and says in answer.json()["reason"]


def test_a_private_match_is_replayed_only_through_its_id(http: str) -> None:
    table = bots_table(http, public=False)
    watch_to_the_end(http, table)
    for guess in (table["code"], "0123456789abcdef"):
        answer = httpx.get(f"{http}/api/matches/{guess}/replay?hand=1")
        assert answer.status_code == 404 and answer.json()["error"] == "unknown_match"
    assert httpx.get(f"{http}/api/matches/{table['id']}/replay?hand=1").status_code == 200


def test_replays_are_costly_at_the_door_and_the_page_is_a_file() -> None:
    costly = ("too_many_requests", "too_many_reads")
    assert refused_by("GET", "/api/matches/m1/replay") == costly
    assert refused_by("POST", "/api/replays") == costly
    assert request_kind("GET", "/replay/abc") == "file"
    assert request_kind("GET", "/replay") == "file"


def test_a_downloaded_file_opens_as_the_same_hands_and_a_bad_one_changes_nothing(
    http: str,
) -> None:
    """Export, import: the file's timelines are the store's, step for step."""
    table = bots_table(http, public=True)
    watch_to_the_end(http, table)
    text = httpx.get(f"{http}/api/matches/{table['id']}/notation").text
    opened = httpx.post(f"{http}/api/replays", json={"text": text})
    assert opened.status_code == 200, opened.text
    read = opened.json()
    assert read["title"] == f"Table {table['code']}, match 1"
    for timeline in read["timelines"]:
        served = httpx.get(f"{http}/api/matches/{table['id']}/replay?hand={timeline['hand']}")
        for key in ("start", "steps", "end_ms", "scores", "caller", "end"):
            assert timeline[key] == served.json()[key]
    assert "seed" not in opened.text

    broken = text.replace(" N>F", " N>Q", 1)
    bad = httpx.post(f"{http}/api/replays", json={"text": broken})
    assert bad.status_code == 400 and bad.json()["error"] == "bad_notation"
    assert re.search(r"not a match in the notation: line \d+: ", bad.json()["reason"])
    nonsense = httpx.post(f"{http}/api/replays", json={"text": "hello"})
    assert nonsense.status_code == 400 and "line 1" in nonsense.json()["reason"]

    huge = text + "#" * (FILE_BYTES - len(text) + 1)
    too_big = httpx.post(f"{http}/api/replays", json={"text": huge})
    assert too_big.status_code == 413 and too_big.json()["error"] == "file_too_large"
    assert f"at most {FILE_BYTES} bytes" in too_big.json()["reason"]
    body = b'{"text": "' + b"x" * FILE_BODY_BYTES + b'"}'
    refused = httpx.post(
        f"{http}/api/replays", content=body, headers={"Content-Type": "application/json"}
    )
    assert refused.status_code == 413 and refused.json()["error"] == "too_big"
    assert httpx.post(f"{http}/api/replays", json={"file": text}).status_code == 400
    # Nothing changed: the match reads as before.
    again = httpx.get(f"{http}/api/matches/{table['id']}/notation")
    assert again.text == text


def test_a_table_just_made_is_in_progress_before_the_store_has_written_it(
    tmp_path: Path,
) -> None:
    """The answer to making a table comes before the store writes its row: asked for at
    once, its replay, notation and analysis are a match still played (409), never an
    unknown one (404)."""
    app = create_app(Config(db=str(tmp_path / "r.db")))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        made = client.post("/api/tables", json={"seats": 2, "bots": {"1": "demon"}}).json()
        engine = services_of(app).store.engine

        def stored() -> bool:
            with engine.connect() as conn:
                rows = conn.execute(select(tables_t).where(tables_t.c.id == made["id"]))
                return rows.first() is not None

        eventually(stored, "the table's row")
        with engine.begin() as conn:  # as if the store had not written it yet
            conn.execute(delete(matches_t).where(matches_t.c.table_id == made["id"]))
            conn.execute(delete(tables_t).where(tables_t.c.id == made["id"]))
        asks = ("replay?hand=1", "notation", "analysis?hand=1&seat=0")
        early = [client.get(f"/api/matches/{made['id']}/{ask}") for ask in asks]
        unknown = client.get("/api/matches/NOSUCHTABLE/replay?hand=1")
    for answer in early:
        assert answer.status_code == 409 and answer.json()["error"] == "match_in_progress"
    assert unknown.status_code == 404 and unknown.json()["error"] == "unknown_match"
