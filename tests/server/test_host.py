"""The host: each host action works for the host and is refused ``not_host`` to
anyone else; a removed person's token is refused; the role passes by itself when the
host leaves; options changed between matches hold for the next one, after a restore too."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from nertz.engine import Rules
from nertz.server.table.commands import Join, Stage
from nertz.server.table.settings import Settings
from nertz.server.table.table import restore_from_records

from .conftest import Live
from .harness import Harness, token_hash
from .test_table import play_match

SINGLE = Rules(match="single")


def table(seats: int = 3, **settings: Any) -> Harness:
    """Ann (the host, seat 0) and Bo (seat 1), both here; seat 2 empty."""
    h = Harness(SINGLE, Settings(seats=seats, countdown_ms=500, next_hand_s=5, **settings))
    for conn, (name, token) in enumerate((("ann", "t0"), ("bo", "t1")), start=1):
        h.join(name, token)
        h.connect(conn, token)
    return h


def host(h: Harness, conn: int, **action: Any) -> dict[str, Any] | None:
    """Send a host action; the error it got, if any."""
    before = len(h.wire.get(conn, []))
    h.send(conn, {"type": "host", **action})
    errors = [m for m in h.messages(conn)[before:] if m["type"] == "error"]
    return errors[0] if errors else None


ACTIONS = [
    {"do": "start", "bot": "skilled"},
    {"do": "pass", "seat": 0},
    {"do": "bot", "seat": 0, "bot": "skilled"},
    {"do": "remove", "seat": 0},
    {"do": "options", "options": {"caller_bonus": "10"}},
]


@pytest.mark.parametrize("action", ACTIONS, ids=[a["do"] for a in ACTIONS])
def test_every_host_action_is_refused_to_anyone_but_the_host(action: dict[str, Any]) -> None:
    h = table()
    before = h.table.info()
    error = host(h, 2, **action)
    assert error is not None and error["code"] == "not_host"
    assert "host" in error["reason"]
    assert h.table.info() == before  # nothing changed
    h.connect(3, None)  # a spectator is not host either
    assert (host(h, 3, **action) or {}).get("code") == "not_host"


def test_the_first_person_to_join_is_host_and_everyone_knows() -> None:
    h = table()
    assert h.table.info()["host"] == {"seat": 0, "partner": None}
    events = [m["e"] for m in h.messages(2) if m["type"] == "event"]
    assert h.last(2)["type"] == "state" and h.messages(2)[0]["table"]["host"]["seat"] == 0
    assert not [e for e in events if e["k"] == "host"]  # Bo's state already said so


def test_the_host_starts_now_with_bots_in_the_empty_seats() -> None:
    h = table()
    assert host(h, 1, do="start", bot="casual") is None
    assert h.table.stage is Stage.COUNTDOWN
    seat = h.table.info()["seats"][2]
    assert seat["bot"] == "casual" and seat["name"] == "Cleo"


def test_the_host_starts_with_a_plain_choice_of_bots_each_seat_in_turn() -> None:
    # The host's dialog offers the home page's choices ("Fierce"), not levels.
    h = table(seats=4)
    assert host(h, 1, do="start", bot="fierce") is None
    seats = h.table.info()["seats"]
    assert [seats[2]["bot"], seats[3]["bot"]] == ["expert", "expert:racer"]
    assert (host(table(), 1, do="start", bot="sleepy") or {}).get("code") == "host_refused"


def test_the_host_starts_the_next_match_once_60_s_have_passed_since_the_last() -> None:
    h = table()
    host(h, 1, do="start")
    play_match(h)
    ended = h.table.series.over_at
    assert ended is not None and ended <= h.now
    end = [m["e"] for m in h.messages(2) if m["type"] == "event" and m["e"]["k"] == "match_end"]
    assert end[-1]["host_wait_ms"] == 60_000  # everyone is told when
    h.send(2, {"type": "resync"})
    assert h.last(2)["host_start_ms"] == ended + 60_000  # and a page that reloads too
    h.advance(ended + 59_000 - h.now)
    error = host(h, 1, do="start")
    assert error is not None and error["code"] == "host_refused"
    assert "Play again" in error["reason"] and "1 s to go" in error["reason"]
    assert h.table.stage is Stage.OVER and h.table.match_no == 1
    h.advance(1_000)
    assert host(h, 1, do="start") is None  # Bo never said Play again: not waited for
    assert h.table.match_no == 2 and h.table.stage is Stage.COUNTDOWN
    h.send(2, {"type": "resync"})
    assert h.last(2).get("host_start_ms") is None


def test_everyone_saying_play_again_needs_no_wait_and_the_wait_is_a_setting() -> None:
    h = table()
    host(h, 1, do="start")
    play_match(h)
    for conn in (1, 2):
        h.send(conn, {"type": "again"})
    assert h.table.match_no == 2  # at once: nobody waits for the host's minute
    h = table(host_start_s=0)
    host(h, 1, do="start")
    play_match(h)
    assert host(h, 1, do="start") is None and h.table.match_no == 2


def test_the_host_changes_options_between_matches_and_everyone_is_told() -> None:
    h = table()
    assert host(h, 1, do="options", options={"caller_bonus": "10"}) is None
    told = [m["e"] for m in h.messages(2) if m["type"] == "event" and m["e"]["k"] == "options"]
    assert told[-1]["changed"] == {"caller_bonus": 10}
    assert h.table.info()["rules"]["caller_bonus"] == 10
    error = host(h, 1, do="options", options={"caller_bonus": "500"})
    assert error is not None and error["code"] == "host_refused" and "50" in error["reason"]
    assert host(h, 1, do="start") is None
    error = host(h, 1, do="options", options={"caller_bonus": "25"})
    assert error is not None and error["code"] == "host_refused"  # not during a match


def test_options_changed_before_the_second_match_survive_a_restore() -> None:
    h = table()
    host(h, 1, do="start")
    play_match(h)
    assert host(h, 1, do="options", options={"caller_bonus": "25", "draw": "1"}) is None
    h.advance(60_000)
    assert host(h, 1, do="start") is None  # the next match, without waiting for Bo
    assert h.table.match_no == 2 and h.table.rules.caller_bonus == 25
    h.run_until(lambda: h.table.stage is Stage.PLAYING)
    again = restore_from_records("TEST", SINGLE, h.table.settings, h.records)
    assert again.rules == h.table.rules and again.match.rules.caller_bonus == 25
    assert again.hand is not None and h.table.hand is not None
    assert again.hand.snapshot() == h.table.hand.snapshot()
    assert again.info()["host"] == h.table.info()["host"]


def test_the_host_puts_a_bot_in_the_place_of_a_person_who_is_away() -> None:
    h = table()
    error = host(h, 1, do="bot", seat=1, bot="expert")
    assert error is not None and "here" in error["reason"]  # Bo is here
    h.drop(2)
    assert host(h, 1, do="bot", seat=1, bot="expert") is None
    seat = h.table.info()["seats"][1]
    # A stand-in: Bo's place, in Bo's name, a bot of the host's choice playing it.
    assert seat["name"] == "bo" and seat["bot"] is None
    assert seat["takeover"] is True and seat["stand_in"] == "expert"
    told = [m["e"] for m in h.messages(1) if m["type"] == "event" and m["e"]["k"] == "takeover"]
    assert told[-1] == {"k": "takeover", "seat": 1, "bot": True, "stand_in": "expert"}
    h.connect(5, "t1")  # Bo comes back with the token the page kept: the place is his
    assert h.last(5)["type"] != "error" and h.table.conns[5] == 1
    seat = h.table.info()["seats"][1]
    assert seat["connected"] and not seat["takeover"] and "stand_in" not in seat


def test_the_host_s_bot_plays_a_hand_and_keeps_the_place_past_reconnect_s() -> None:
    h = table(reconnect_s=10, bot_takeover_s=0)
    assert host(h, 1, do="start") is None
    h.run_until(lambda: h.table.stage is Stage.PLAYING)
    h.drop(2)
    assert host(h, 1, do="bot", seat=1, bot="relaxed") is None
    moved = len(h.table.hand.log) if h.table.hand else 0
    h.advance(30_000)  # three times reconnect_s: without the host's bot, Bo's place goes
    assert h.table.info()["seats"][1]["name"] == "bo"
    assert h.table.hand is not None and any(
        seat == 1 for _, seat, _ in h.table.hand.log[moved:]
    )  # the bot plays Bo's cards meanwhile
    h.connect(5, "t1")
    assert h.table.conns[5] == 1 and h.table.places[1].driver is None


def test_the_host_takes_the_bot_out_again() -> None:
    h = table(reconnect_s=10)
    h.drop(2)
    assert (host(h, 1, do="bot_off", seat=1) or {}).get("code") == "host_refused"
    assert host(h, 1, do="bot", seat=1) is None
    h.advance(20_000)
    assert host(h, 1, do="bot_off", seat=1) is None
    seat = h.table.info()["seats"][1]
    assert seat["name"] == "bo" and not seat["takeover"] and seat["kept_until_ms"] == h.now + 10_000
    h.advance(10_000)  # away with no bot: the place is released as for anyone away
    assert h.table.info()["seats"][1]["name"] is None


def test_the_host_s_bot_survives_a_restore() -> None:
    h = table()
    h.drop(2)
    assert host(h, 1, do="bot", seat=1, bot="expert") is None
    again = restore_from_records("TEST", SINGLE, h.table.settings, h.records)
    place = again.places[1]
    assert place.stand_in == "expert" and place.driver is not None and place.name == "bo"


def test_a_finished_match_names_who_played_it_whatever_happens_to_the_seats() -> None:
    h = table()
    host(h, 1, do="start")  # Cleo, a bot, takes the empty seat 2
    play_match(h)
    h.drop(2)
    assert host(h, 1, do="bot", seat=1) is None  # "A bot for Bo" after the match
    played = ["ann", "bo", "Cleo"]
    ended = [m["e"] for m in h.messages(1) if m["type"] == "event" and m["e"]["k"] == "match_end"]
    assert ended[-1]["names"] == played
    assert h.table.info()["seats"][1]["name"] == "bo"
    assert h.table.info()["series"]["names"] == [played]
    h.connect(5, "t1")
    h.send(5, {"type": "leave"})  # Bo gives the place up; Dan takes it
    h.join("dan", "t3")
    assert h.table.info()["seats"][1]["name"] == "dan"
    assert h.table.info()["series"]["names"] == [played]
    record = [r for r in h.records if type(r).__name__ == "MatchRecord"][-1]
    assert [name for _, _, name, _ in record.players] == played
    again = restore_from_records("TEST", SINGLE, h.table.settings, h.records)
    assert again.info()["series"]["names"] == [played]
    h.advance(60_000)
    assert host(h, 1, do="start") is None  # match 2, with Dan at seat 1
    assert h.table.info()["series"]["names"] == [played]


def test_a_removed_person_is_told_and_their_token_is_refused() -> None:
    h = table()
    assert host(h, 1, do="remove", seat=1) is None
    assert h.last(2) == {
        "type": "error",
        "code": "removed",
        "reason": "the host removed you from this table",
    }
    assert h.closed[2] == "removed"
    assert h.table.info()["seats"][1]["name"] is None
    h.connect(6, "t1")
    assert h.last(6)["code"] == "bad_token"


def test_the_host_passes_the_role_and_it_passes_by_itself_when_the_host_leaves() -> None:
    h = table()
    assert host(h, 1, do="pass", seat=1) is None
    assert h.table.info()["host"] == {"seat": 1, "partner": None}
    assert (host(h, 1, do="pass", seat=1) or {}).get("code") == "not_host"
    h.send(2, {"type": "leave"})  # Bo, the host, leaves: Ann is host again
    assert h.table.info()["host"] == {"seat": 0, "partner": None}
    told = [m["e"] for m in h.messages(1) if m["type"] == "event" and m["e"]["k"] == "host"]
    assert told[-2:] == [{"k": "host", "seat": 1}, {"k": "host", "seat": 0}]


def test_the_creator_is_host_whoever_joins_first_and_their_place_is_kept() -> None:
    """Issue 24: a stranger watching the list of public tables joins before the
    creator: the creator's place is kept (seat 0 refused to the stranger), the stranger
    is host of nothing, and the creator, joining with the host token, is host."""
    h = Harness(SINGLE, Settings(seats=3, countdown_ms=500))
    h.table.keep_for_creator(0)
    assert h.join("racer", "r", seat=0) == (None, ("seat_taken", "seat 0 is taken"))
    assert h.join("racer", "r") == ((1, 0), None)
    h.connect(1, "r")
    assert h.table.info()["host"] is None
    assert (host(h, 1, do="start", bot="skilled") or {}).get("code") == "not_host"
    assert (host(h, 1, do="remove", seat=0) or {}).get("code") == "not_host"
    assert h.join("Third", "x") == ((2, 0), None)  # the last free seat; seat 0 stays kept
    assert h.join("Fourth", "y")[1][0] == "table_full"
    assert h.do(Join("ann", token_hash("a"), 0, None, creator=True)).reply == ((0, 0), None)
    h.connect(2, "a")
    assert h.table.info()["host"] == {"seat": 0, "partner": None}
    assert host(h, 2, do="remove", seat=1) is None  # the host's own table
    assert h.closed[1] == "removed"


def test_a_creator_who_never_comes_keeps_their_place_for_reconnect_s_only() -> None:
    h = Harness(SINGLE, Settings(seats=2, reconnect_s=120))
    h.table.keep_for_creator(0)
    assert h.join("Bo", "b") == ((1, 0), None)
    h.advance(121_000)
    assert h.join("Cy", "c") == ((0, 0), None)  # kept no longer: the first to come is host
    assert h.table.info()["host"] == {"seat": 0, "partner": None}


def test_over_http_the_creator_is_host_though_a_poller_joins_first(live: Live) -> None:
    """Issue 24 as it was found: a client polling ``GET /api/tables`` from another
    address joins seat 0 of a new public table before its creator does."""
    transport = httpx.HTTPTransport(local_address="127.0.0.2")
    with httpx.Client(base_url=live.http, transport=transport, timeout=10) as racer:
        made = httpx.post(f"{live.http}/api/tables", json={"seats": 3}).json()
        assert len(made["host_token"]) >= 32
        listed = racer.get("/api/tables").json()["tables"]
        assert [t["free"] for t in listed if t["code"] == made["code"]] == [[1, 2]]
        stolen = racer.post(f"/api/tables/{made['code']}/join", json={"name": "R", "seat": 0})
        assert stolen.status_code == 409 and stolen.json()["error"] == "seat_taken"
        assert racer.post(f"/api/tables/{made['code']}/join", json={"name": "R"}).status_code == 200
        wrong = racer.post(
            f"/api/tables/{made['code']}/join", json={"name": "R2", "host_token": "x" * 32}
        )
        assert wrong.status_code == 403 and wrong.json()["error"] == "bad_host_token"
    mine = httpx.post(
        f"{live.http}/api/tables/{made['code']}/join",
        json={"name": "Ann", "seat": 0, "host_token": made["host_token"]},
    )
    assert mine.status_code == 200 and mine.json()["seat"] == 0
    table = httpx.get(f"{live.http}/api/tables/{made['code']}").json()
    assert table["host"] == {"seat": 0, "partner": None}


def test_the_hosts_options_are_a_rate_and_a_bound_not_a_stored_event_each() -> None:
    """Issue 24: a host flipping an option back and forth stores a burst of changes,
    then is refused ``changes_too_fast`` with nothing stored; the table's changes have a
    bound over its life (``too_many_changes``)."""
    from nertz.server.table.lifetimes import CHANGES_BURST, CHANGES_MAX

    h = table()
    before = h.table.version
    refused = []
    for n in range(40):  # all at one instant
        refused.append(host(h, 1, do="options", options={"caller_bonus": str(10 + n % 2)}))
    assert h.table.version - before == CHANGES_BURST
    assert {e["code"] for e in refused if e} == {"changes_too_fast"}
    for n in range(CHANGES_MAX):
        h.advance(1000)
        host(h, 1, do="options", options={"caller_bonus": str(10 + n % 2)})
    assert h.table.lifetimes.changes == CHANGES_MAX
    h.advance(60_000)
    error = host(h, 1, do="options", options={"caller_bonus": "12"})
    assert error is not None and error["code"] == "too_many_changes"
    assert h.table.version - before == CHANGES_MAX
