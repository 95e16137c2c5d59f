"""Rated play joined to accounts (issue 26, points 1 and 5; ``Lobby.join``,
``lobby/ratings.py``): a rated table seats only a signed-in account, its ratings are
the account's (stored with each place, so a rebuild and a restart key them the same),
one account holds one place of a rated table, and one address seats at most one new
account at it. The daily deal's one counted try is one per account too
(``daily.counted_by``)."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select, update
from websockets.sync.client import connect

from nertz.rating import MU
from nertz.server.lobby.accounts import NEW_ACCOUNT_S
from nertz.server.lobby.ratings import ratings_of, rebuild_ratings
from nertz.server.store.schema import accounts_t, daily_attempts_t

from ..live_server import eventually, free_port
from .test_accounts import Site, error, make_account, serving, sign_in
from .test_me import ANN, BEN, BOT


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    with serving(tmp_path / "rated.db") as found:
        yield found


def device() -> str:
    return secrets.token_hex(32)  # as the browser makes it (device.js)


def rated_table(browser: httpx.Client, seats: int = 2, **extra: Any) -> str:
    """A rated table (the test hook: only the server makes one otherwise) of ``seats``
    with a beginner bot at the last; Ann's cards win at once (her ace, then Nertz)."""
    made = browser.post(
        "/api/test/tables",
        json={
            "preset": "quick",
            "rated": True,
            "layouts": [ANN, *[BEN] * (seats - 2), BOT],
            "seats": seats,
            "bots": {str(seats - 1): "beginner"},
            "countdown_ms": 100,
            **extra,
        },
    )
    assert made.status_code == 201, made.text
    return str(made.json()["code"])


def join(browser: httpx.Client, code: str, name: str) -> httpx.Response:
    return browser.post(f"/api/tables/{code}/join", json={"name": name})


def win(site: Site, code: str, token: str) -> None:
    """Play Ann's one-hand rated match to its end: her ace, then Nertz (R27)."""
    with connect(f"ws://127.0.0.1:{site.port}/ws") as ws:
        ws.send(json.dumps({"type": "hello", "table": code, "token": token}))
        ws.send(json.dumps({"type": "ready"}))
        _until(ws, "go")
        ws.send(json.dumps({"type": "play", "seq": 1, "move": "N>F"}))
        ws.send(json.dumps({"type": "call", "seq": 2}))
        _until(ws, "match_end")


def _until(ws: Any, kind: str) -> None:
    deadline = time.monotonic() + 20
    while True:
        message = json.loads(ws.recv(max(0.01, deadline - time.monotonic())))
        if message["type"] == "event" and message["e"]["k"] == kind:
            return


def age(site: Site, account_id: str, seconds: float) -> None:
    """Make the account older by ``seconds`` (as if made that long before)."""
    with site.services.store.engine.begin() as conn:
        conn.execute(
            update(accounts_t)
            .where(accounts_t.c.id == account_id)
            .values(created=accounts_t.c.created - seconds)
        )


def test_rated_play_needs_an_account_and_rates_the_account(tmp_path: Path) -> None:
    """Point 1: a join to a rated table without an account is refused with a sentence
    saying to sign in, and nothing is taken; signed in, the match rates the account
    (not the device): the same numbers rebuilt from the store, and after a restart."""
    db, port = tmp_path / "rated.db", free_port()
    laptop = device()
    with serving(db, port=port) as site, site.browser(laptop) as ann:
        code = rated_table(ann)
        refused = join(ann, code, "Ann")
        assert refused.status_code == 401 and error(refused) == "account_required"
        assert "sign in" in refused.json()["reason"]
        made, _ = make_account(ann, site.authenticator(), "Ann")
        account_id = made["account"]["id"]
        age(site, account_id, 2 * NEW_ACCOUNT_S)
        with site.browser() as headless:  # signed in, but no device to store the place
            headless.cookies.set("nertz_session", ann.cookies["nertz_session"])
            alone = join(headless, code, "Ann")
            assert alone.status_code == 401 and error(alone) == "no_device"
        seat = join(ann, code, "Ann")
        assert seat.status_code == 200, seat.text
        win(site, code, seat.json()["token"])
        engine = site.services.store.engine
        live = eventually(lambda: ratings_of(engine) or None, "the rated match's ratings")
        assert set(live) == {("solo", account_id)}  # the account's, not the device's
        assert live[("solo", account_id)].mu > MU and live[("solo", account_id)].matches == 1
        assert rebuild_ratings(engine) == live == ratings_of(engine)
    with serving(db, port=port) as site:
        assert ratings_of(site.services.store.engine) == live  # a restart loses none


def test_an_account_holds_one_place_of_a_rated_table(site: Site) -> None:
    """Point 5: the same account from a second browser (another device) cannot take a
    second place of a rated table; another account can."""
    key = site.authenticator()
    with site.browser(device()) as laptop, site.browser(device()) as phone:
        made, _ = make_account(laptop, key, "Ann")
        age(site, made["account"]["id"], 2 * NEW_ACCOUNT_S)
        assert sign_in(phone, key).status_code == 200
        code = rated_table(laptop, seats=3)
        assert join(laptop, code, "Ann").status_code == 200
        second = join(phone, code, "Annie")  # another name does not make another person
        assert second.status_code == 409 and error(second) == "one_place"
        assert "one account plays one place" in second.json()["reason"]
        again = join(laptop, code, "Annie")  # from the same browser too
        assert again.status_code == 409 and error(again) == "one_place"
        taken = [p for p in site.services.lobby.find(code).table.places if p.token_hash]
        assert len(taken) == 1
        with site.browser(device()) as bea:
            other, _ = make_account(bea, site.authenticator(), "Bea")
            age(site, other["account"]["id"], 2 * NEW_ACCOUNT_S)
            assert join(bea, code, "Bea").status_code == 200


def test_a_rated_table_seats_one_new_account_per_address(site: Site) -> None:
    """Point 5: two accounts younger than a day from one address cannot both sit at a
    rated table; once the second is older than a day it may. An unrated table does
    not ask."""
    with site.browser(device()) as ann, site.browser(device()) as bea:
        make_account(ann, site.authenticator(), "Ann")
        made, _ = make_account(bea, site.authenticator(), "Bea")
        code = rated_table(ann, seats=3)
        assert join(ann, code, "Ann").status_code == 200
        refused = join(bea, code, "Bea")
        assert refused.status_code == 409 and error(refused) == "new_account"
        assert "one account younger than a day" in refused.json()["reason"]
        age(site, made["account"]["id"], NEW_ACCOUNT_S + 60)
        assert join(bea, code, "Bea").status_code == 200


def test_a_daily_try_is_one_a_day_per_account_too(tmp_path: Path) -> None:
    """Point 3 of the brief (the daily deal and accounts): signed in to one account, a
    second counted try from another browser and another address is refused; the board
    tells that browser its account has played."""
    with serving(tmp_path / "daily.db", forwarded_allow_ips="127.0.0.1") as site:
        key = site.authenticator()
        with site.browser(device()) as laptop, site.browser(device()) as phone:
            made, _ = make_account(laptop, key, "Ann")
            first = laptop.post("/api/daily", json={"name": "Ann"})
            assert first.status_code == 201 and first.json()["counted"] is True
            assert sign_in(phone, key).status_code == 200
            elsewhere = {"X-Forwarded-For": "203.0.113.7"}
            again = phone.post("/api/daily", json={"name": "Ann"}, headers=elsewhere)
            assert again.status_code == 409 and error(again) == "daily_played"
            assert "your account" in again.json()["reason"]
            you = phone.get("/api/daily", headers=elsewhere).json()["you"]
            assert you["counted"] is True and you["by"] == "account"
            practice = phone.post(
                "/api/daily", json={"name": "Ann", "practice": True}, headers=elsewhere
            )
            assert practice.status_code == 201  # a replay after the account's try
        with site.browser(device()) as bea:  # someone else there, not signed in
            mine = bea.post("/api/daily", json={"name": "Bea"}, headers=elsewhere)
            assert mine.status_code == 201, mine.text
        with site.services.store.engine.connect() as conn:
            rows = conn.execute(
                select(daily_attempts_t.c.counted, daily_attempts_t.c.account).order_by(
                    daily_attempts_t.c.id
                )
            ).all()
        account_id = made["account"]["id"]
        assert [tuple(r) for r in rows] == [(True, account_id), (False, account_id), (True, None)]


def test_one_place_per_account_holds_across_a_restart(tmp_path: Path) -> None:
    """The account that holds a place is stored with it: a resumed rated table still
    refuses the same account a second place."""
    db, port = tmp_path / "kept.db", free_port()
    laptop, phone = device(), device()
    with serving(db, port=port) as site, site.browser(laptop) as on_laptop:
        key = site.authenticator()
        made, _ = make_account(on_laptop, key, "Ann")
        age(site, made["account"]["id"], 2 * NEW_ACCOUNT_S)
        code = rated_table(on_laptop, seats=3)
        assert join(on_laptop, code, "Ann").status_code == 200
        cookie = on_laptop.cookies["nertz_session"]
    with serving(db, port=port) as site, site.browser(phone) as on_phone:
        assert code in site.services.lobby.tables  # resumed
        on_phone.cookies.set("nertz_session", cookie)
        second = join(on_phone, code, "Annie")
        assert second.status_code == 409 and error(second) == "one_place"
