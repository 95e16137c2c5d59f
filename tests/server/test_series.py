"""A table plays a series: "Play again" deals the next match at the same seats, the
series counts matches won, leaving on purpose frees the place, and a series survives
the store (a restart in the second match)."""

from __future__ import annotations

from pathlib import Path

from nertz.bots import NERTZ_ROLE
from nertz.engine import Rules
from nertz.server.store.store import Store, TableCreated
from nertz.server.table.commands import Stage
from nertz.server.table.records import MatchBegunRecord, MatchRecord
from nertz.server.table.table import restore_from_records

from .harness import Harness
from .test_table import events, fast, play_match

SINGLE = Rules(match="single")


def two_people(**settings: int) -> Harness:
    """Ann (seat 0) and Bo (seat 1) with two bots, both connected and ready."""
    h = Harness(SINGLE, fast(bots={2: "demon:prompt", 3: "demon:prompt"}, **settings))
    for conn, (name, token) in enumerate((("ann", "t0"), ("bo", "t1")), start=1):
        h.join(name, token)
        h.connect(conn, token)
        h.send(conn, {"type": "ready"})
    return h


def test_play_again_deals_the_next_match_once_every_connected_person_agrees() -> None:
    h = two_people()
    play_match(h)
    first = list(h.table.match.winners)
    wins = [int(s in first) for s in range(4)]
    assert h.table.info()["series"] == {
        "match": 1,
        "wins": wins,
        "first_hand": 1,
        "names": [["ann", "bo", "Cleo", "Dev"]],  # who played it
        "winners": [first],
    }
    h.send(1, {"type": "again"})  # Ann: "Play again"
    assert h.table.stage is Stage.OVER  # Bo has not said it yet
    assert h.table.info()["seats"][0]["ready"] and not h.table.info()["seats"][1]["ready"]
    h.send(2, {"type": "again"})
    assert h.table.stage is Stage.COUNTDOWN and h.table.hand_no == 2
    assert h.table.match.totals == [0, 0, 0, 0]  # a new match (R32)
    seen = [e["e"] for e in events(h, 2)]
    nexts = [e for e in seen if e["k"] == "next_match"]
    assert nexts == [{"k": "next_match", "match": 2, "wins": h.table.series.series_wins()}]
    assert [p.name for p in h.table.seats] == ["ann", "bo", "Cleo", "Dev"]
    play_match(h)
    wins = h.table.series.series_wins()
    assert sum(wins) >= 2 and h.table.info()["series"]["match"] == 2
    assert [r for r in h.records if isinstance(r, MatchRecord)][-1].number == 2


def test_a_person_who_is_away_is_not_waited_for() -> None:
    h = two_people(bot_takeover_s=1)
    h.run_until(lambda: h.table.stage is Stage.PLAYING)
    h.drop(2)  # Bo's connection dropped: his place is kept, a bot plays it
    play_match(h)
    assert h.table.seats[1].driver is not None
    h.send(1, {"type": "again"})
    assert h.table.stage is Stage.COUNTDOWN  # Bo is not waited for
    assert h.table.seats[1].name == "bo" and h.table.seats[1].token_hash is not None
    assert h.table.seats[1].driver is not None  # the bot keeps his place for him
    h.connect(3, "t1")
    assert h.table.seats[1].driver is None and h.last(3)["seat"] == 1


def test_leaving_on_purpose_frees_the_place_at_once_and_the_token_stops_working() -> None:
    h = two_people()
    play_match(h)
    h.send(2, {"type": "leave"})
    assert h.closed[2] == "left"
    bo = h.table.info()["seats"][1]
    assert bo["name"] is None and bo["takeover"]  # a bot plays it until someone joins
    h.connect(9, "t1")
    assert h.last(9) == {
        "type": "error",
        "code": "bad_token",
        "reason": "no seat at this table has that token",
    }
    assert h.join("cy", "t2") == ((1, 0), None)  # a newcomer takes the place
    h.send(1, {"type": "again"})
    assert h.table.stage is Stage.COUNTDOWN  # Cy has not connected: not waited for


def test_a_dropped_connection_keeps_the_place() -> None:
    h = two_people()
    h.drop(2)
    assert h.table.seats[1].name == "bo"
    h.connect(3, "t1")
    assert h.last(3)["type"] == "state" and h.last(3)["seat"] == 1


def test_a_series_survives_the_store_and_a_restart_in_its_second_match(tmp_path: Path) -> None:
    h = two_people()
    play_match(h)
    h.send(1, {"type": "again"})
    h.send(2, {"type": "again"})
    h.run_until(lambda: h.table.stage is Stage.PLAYING)
    h.advance(2000)
    assert any(isinstance(r, MatchBegunRecord) for r in h.records)
    store = Store(str(tmp_path / "series.db"))
    settings = h.table.settings
    created = TableCreated("TEST", None, True, SINGLE.as_dict(), settings.as_dict(), 0.0)
    store.submit("t1", [created, *h.records])
    store.flush()
    [stored] = store.unfinished()  # the table plays again: unfinished, resumed
    again = restore_from_records("TEST", SINGLE, settings, stored.records)
    assert again.match_no == 2 and again.series.series_wins() == h.table.series.series_wins()
    assert again.first_hand == 2 and again.match.totals == h.table.match.totals
    assert again.hand is not None and h.table.hand is not None
    assert again.hand.snapshot() == h.table.hand.snapshot()
    with store.engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT number, first_hand FROM series").all()
    assert [tuple(r) for r in rows] == [(1, 1)]  # the first match, kept
    store.close()


def test_a_bot_standing_in_for_an_absent_partner_takes_that_partners_role() -> None:
    """R40: Ann (partner 0, the Nertz pile's) closes her page beside Bob: the bot that
    stands in for her watches the Nertz pile, not the stock Bob is turning."""
    rules = Rules(partnerships=True, match="single")
    h = Harness(rules, fast(seats=1, bots={}, bot_takeover_s=1))
    for conn, (name, token) in enumerate((("ann", "t0"), ("bob", "t1")), start=1):
        assert h.join(name, token, 0, conn - 1) == ((0, conn - 1), None)
        h.connect(conn, token)
        h.send(conn, {"type": "ready"})
    h.run_until(lambda: h.table.stage is Stage.PLAYING)
    h.drop(1)
    ann = h.table.place(0, 0)
    h.run_until(lambda: ann.driver is not None, 5000)
    assert h.table.info()["seats"][0]["partners"][0]["takeover"]
    assert h.table.bots.role(ann) == NERTZ_ROLE  # Ann's own share of the seat's work
