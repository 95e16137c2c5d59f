"""Invites: a private table's short code typed anywhere lets a person in, its watch link
only shows the table, the QR code draws the link for someone holding it, and probing for
private tables is slow and told nothing."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine

from nertz.engine import preset
from nertz.server.door.limits import Limits
from nertz.server.http.app import Config
from nertz.server.lobby import lobby as lobby_module
from nertz.server.lobby.hashing import hash_secret
from nertz.server.lobby.invites import (
    CODE_ALPHABET,
    Invite,
    grouped,
    invite_form,
    invite_of,
    watch_key,
)
from nertz.server.lobby.lobby import Lobby
from nertz.server.store.store import Store
from nertz.server.table.settings import Settings

from ..live_server import free_port, running
from .conftest import Live
from .test_app import Client, create, join


def test_a_private_table_is_joined_by_its_invite_typed_any_way(live: Live) -> None:
    made = create(live, seats=2, public=False)
    invite = made["invite"]
    assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{2}", invite), invite
    assert set(invite.replace("-", "")) <= set(CODE_ALPHABET)  # no 0/O, 1/I/L to misread
    typed = invite.lower().replace("-", " ")
    found = httpx.get(f"{live.http}/api/invites/{typed}")
    assert found.status_code == 200, found.text
    code = made["code"]
    assert found.json() == {"code": code, "link": f"/t/{code}?key={invite.replace('-', '')}"}
    # The typed invite is the key: it shows the table and takes a seat.
    assert httpx.get(f"{live.http}/api/tables/{code}", params={"key": typed}).status_code == 200
    seat = join(live, code, "Ann", key=typed)
    assert seat.status_code == 200 and seat.json()["seat"] == 0
    # A public table's code works the same way (it is its own invite).
    public = create(live, seats=2)
    found = httpx.get(f"{live.http}/api/invites/{public['code'].lower()}").json()
    assert found == {"code": public["code"], "link": f"/t/{public['code']}"}
    assert public["invite"] == public["code"] and "key" not in public


def test_unknown_private_and_wrong_codes_get_the_same_answer(live: Live) -> None:
    made = create(live, seats=2, public=False)
    code = made["code"]
    wrong = "".join("A" if c != "A" else "B" for c in made["invite"].replace("-", ""))
    answers = [
        httpx.get(f"{live.http}/api/invites/{wrong}"),  # no table has that invite
        httpx.get(f"{live.http}/api/invites/{code}"),  # a private table's code is no invite
        httpx.get(f"{live.http}/api/tables/{code}"),
        httpx.get(f"{live.http}/api/tables/{code}/invite", params={"key": wrong}),
        httpx.get(f"{live.http}/api/tables/{code}/qr.svg"),
        join(live, code, "Eve", key=wrong),
    ]
    for answer in answers:
        assert answer.status_code == 404, answer.text
        assert answer.json()["error"] == "unknown_table"
    unused = "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"
    for asked, answer in [
        (code, answers[2]),
        (unused, httpx.get(f"{live.http}/api/tables/{unused}")),
    ]:
        assert answer.json()["reason"] == f"there is no table {asked!r}"


def test_a_made_up_token_gets_the_answer_of_an_unused_code(live: Live) -> None:
    """A ``hello`` with a made-up token tells a private table from an unused code no more
    than any other question: both are ``unknown_table`` with the same sentence (and a
    real token still opens its seat; at a public table a wrong token is ``bad_token``)."""
    made = create(live, seats=2, public=False)
    code = made["code"]
    unused = "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"
    made_up = "x" * 32
    answers = []
    for asked in (code, unused):
        client = Client(live.ws)
        client.send({"type": "hello", "table": asked, "token": made_up})
        answer = client.recv()
        answers.append({**answer, "reason": answer["reason"].replace(asked, "CODE")})
        client.send({"type": "hello", "table": asked, "token": made_up})  # still open: asks again
        assert client.recv()["code"] == "unknown_table"
        client.close()
    assert (
        answers[0]
        == answers[1]
        == {
            "type": "error",
            "code": "unknown_table",
            "reason": "there is no table 'CODE'",
        }
    )
    token = join(live, code, "Ann", key=made["invite"]).json()["token"]
    seated = Client(live.ws)
    seated.send({"type": "hello", "table": code, "token": token})
    state = seated.recv()
    assert state["type"] == "state" and state["seat"] == 0
    seated.close()
    public = create(live, seats=2)["code"]
    stranger = Client(live.ws)
    stranger.send({"type": "hello", "table": public, "token": made_up})
    assert stranger.recv()["code"] == "bad_token"
    stranger.close()


def test_the_invite_dialog_links_and_the_qr_code_need_the_key(live: Live) -> None:
    made = create(live, seats=2, public=False)
    code, invite = made["code"], made["invite"].replace("-", "")
    shared = httpx.get(f"{live.http}/api/tables/{code}/invite", params={"key": invite}).json()
    watch = watch_key(invite)
    assert shared == {
        "invite": made["invite"],
        "link": f"/t/{code}?key={invite}",
        "watch": f"/t/{code}?watch={watch}",
        "qr": f"/api/tables/{code}/qr.svg?key={invite}",
    }
    assert made["link"] == shared["link"] and made["watch"] == shared["watch"]
    qr = httpx.get(f"{live.http}{shared['qr']}")
    assert qr.status_code == 200 and qr.headers["content-type"].startswith("image/svg+xml")
    svg = qr.text
    assert svg.startswith("<svg") and "<path" in svg and invite not in svg
    # Someone holding only the watch link gets no QR code of the invite, and no seat.
    assert (
        httpx.get(f"{live.http}/api/tables/{code}/qr.svg", params={"key": watch}).status_code == 404
    )
    refused = join(live, code, "Eve", key=watch)
    assert refused.status_code == 403 and refused.json()["error"] == "watch_only"
    assert "watch link" in refused.json()["reason"]


def test_the_watch_link_shows_the_table_to_a_spectator_who_cannot_sit(live: Live) -> None:
    made = create(live, seats=2, public=False)
    code = made["code"]
    watch = made["watch"].split("watch=")[1]
    assert httpx.get(f"{live.http}/api/tables/{code}", params={"key": watch}).status_code == 200
    viewer = Client(live.ws)
    viewer.send({"type": "hello", "table": code, "key": watch})
    state = viewer.recv()
    assert state["type"] == "state" and state.get("seat") is None
    viewer.send({"type": "ready"})
    assert viewer.recv()["code"] == "not_seated"
    viewer.close()
    stranger = Client(live.ws)
    wrong = watch[:-1] + ("A" if watch[-1] != "A" else "B")  # one character off
    stranger.send({"type": "hello", "table": code, "key": wrong})
    assert stranger.recv()["code"] == "unknown_table"
    stranger.close()


def test_probing_for_private_tables_is_limited_per_address(tmp_path: Path) -> None:
    limits = Limits(misses_per_minute=5)
    config = Config(db=str(tmp_path / "probe.db"), port=free_port(), limits=limits)
    with running(config) as port:
        http = f"http://127.0.0.1:{port}"
        made = httpx.post(f"{http}/api/tables", json={"seats": 2, "public": False}).json()
        # Right answers cost nothing: a person who has the invite is never slowed.
        for _ in range(10):
            assert httpx.get(f"{http}/api/invites/{made['invite']}").status_code == 200
        for guess in range(5):
            assert httpx.get(f"{http}/api/invites/ABCD-EFGH-{guess + 2}A").status_code == 404
        # Out of misses: every lookup is refused, even the right one, even over a socket.
        for url in (f"/api/invites/{made['invite']}", f"/api/tables/{made['code']}"):
            refused = httpx.get(f"{http}{url}")
            assert refused.status_code == 429 and refused.json()["error"] == "too_many_misses"
            assert int(refused.headers["Retry-After"]) >= 1
        spectator = Client(f"ws://127.0.0.1:{port}/ws")
        spectator.send({"type": "hello", "table": made["code"], "key": made["key"]})
        assert spectator.recv()["code"] == "too_many_misses"
        spectator.close()
        counted = httpx.get(f"{http}/metrics").text
        assert 'nertz_refusals_total{code="too_many_misses"} 3.0' in counted


def test_only_hashes_are_stored_and_an_old_database_gains_the_watch_column(
    tmp_path: Path,
) -> None:
    db = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:  # the tables row as databases before watch links had it
        conn.exec_driver_sql(
            "CREATE TABLE tables (id VARCHAR(40) PRIMARY KEY, code VARCHAR(16) NOT NULL UNIQUE,"
            " key_hash VARCHAR(64), public BOOLEAN NOT NULL, rules TEXT NOT NULL,"
            " settings TEXT NOT NULL, created FLOAT NOT NULL)"
        )
    engine.dispose()
    config = Config(db=str(db), port=free_port())
    with running(config) as port:
        http = f"http://127.0.0.1:{port}"
        made = httpx.post(f"{http}/api/tables", json={"seats": 2, "public": False}).json()
    Store(str(db)).close()
    engine = create_engine(f"sqlite:///{db}")
    with engine.connect() as conn:
        row = conn.exec_driver_sql("SELECT * FROM tables").mappings().one()
    engine.dispose()
    invite = invite_form(made["invite"])
    assert invite is not None and grouped(invite) == made["invite"]
    assert row["key_hash"] == hash_secret(invite)
    assert row["watch_hash"] == hash_secret(watch_key(invite))
    stored = json.dumps(dict(row))
    assert invite not in stored and watch_key(invite) not in stored


@pytest.mark.parametrize("text", ["KQ7M-X2PD-4R", "kq7mx2pd4r", " KQ7M X2PD 4R "])
def test_an_invite_reads_the_same_however_it_is_typed(text: str) -> None:
    assert invite_form(text) == "KQ7MX2PD4R"


def test_a_private_table_slow_watch_secret_is_made_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The watch secret's rounds (milliseconds of CPU) are made on a worker thread when a
    table is made (``Lobby.invited``): on the event loop, 16 practice tables made at once
    stopped every table's plays for 200 ms (issue 24, docs/performance.md)."""
    made_on: list[str] = []

    def recorded(key: str) -> Invite:
        made_on.append(threading.current_thread().name)
        return invite_of(key)

    monkeypatch.setattr(lobby_module, "invite_of", recorded)

    async def run() -> None:
        lobby = Lobby(None)
        private = Settings(seats=2, public=False)
        invite = await lobby.invited(private)
        assert invite is not None and await lobby.invited(Settings(seats=2)) is None
        entry, key = lobby.create(preset("standard"), private, invite=invite)
        assert key == invite.key and entry.key_ok(key)
        assert entry.watch_ok(watch_key(key)) and not entry.watch_ok(watch_key(key + "X"))
        assert entry.key_hash == hash_secret(key)  # only hashes are kept

    asyncio.run(run())
    assert made_on and threading.main_thread().name not in made_on
