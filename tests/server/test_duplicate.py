"""Duplicate Nertz at a live table (option ``duplicate``, R42-R46 of
docs/rules-decisions.md): the server deals one deal per rotation, moved on one seat a
hand; everyone is told both scores; tables that cannot play it are refused clearly."""

from __future__ import annotations

import time
from typing import Any

import httpx

from nertz.engine import Rules, rotated
from nertz.server.table.records import DealRecord, rebuild_deal
from nertz.server.table.settings import Settings
from nertz.server.table.table import restore_from_records

from .conftest import Live
from .harness import Harness
from .test_app import Client, create, join


def _face_up(seat: dict[str, Any]) -> tuple[str | None, list[list[str]]]:
    """What anyone sees of a seat's deal: its Nertz card and its four work piles (R4, R5)."""
    return seat["nertz_top"], seat["work"]


def test_each_deal_is_played_once_per_seat_moved_on_one_seat_r42(live: Live) -> None:
    """Ann and a bot at a duplicate table of one rotation (match single): hand 2 deals
    each seat the cards its neighbour had on hand 1 (R42), and the end of each hand
    tells both scores, the duplicate ones once the rotation is complete (R43, R44)."""
    table = create(
        live,
        bots={"1": "demon:prompt"},
        seats=2,
        options={"duplicate": "on", "match": "single"},
        countdown_ms=200,
        next_hand_s=1,
    )
    seat = join(live, table["code"], "Ann").json()
    me = Client(live.ws)
    me.send({"type": "hello", "table": table["code"], "token": seat["token"]})
    state = me.recv()
    assert state["table"]["rules"]["duplicate"] is True
    assert state["table"]["duplicate"]["totals"] == [0, 0]
    me.send({"type": "ready"})
    dealt: list[dict[str, Any]] = []
    ends: list[dict[str, Any]] = []
    final: dict[str, Any] | None = None
    deadline = time.monotonic() + 120
    while final is None:
        assert time.monotonic() < deadline, "the duplicate match did not end"
        message = me.recv(30)
        events = message.get("events", []) if message["type"] == "ack" else [message]
        for m in events:
            if m["type"] != "event":
                continue
            kind = m["e"]["k"]
            if kind == "dealt":
                dealt.append(m["e"]["table"])
            elif kind == "hand_end":
                ends.append(m["e"])
                if len(ends) == 1:
                    me.send({"type": "ready"})
            elif kind == "match_end":
                final = m["e"]
    me.close()
    assert len(dealt) == 2 and len(ends) == 2  # one deal, played once per seat
    first, second = dealt
    assert _face_up(second["seats"][0]) == _face_up(first["seats"][1])
    assert _face_up(second["seats"][1]) == _face_up(first["seats"][0])
    assert ends[0]["rotation"] == [1, 2] and "duplicate_deal" not in ends[0]
    assert ends[0]["duplicate_totals"] == [0, 0]  # settled only with the rotation (R44)
    assert ends[1]["rotation"] == [2, 2]
    # R43, two seats: each seat's duplicate score over the deal is half the difference
    # of its two hands' scores and its rival's on the same cards.
    a1, b1 = (s["score"] for s in ends[0]["scores"])
    a2, b2 = (s["score"] for s in ends[1]["scores"])
    half = (a1 + a2 - b1 - b2) / 2
    assert ends[1]["duplicate_deal"] == [half, -half]
    assert ends[1]["duplicate_totals"] == [half, -half]
    assert final["totals"] == [a1 + a2, b1 + b2]
    assert final["duplicate_totals"] == [half, -half]
    best = [s for s, v in enumerate(final["duplicate_totals"]) if v == max(half, -half)]
    assert final["winners"] == best  # R45: the best duplicate total wins


def test_a_restart_mid_rotation_deals_the_same_deal_on() -> None:
    """A table rebuilt from its records between two hands of a rotation deals the
    rotation's deal on, not a new one (R42, R33)."""
    rules = Rules(duplicate=True, match="single")
    settings = Settings(seats=3, bots={0: "demon", 1: "demon", 2: "demon"})
    h = Harness(rules, settings)
    h.table.deal(h.now)
    h.run_until(lambda: h.table.hand_no == 2)
    deals = [r for r in h.records if isinstance(r, DealRecord)]
    base = rebuild_deal(deals[0], rules)
    assert deals[1].layouts == rotated(base, 1).layouts
    again = restore_from_records("TEST", rules, settings, h.records)
    back = Harness(rules, settings, again)
    back.now = h.now
    back.run_until(lambda: again.hand_no == 3)
    third = [r for r in back.records if isinstance(r, DealRecord)][-1]
    assert third.hand == 3 and third.layouts == rotated(base, 2).layouts


def test_tables_that_cannot_play_duplicate_are_refused_clearly_r46(live: Live) -> None:
    """R46: one seat has nobody to compare with; match gap may never end (R45); a
    practice table is unscored. Each is refused naming what to change."""
    one = httpx.post(f"{live.http}/api/tables", json={"seats": 1, "options": {"duplicate": "on"}})
    assert one.status_code == 400
    assert one.json()["error"] == "bad_rules"
    assert "at least two seats" in one.json()["reason"]
    gap = httpx.post(
        f"{live.http}/api/tables", json={"options": {"duplicate": "on", "match": "gap"}}
    )
    assert gap.status_code == 400
    assert "'duplicate' cannot be on with match 'gap'" in gap.json()["reason"]
    assert "race, single or rounds" in gap.json()["reason"]


def _host_error(h: Harness, options: dict[str, str]) -> dict[str, Any]:
    before = len(h.wire.get(1, []))
    h.send(1, {"type": "host", "do": "options", "options": options})
    errors = [m for m in h.messages(1)[before:] if m["type"] == "error"]
    assert errors, f"{options} was not refused"
    return errors[0]


def test_the_host_cannot_turn_duplicate_on_where_it_cannot_be_played_r46() -> None:
    """Between matches the host may change options; duplicate is refused at a table of
    one seat, and with match gap, each with a sentence; the rules stay as they were."""
    alone = Harness(Rules(), Settings(seats=1))
    alone.join("Ann", "t0")
    alone.connect(1, "t0")
    error = _host_error(alone, {"duplicate": "on"})
    assert error["code"] == "host_refused" and "at least two seats" in error["reason"]
    assert alone.table.rules.duplicate is False
    pair = Harness(Rules(match="gap"), Settings(seats=2))
    pair.join("Ann", "t0")
    pair.connect(1, "t0")
    error = _host_error(pair, {"duplicate": "on"})
    assert "cannot be on with match 'gap'" in error["reason"]
    assert pair.table.rules.duplicate is False
