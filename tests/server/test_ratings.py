"""Rated tables and ratings from the store (issue 26, points 2, 3 and 5): a rated table
gives no hints, no pause and no pace; only the rated preset makes one; each rated
match's ratings change in the store as its result is written, from what the table
stored; and all of them rebuilt from the stored results give the same numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from nertz.engine import preset
from nertz.rating import MU, rated_rules
from nertz.server.http.app import Config, create_app
from nertz.server.lobby.devices import DevicePlace, Devices
from nertz.server.lobby.lobby import Lobby, LobbyError
from nertz.server.lobby.ratings import install, ratings_of, rebuild_ratings
from nertz.server.store.schema import rating_changes_t, series_t
from nertz.server.store.store import Store, TableCreated
from nertz.server.table.commands import Stage
from nertz.server.table.context import Place
from nertz.server.table.names import name_key
from nertz.server.table.records import (
    DealRecord,
    MatchRecord,
    RacesRecord,
    ScoreRecord,
    SeatRecord,
)
from nertz.server.table.seats import outside_refusal
from nertz.server.table.settings import Settings

from .harness import Harness


def rated_table(**changes: Any) -> Harness:
    """A rated table: Ann at seat 0 against a demon, dealt and playing."""
    base: dict[str, Any] = {"seats": 2, "bots": {1: "demon"}, "countdown_ms": 500, "rated": True}
    base.update(changes)
    h = Harness(rated_rules(), Settings(**base))
    assert h.join("Ann", "t0") == ((0, 0), None)
    h.connect(1, "t0")
    h.send(1, {"type": "ready"})
    h.run_until(lambda: h.table.stage is Stage.PLAYING, 5000)
    return h


def test_a_rated_table_refuses_hints_a_pause_and_a_pace() -> None:
    h = rated_table()
    for message in (
        {"type": "hint"},
        {"type": "pause", "on": True},
        {"type": "pace", "pace": 50},
    ):
        h.send(1, message)
        refusal = h.last(1)
        assert refusal["type"] == "error" and refusal["code"] == "rated"
        assert "no hints, never pauses" in refusal["reason"]
    assert h.table.practice.paused_at is None and h.table.practice.pace == 100


def test_a_rated_table_is_never_a_practice_table_nor_slowed_nor_open_to_outside_bots() -> None:
    for changes, words in (
        ({"practice": True}, "cannot be a practice table"),
        ({"bot_pace": 50}, r"at their own pace \(100\), not 50"),
        ({"outside_bots": True}, "seats no outside bot"),
    ):
        with pytest.raises(ValueError, match=words):
            Settings(rated=True, **changes).check()


def test_only_the_rated_preset_makes_a_rated_table() -> None:
    lobby = Lobby(None)
    with pytest.raises(LobbyError, match="a rated table plays the quick preset") as refused:
        lobby.check_create(preset("standard"), Settings(rated=True))
    assert refused.value.code == "bad_rules"
    lobby.check_create(rated_rules(), Settings(rated=True))  # no error
    lobby.check_create(rated_rules(True), Settings(seats=2, rated=True))


def test_a_person_a_bot_played_for_at_the_end_is_marked_away() -> None:
    """Whose place a bot played at the match's end (a takeover here) is stored as away:
    the rating ranks them last (``MatchRecord.away``)."""
    stayed = rated_table()
    stayed.run_until(lambda: stayed.table.stage is Stage.OVER, 3_600_000)
    ends = [r for r in stayed.records if isinstance(r, MatchRecord)]
    assert len(ends) == 1 and ends[0].away == ()
    gone = rated_table(bot_takeover_s=1, reconnect_s=86_400)
    gone.drop(1)
    gone.run_until(lambda: gone.table.stage is Stage.OVER, 3_600_000)
    ends = [r for r in gone.records if isinstance(r, MatchRecord)]
    assert len(ends) == 1 and ends[0].away == ((0, 0),)


# ---------------------------------------------------------------------- the store

SOLO = rated_rules().as_dict()
PAIRS = rated_rules(True).as_dict()


def _score(n: int) -> dict[str, int]:
    return {"middle": max(n, 0), "nertz_left": 0, "bonus": 0, "score": n}


def _match(
    store: Store,
    devices: Devices,
    table_id: str,
    people: dict[tuple[int, int], str],
    hand: list[int],
    winners: tuple[int, ...],
    *,
    settings: dict[str, Any],
    rules: dict[str, Any] = SOLO,
    leaves: tuple[tuple[int, int], ...] = (),
    away: tuple[tuple[int, int], ...] = (),
) -> None:
    """One stored one-hand match, as a table stores it: the places taken first (the
    devices' rows), then the deal, any place lost during the hand, the score and the
    match's end."""
    store.submit(table_id, [TableCreated(table_id, None, False, rules, settings, 1.0)])
    store.flush()
    for (seat, partner), who in people.items():
        devices.took(DevicePlace(who, table_id, seat, partner, 1, who[:8]))
    players = tuple((seat, partner, people.get((seat, partner)), None) for seat, partner in people)
    store.submit(
        table_id,
        [
            *(SeatRecord(s, people[(s, p)], f"tok-{people[(s, p)]}", None, p) for s, p in people),
            DealRecord(1, (), None),
            *(SeatRecord(s, "", None, None, p) for s, p in leaves),
            ScoreRecord(1, tuple(_score(n) for n in hand), winners[0], "called"),
            RacesRecord(1, 1, (0,) * len(hand), (0,) * len(hand)),
            MatchRecord(tuple(hand), winners, 1, 1, players, away),
        ],
    )
    store.flush()


def _changes(store: Store) -> list[tuple[Any, ...]]:
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(rating_changes_t).order_by(
                rating_changes_t.c.finished, rating_changes_t.c.table_id, rating_changes_t.c.key
            )
        )
        return [tuple(r) for r in rows]


def test_each_rated_result_rates_as_it_is_stored_and_a_rebuild_gives_the_same_numbers(
    tmp_path: Path,
) -> None:
    """Issue 26 point 5: every rating is explained by stored matches. Matches stored
    one by one rate their people as they are written (a tie, a leaver, a person a bot
    played for, a bot seat, partnerships, an unrated table); rebuilding every rating
    from the stored results gives exactly the same ratings and changes."""
    store = Store(str(tmp_path / "r.db"))
    install(store)
    devices = Devices(store.engine)
    ann, ben, cy, dee, eve = (f"{c * 64}" for c in "abcde")
    solo4 = {"seats": 4, "rated": True}
    _match(
        store,
        devices,
        "T1",
        {(0, 0): ann, (1, 0): ben, (2, 0): cy, (3, 0): dee},
        [12, 12, 5, -4],
        (0, 1),
        settings=solo4,
    )  # ann and ben share the win: a tie
    _match(
        store,
        devices,
        "T2",
        {(0, 0): ann, (1, 0): cy, (2, 0): eve},
        [3, 9, 1],
        (1,),
        settings={"seats": 3, "rated": True},
        leaves=((0, 0),),
    )
    _match(
        store,
        devices,
        "T3",
        {(0, 0): ben, (1, 0): dee},
        [8, 2, 4],
        (0,),
        settings={"seats": 3, "rated": True, "bots": {"2": "expert"}},
        away=((1, 0),),
    )
    _match(
        store,
        devices,
        "T4",
        {(0, 0): ann, (0, 1): cy, (1, 0): ben, (1, 1): dee},
        [2, 10],
        (1,),
        settings={"seats": 2, "rated": True},
        rules=PAIRS,
    )
    _match(
        store, devices, "T5", {(0, 0): eve, (1, 0): ann}, [10, 0], (0,), settings={"seats": 2}
    )  # not rated

    live = ratings_of(store.engine)
    assert set(live) == {("solo", k) for k in (ann, ben, cy, dee, eve)} | {
        ("partners", k) for k in (ann, ben, cy, dee)
    }
    assert live[("solo", ann)].matches == 2 and live[("solo", eve)].matches == 1  # T5 unrated
    changes = _changes(store)
    t1 = {r[2]: r for r in changes if r[0] == "T1"}
    assert t1[ann][4] == t1[ben][4] == 1 and t1[ann][8] == t1[ben][8]  # the tie
    t2 = {r[2]: r for r in changes if r[0] == "T2"}
    assert t2[ann][4] == 4 and t2[ann][8] < t2[ann][6]  # left during the hand: last
    t3 = {r[2]: r for r in changes if r[0] == "T3"}
    assert set(t3) == {ben, dee} and t3[dee][4] == 4  # away: last; the bot is never rated
    partners = ratings_of(store.engine, "partners")
    assert partners[("partners", ben)] == partners[("partners", dee)]
    assert partners[("partners", ben)].mu > MU > partners[("partners", ann)].mu

    rebuilt = rebuild_ratings(store.engine)
    assert rebuilt == live == ratings_of(store.engine)
    assert _changes(store) == changes
    # A rated table is one rated match: a later match of its series changes nothing.
    with store.engine.connect() as conn:
        count = conn.execute(select(func.count()).select_from(rating_changes_t)).scalar()
    store.submit("T1", [ScoreRecord(2, (_score(1),) * 4, 0, "called")])
    store.submit("T1", [MatchRecord((1, 1, 1, 1), (0,), 2, 2)])
    store.flush()
    with store.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(rating_changes_t)).scalar() == count
    store.close()


def test_a_restart_keeps_every_rating(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "r.db"))
    install(store)
    devices = Devices(store.engine)
    _match(
        store,
        devices,
        "T1",
        {(0, 0): "a" * 64, (1, 0): "b" * 64},
        [9, 1],
        (0,),
        settings={"seats": 2, "rated": True},
    )
    before = ratings_of(store.engine)
    store.close()
    again = Store(str(tmp_path / "r.db"))
    assert ratings_of(again.engine) == before
    assert before[("solo", "a" * 64)].mu > MU > before[("solo", "b" * 64)].mu
    again.close()


def test_a_rated_table_seats_no_outside_bot_even_one_invited() -> None:
    invited = Place(1, invited="Robo")
    refusal = outside_refusal(Settings(rated=True), [invited], name_key("Robo"))
    assert refusal is not None and refusal[0] == "rated_table"
    assert outside_refusal(Settings(), [invited], name_key("Robo")) is None


def test_a_rating_that_fails_never_costs_the_result(tmp_path: Path) -> None:
    """The rating runs in the store's transaction; its failure is logged and the
    match's result is stored all the same (the ratings can be rebuilt, a game not)."""
    store = Store(str(tmp_path / "r.db"))

    def broken(conn: object, ended: list[tuple[str, int]]) -> None:
        raise RuntimeError("the rating broke")

    store.after_match = broken
    _match(
        store,
        Devices(store.engine),
        "T1",
        {(0, 0): "a" * 64, (1, 0): "b" * 64},
        [9, 1],
        (0,),
        settings={"seats": 2, "rated": True},
    )
    with store.engine.connect() as conn:
        kept = conn.execute(select(series_t.c.winners).where(series_t.c.table_id == "T1")).all()
    assert [json.loads(r.winners) for r in kept] == [[0]]
    assert ratings_of(store.engine) == {}
    assert rebuild_ratings(store.engine)[("solo", "a" * 64)].mu > MU  # and it can be redone
    store.close()


def test_a_table_s_ratings_are_a_rated_table_s_only(tmp_path: Path) -> None:
    """``GET /api/tables/{code}/ratings``: a table that rates nobody says so, and an
    unknown code is unknown (the rated table's own answers: test_quick.py)."""
    with TestClient(
        create_app(Config(db=str(tmp_path / "r.db"))), base_url="http://127.0.0.1"
    ) as client:
        code = client.post("/api/tables", json={"seats": 2}).json()["code"]
        friends = client.get(f"/api/tables/{code}/ratings")
        nowhere = client.get("/api/tables/NOSUCH/ratings")
    assert friends.status_code == 404 and friends.json()["error"] == "not_rated"
    assert f"table {code} is not a rated table" in friends.json()["reason"]
    assert nowhere.status_code == 404 and nowhere.json()["error"] == "unknown_table"
