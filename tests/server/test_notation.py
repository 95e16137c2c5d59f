"""``GET /api/matches/{id}/notation`` on a real server: a finished match downloaded in
the match notation (docs/notation.md) replays to the scores the server stored; a match
still being played keeps its deals; a private table's match is read only through its
id; the reads are bounded like the other costly ones."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from nertz.bots import greedy_move
from nertz.engine import EndReason, Hand, Match, MatchText, Player, Rules, deal
from nertz.server.door.edge import refused_by
from nertz.server.door.limits import Limits
from nertz.server.http.app import Config
from nertz.server.lobby.lobby import LobbyError
from nertz.server.lobby.notation import match_notation
from nertz.server.store.store import Store, TableCreated
from nertz.server.table.records import (
    DealRecord,
    EventRecord,
    InputRecord,
    MatchBegunRecord,
    MatchRecord,
    RacesRecord,
    ScoreRecord,
    hand_caller,
    hand_scores,
)

from ..live_server import PATIENCE_S, eventually, free_port, running
from .conftest import SPEED

BOTS = {"0": "demon:prompt", "1": "expert:racer", "2": "demon:scorer"}


@pytest.fixture
def http(tmp_path: Path) -> Iterator[str]:
    limits = Limits(costly_per_minute=12)
    config = Config(db=str(tmp_path / "n.db"), port=free_port(), speed=SPEED, limits=limits)
    with running(config) as port:
        yield f"http://127.0.0.1:{port}"


def bots_table(http: str, public: bool) -> dict[str, Any]:
    """A table of three bots racing to 15 (R32): it plays by itself, quickly."""
    made = httpx.post(
        f"{http}/api/tables",
        json={
            "seats": 3,
            "bots": BOTS,
            "options": {"target": 15},
            "public": public,
            "countdown_ms": 100,
            "next_hand_s": 1,
        },
    )
    assert made.status_code == 201, made.text
    return made.json()  # type: ignore[no-any-return]


def watch_to_the_end(http: str, table: dict[str, Any]) -> dict[str, Any]:
    """Watch the table (a spectator, with a private table's key) until its match is
    over; then its hands as the server stored them (after the group commit)."""
    hello: dict[str, Any] = {"type": "hello", "table": table["code"], "key": table.get("key")}
    with connect(http.replace("http", "ws") + "/ws") as ws:
        ws.send(json.dumps(hello))
        deadline = time.monotonic() + PATIENCE_S
        while True:
            message = json.loads(ws.recv(max(0.01, deadline - time.monotonic())))
            if message["type"] == "event" and message["e"]["k"] == "match_end":
                break
    page = eventually(
        lambda: (r := httpx.get(f"{http}/api/matches/{table['id']}/1")).status_code == 200 and r,
        "the finished match, stored",
    )
    return page.json()  # type: ignore[no-any-return]


def test_a_finished_match_downloaded_replays_to_the_stored_scores_and_not_before(
    http: str,
) -> None:
    table = bots_table(http, public=True)
    playing = httpx.get(f"{http}/api/matches/{table['id']}/notation")
    assert playing.status_code == 409, playing.text
    assert playing.json()["error"] == "match_in_progress"
    assert "hidden until it is over" in playing.json()["reason"]
    stored = watch_to_the_end(http, table)

    answer = httpx.get(f"{http}/api/matches/{table['id']}/notation")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"
    assert f'filename="nertz-{table["code"]}-1.txt"' in answer.headers["content-disposition"]
    match = MatchText.parse(answer.text)
    assert str(match) == answer.text
    assert match.title == f"Table {table['code']}, match 1"
    assert match.rules.target == 15
    assert [[p.bot for p in seat] for seat in match.seats] == [[b] for b in BOTS.values()]
    assert [h.number for h in match.hands] == [h["hand"] for h in stored["hands"]]
    totals = Match(3, match.rules)
    for hand, kept in zip(match.hands, stored["hands"], strict=True):
        assert hand.deal.seed is not None  # dealt by the server from a seed (R33)
        replayed = hand.replay(match.rules)
        assert replayed.over
        assert [s.as_dict() for s in replayed.scores()] == kept["scores"]
        caller = replayed.caller if replayed.end_reason is EndReason.CALLED else None
        assert caller == kept["caller"]
        totals.record(replayed.scores(), caller)
    assert totals.totals == stored["totals"] and list(totals.winners) == stored["winners"]
    by_number = httpx.get(f"{http}/api/matches/{table['id']}/notation?number=1")
    assert by_number.text == answer.text
    missing = httpx.get(f"{http}/api/matches/{table['id']}/notation?number=2")
    assert missing.status_code == 404 and missing.json()["error"] == "unknown_match"
    for wrong in ("first", "0", "9" * 5000):
        bad = httpx.get(f"{http}/api/matches/{table['id']}/notation?number={wrong}")
        assert bad.status_code == 400 and bad.json()["error"] == "bad_number"


def test_a_private_match_is_read_only_through_its_id(http: str) -> None:
    """Its code, which anyone it was shown to may know, gives nothing without the key;
    its id is what its link (the key), its creator and its players get."""
    table = bots_table(http, public=False)
    watch_to_the_end(http, table)
    for guess in (table["code"], "0123456789abcdef"):
        answer = httpx.get(f"{http}/api/matches/{guess}/notation")
        assert answer.status_code == 404 and answer.json()["error"] == "unknown_match"
    assert httpx.get(f"{http}/api/tables/{table['code']}").status_code == 404
    listed = httpx.get(f"{http}/api/matches").json()["matches"]
    assert table["id"] not in [m["match"] for m in listed]
    answer = httpx.get(f"{http}/api/matches/{table['id']}/notation")
    assert answer.status_code == 200 and MatchText.parse(answer.text).hands


def test_notations_are_costly_reads_bounded_per_address(http: str) -> None:
    assert refused_by("GET", "/api/matches/m1/notation") == ("too_many_requests", "too_many_reads")
    answers = [httpx.get(f"{http}/api/matches/nothing/notation") for _ in range(13)]
    assert [a.status_code for a in answers[:12]] == [404] * 12
    assert answers[12].status_code == 429 and answers[12].json()["error"] == "too_many_reads"


def stored_hand(store: Store, table_id: str, number: int, match: int, rules: Rules) -> Hand:
    """A hand greedy seats played (R8-R28), stored as a table stores one: its deal,
    its inputs, its scores and the match it was part of."""
    seed = 40 + number
    hand = Hand(deal(2, rules, seed), rules)
    hand.start(number * 100_000)
    now = hand.now
    while not hand.over:
        now += 150
        for seat in range(2):
            move = greedy_move(hand.legal_moves(seat))
            if move is not None:
                hand.play(seat, move, now)
        hand.tick(now)
    records: list[Any] = [DealRecord(number, hand.deal.layouts, seed)]
    records += [InputRecord(number, i, *entry) for i, entry in enumerate(hand.log)]
    records.append(ScoreRecord(number, hand_scores(hand), hand_caller(hand), "called"))
    records.append(RacesRecord(number, match, (0, 0), (0, 0)))
    store.submit(table_id, records)
    return hand


def event(version: int, e: dict[str, Any]) -> EventRecord:
    body = json.dumps({"type": "event", "v": version, "e": e}, separators=(",", ":"))
    return EventRecord(version, body.encode())


def test_a_series_gives_each_finished_match_under_its_own_rules_and_not_the_one_played(
    tmp_path: Path,
) -> None:
    """The host changed the draw between matches (R21): match 2 is written with it.
    While match 2 is played, match 1 is there to read and match 2 is refused."""
    store = Store(str(tmp_path / "s.db"))
    first, then = Rules(match="single"), Rules(match="single", draw=1)
    settings = {"seats": 2, "bots": {"0": "expert", "1": "casual:racer"}}
    store.submit("T1", [TableCreated("ABCD", None, True, first.as_dict(), settings, 1.0)])
    store.submit("T1", [event(1, {"k": "dealt", "hand": 1})])
    one = stored_hand(store, "T1", 1, 1, first)
    players = ((0, 0, "Ann", None), (1, 0, None, "casual:racer"))
    store.submit("T1", [MatchRecord((0, 0), (0,), 1, 1, players), MatchBegunRecord(2, 2)])
    store.submit("T1", [event(2, {"k": "options", "rules": then.as_dict()})])
    store.submit("T1", [event(3, {"k": "dealt", "hand": 2})])
    two = stored_hand(store, "T1", 2, 2, then)
    store.flush()
    with pytest.raises(LobbyError) as refused:
        match_notation(store.engine, "T1", 2)
    assert refused.value.code == "match_in_progress" and refused.value.status == 409
    last = match_notation(store.engine, "T1", None)
    assert last.number == 1 and last.code == "ABCD"
    read = MatchText.parse(last.text)
    assert read.rules == first and [h.number for h in read.hands] == [1]
    assert read.seats == ((Player("Ann"),), (Player(None, "casual:racer"),))
    assert read.hands[0].replay(first).snapshot() == one.snapshot()

    store.submit("T1", [MatchRecord((0, 0), (1,), 2, 2, players)])
    store.flush()
    read = MatchText.parse(match_notation(store.engine, "T1", 2).text)
    assert read.rules == then and [h.number for h in read.hands] == [2]
    assert read.hands[0].replay(then).scores() == two.scores()
    with pytest.raises(LobbyError) as refused:
        match_notation(store.engine, "T1", 3)
    assert refused.value.code == "unknown_match" and refused.value.status == 404
    store.close()
