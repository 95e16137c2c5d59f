"""Quick match on one node (issue 26, point 3; ``lobby/quickmatch.py``,
``http/quick_api.py``): signed-in people (a software passkey, ``authenticator.py``)
enter the queue, are paired by ``nertz.rating.pair`` into one private rated table
(the rated preset, ``Settings.rated``), a lone person gets a bot after the countdown
they were shown, and leaving, a second entry, no account and the queue's bounds are
answered as people expect."""

from __future__ import annotations

import contextlib
import itertools
import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import update
from websockets.sync.client import ClientConnection, connect

from nertz.rating import BOT_RATINGS, POLICY, RATED_PRESET, Rating, points, rated_rules
from nertz.server.door.limits import Limits
from nertz.server.store.schema import accounts_t

from ..live_server import eventually, free_port
from .test_accounts import LIMITS, Site, make_account, serving, sign_in


class Skew:
    """The queue's clock, moved forward by hand: a test need not wait out 25 s."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.ahead


PROXY = "127.0.0.1"
"""The tests' server trusts ``X-Forwarded-For`` from here (``--forwarded-allow-ips``), so
each stranger comes from an address of their own, as on the Internet."""


_ADDRESSES = itertools.count()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    with serving(tmp_path / "quick.db", forwarded_allow_ips=PROXY) as found:
        yield found


def person(site: Site, name: str, address: str | None = None) -> contextlib.closing[httpx.Client]:
    """A browser with its own device and address (``address``, else a new one) and an
    account named ``name``, signed in."""
    browser = site.browser(secrets.token_hex(32))
    browser.headers["X-Forwarded-For"] = address or f"203.0.113.{next(_ADDRESSES) % 250 + 1}"
    make_account(browser, site.authenticator(), name)
    return contextlib.closing(browser)


def seated(browser: httpx.Client) -> dict[str, Any]:
    """Poll ``GET /api/quick`` as the waiting page does until it names a seat."""

    def probe() -> dict[str, Any] | None:
        found = browser.get("/api/quick")
        assert found.status_code == 200, found.text
        body: dict[str, Any] = found.json()
        assert body["state"] in ("waiting", "seated"), body
        return body if body["state"] == "seated" else None

    return eventually(probe, "a seat from quick match")


def test_two_signed_in_people_are_paired_into_one_rated_table(site: Site) -> None:
    clock = Skew()
    site.services.quick.clock = clock
    with person(site, "Ann") as ann, person(site, "Bob") as bob:
        for browser in (ann, bob):
            entered = browser.post("/api/quick", json={"mode": "solo", "low": 2, "high": 2})
            assert entered.status_code == 201, entered.text
            assert entered.json()["ratings"]["solo"] == "1500?"
        # Two people whose largest size is two: the table is full, they sit at once.
        a, b = seated(ann), seated(bob)
        assert a["code"] == b["code"] and {a["seat"], b["seat"]} == {0, 1}
        assert a["link"] == f"/t/{a['code']}?key={a['key']}#seat={a['token']}"
        table = site.services.lobby.find(a["code"]).table
        assert table.settings.rated and not table.settings.public
        assert table.rules == rated_rules(False) and RATED_PRESET == "quick"
        assert not table.settings.bots  # nobody waited for bots
        names = {s.get("name") for s in table.info()["seats"]}
        assert names == {"Ann", "Bob"}
        assert ann.get("/api/quick").json()["state"] == "none"  # told once, then done
        # One rated match at a time: not again while this one is being played.
        again = ann.post("/api/quick", json={})
        assert again.status_code == 409 and again.json()["error"] == "in_rated_match"
        assert a["code"] in again.json()["reason"]


def test_a_lone_person_sees_the_countdown_and_gets_a_bot_when_it_ends(site: Site) -> None:
    clock = Skew()
    site.services.quick.clock = clock
    with person(site, "Cora") as cleo:
        first = cleo.post("/api/quick", json={}).json()
        assert first["state"] == "waiting" and first["mode"] == "solo"
        assert (first["low"], first["high"]) == (2, 4)
        assert POLICY.bots_after_s - 1 <= first["bots_in"] <= POLICY.bots_after_s
        clock.ahead = 10.0
        later = cleo.get("/api/quick").json()
        assert later["state"] == "waiting" and later["waited_s"] >= 10
        assert later["bots_in"] <= POLICY.bots_after_s - 10  # counting down
        clock.ahead = POLICY.bots_after_s + 1
        seat = seated(cleo)
        table = site.services.lobby.find(seat["code"]).table
        assert table.settings.rated and seat["seat"] == 0
        # A new player's mu is 25: the level whose fixed rating is nearest is skilled.
        assert table.settings.bots == {1: "skilled"}


def test_leaving_takes_the_person_out_at_once(site: Site) -> None:
    clock = Skew()
    site.services.quick.clock = clock
    with person(site, "Dov") as dan:
        assert dan.post("/api/quick", json={}).status_code == 201
        left = dan.delete("/api/quick")
        assert left.status_code == 200 and left.json() == {"state": "none", "left": True}
        clock.ahead = POLICY.bots_after_s + 5  # long past the bots' countdown
        tables = len(site.services.lobby.tables)
        assert dan.get("/api/quick").json()["state"] == "none"
        assert len(site.services.lobby.tables) == tables and not site.services.quick.waiting


def test_a_second_entry_for_the_same_account_replaces_the_first(site: Site) -> None:
    site.services.quick.clock = Skew()
    with person(site, "Ema") as tab:
        assert tab.post("/api/quick", json={"mode": "solo"}).status_code == 201
        again = tab.post("/api/quick", json={"mode": "partners", "low": 4, "high": 4})
        assert again.status_code == 201 and again.json()["mode"] == "partners"
        waiting = site.services.quick.waiting
        assert len(waiting) == 1 and next(iter(waiting.values())).entry.mode == "partners"


def test_quick_match_needs_an_account(site: Site) -> None:
    with site.browser(secrets.token_hex(32)) as stranger:
        for answer in (
            stranger.post("/api/quick", json={}),
            stranger.get("/api/quick"),
            stranger.delete("/api/quick"),
        ):
            assert answer.status_code == 401
            assert answer.json()["error"] == "not_signed_in"
            assert "sign in" in answer.json()["reason"]
    assert not site.services.quick.waiting


def test_quick_match_needs_the_browser_s_device(site: Site) -> None:
    """A rated place is stored with the browser that took it (as a rated join)."""
    with site.browser() as browser:
        browser.headers["X-Forwarded-For"] = "203.0.113.200"
        make_account(browser, site.authenticator(), "Nia")
        answer = browser.post("/api/quick", json={})
        assert answer.status_code == 401 and answer.json()["error"] == "no_device"
    assert not site.services.quick.waiting


def test_the_queue_is_bounded_per_address_and_checks_what_it_is_asked(tmp_path: Path) -> None:
    limits = Limits(
        **{**{f: getattr(LIMITS, f) for f in LIMITS.__struct_fields__}, "quick_per_address": 2}
    )
    with serving(tmp_path / "bounds.db", limits=limits, forwarded_allow_ips=PROXY) as site:
        site.services.quick.clock = Skew()
        home = "198.51.100.7"  # one household, of accounts older than a day
        people = [person(site, name, home).thing for name in ("Fern", "Gil", "Hob")]
        with site.services.store.engine.begin() as conn:
            conn.execute(update(accounts_t).values(created=accounts_t.c.created - 2 * 86_400))
        try:
            wide = {"mode": "solo", "low": 4, "high": 4}  # nobody pairs before the bots
            assert people[0].post("/api/quick", json=wide).status_code == 201
            assert people[1].post("/api/quick", json=wide).status_code == 201
            third = people[2].post("/api/quick", json=wide)
            assert third.status_code == 429 and third.json()["error"] == "too_many_entries"
            with person(site, "Ynes") as neighbour:  # another address is not held back
                assert neighbour.post("/api/quick", json=wide).status_code == 201
            bad = people[2].post("/api/quick", json={"mode": "teams"})
            assert bad.status_code == 400 and bad.json()["error"] == "bad_mode"
            upside = people[2].post("/api/quick", json={"low": 4, "high": 2})
            assert upside.status_code == 400 and upside.json()["error"] == "bad_size"
            alone = people[2].post("/api/quick", json={"mode": "partners", "low": 2})
            assert alone.status_code == 400 and "at least 4 people" in alone.json()["reason"]
            assert people[0].delete("/api/quick").json()["left"]  # a place frees up
            assert people[2].post("/api/quick", json=wide).status_code == 201
        finally:
            for browser in people:
                browser.close()


def test_one_new_account_per_address_waits_at_once(site: Site) -> None:
    """A rated table seats one account younger than a day from each address (issue
    26, point 5); two waiting at once would be paired together, so the second waits."""
    home = "198.51.100.9"
    with person(site, "Opal", home) as opal, person(site, "Pim", home) as pim:
        assert opal.post("/api/quick", json={}).status_code == 201
        second = pim.post("/api/quick", json={})
        assert second.status_code == 409 and second.json()["error"] == "new_account"
        assert "younger than a day" in second.json()["reason"]
        assert opal.delete("/api/quick").json()["left"]
        assert pim.post("/api/quick", json={}).status_code == 201  # alone now: welcome


def test_an_entry_whose_page_stopped_asking_expires(site: Site) -> None:
    clock = Skew()
    site.services.quick.clock = clock
    with person(site, "Iona") as ida:
        assert ida.post("/api/quick", json={"low": 4, "high": 4}).status_code == 201
        clock.ahead = site.services.quick.expire_s + 1  # the page was closed meanwhile
        assert ida.get("/api/quick").json()["state"] == "none"


def test_partnerships_seat_two_people_a_seat_and_a_bot_completes_a_pair(site: Site) -> None:
    clock = Skew()
    site.services.quick.clock = clock
    four = {"mode": "partners", "low": 4, "high": 4}  # two seats of two (R40)
    with person(site, "Jo") as jo, person(site, "Kit") as kit, person(site, "Lux") as lux:
        for browser in (jo, kit, lux):
            assert browser.post("/api/quick", json=four).status_code == 201
        clock.ahead = POLICY.bots_after_s + 1  # three people: a bot takes the fourth place
        places = {(s["seat"], s["partner"]) for s in (seated(jo), seated(kit), seated(lux))}
        assert places == {(0, 0), (0, 1), (1, 0)}
        code = next(iter(site.services.lobby.tables))
        table = site.services.lobby.find(code).table
        assert table.settings.rated and table.rules == rated_rules(True)
        assert table.settings.seats == 2 and table.settings.bots == {1: "+skilled"}


def _play_out(site: Site, seats: list[dict[str, Any]]) -> None:
    """Each person connects with their seat's token and says ready; the bot goes out
    (R27) and the one-hand rated match ends."""
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(connect(f"ws://127.0.0.1:{site.port}/ws")) for _ in seats]
        for ws, seat in zip(sockets, seats, strict=True):
            ws.send(json.dumps({"type": "hello", "table": seat["code"], "token": seat["token"]}))
            ws.send(json.dumps({"type": "ready"}))
        for ws in sockets:
            _until(ws, "match_end", 90)


def _until(ws: ClientConnection, kind: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        message = json.loads(ws.recv(max(0.01, deadline - time.monotonic())))
        if message["type"] == "event" and message["e"]["k"] == kind:
            return


def test_a_quick_match_is_rated_and_its_ratings_outlive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "rated.db"
    devices = {"Mo": secrets.token_hex(32), "Ned": secrets.token_hex(32)}
    keys = {}
    port = free_port()  # the same after the restart: the passkeys' origin
    with serving(
        db, port=port, speed=20.0, forwarded_allow_ips=PROXY
    ) as site:  # the bot plays twenty times faster
        clock = Skew()
        site.services.quick.clock = clock
        three = {"low": 3, "high": 3}
        browsers = {}
        for name, device in devices.items():
            browsers[name] = site.browser(device)
            browsers[name].headers["X-Forwarded-For"] = f"203.0.113.{len(browsers)}"
            keys[name] = site.authenticator()
            make_account(browsers[name], keys[name], name)
            assert browsers[name].post("/api/quick", json=three).status_code == 201
        clock.ahead = POLICY.bots_after_s + 1
        seats = [seated(b) for b in browsers.values()]
        # At seating the table shows each person's rating and the bot's fixed one.
        at_table, key = f"/api/tables/{seats[0]['code']}/ratings", seats[0]["key"]
        before = browsers["Mo"].get(at_table, params={"key": key}).json()
        people = {p["name"]: p for p in before["places"] if not p["bot"]}
        (bot,) = [p for p in before["places"] if p["bot"]]
        assert before["mode"] == "solo" and set(people) == set(devices)
        assert all(p["shown"] == "1500?" and "change" not in p for p in people.values())
        assert bot["shown"] == str(points(Rating(*BOT_RATINGS["skilled"])))
        assert browsers["Mo"].get(at_table).status_code == 404  # private: its key or nothing
        _play_out(site, seats)
        shown = {
            name: eventually(
                lambda b=b: (r := b.get("/api/quick").json()["ratings"]["solo"]) != "1500?" and r,
                f"{name}'s rating after the match",
            )
            for name, b in browsers.items()
        }
        # At the match's end the table shows each change, as the store rated it.
        after = browsers["Ned"].get(at_table, params={"key": key}).json()["places"]
        for place in (p for p in after if not p["bot"]):
            assert place["before"] == "1500?" and place["after"] == shown[place["name"]]
            assert place["change"] == int(shown[place["name"]].rstrip("?")) - 1500
        assert [p["shown"] for p in after if p["bot"]] == [bot["shown"]]  # never updated
        for b in browsers.values():  # the match is over: they may queue again
            eventually(lambda b=b: b.post("/api/quick", json={}).status_code == 201, "a new entry")
            b.close()
    with serving(db, port=port, forwarded_allow_ips=PROXY) as again:  # a restart
        for number, (name, device) in enumerate(devices.items()):
            with again.browser(device) as browser:
                browser.headers["X-Forwarded-For"] = f"203.0.113.{number}"
                assert sign_in(browser, keys[name]).status_code == 200
                assert browser.get("/api/quick").json()["ratings"]["solo"] == shown[name]
                # The next entry is paired by that rating, not a newcomer's.
                assert browser.post("/api/quick", json={}).status_code == 201
                mu = next(
                    w.entry.mu
                    for w in again.services.quick.waiting.values()
                    if w.player.name == name
                )
                assert round(1500 + 60 * (mu - 25)) == int(shown[name].rstrip("?"))
