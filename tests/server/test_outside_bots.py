"""Outside bots on the real server (issue 28, point 3; docs/bots.md, "Outside bots"): a
person registers a bot (a token shown once, only its hash stored, a quota per address,
a name held for good), the bot joins over the documented protocol and plays like any
client, marked as a bot, with every limit of one; a wrong or revoked token is refused
with a clear error. The example bot of docs/bots.md is run from the docs themselves."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import sqlite3
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from nertz.client import (
    ClientError,
    Closed,
    MatchOver,
    Problem,
    Refusal,
    Table,
    create_table,
    join_as_bot,
    register_bot,
    revoke_bot,
)
from nertz.server.door.limits import Limits
from nertz.server.http.app import Config

from ..live_server import free_port, running

DOCS = Path(__file__).resolve().parents[2] / "docs" / "bots.md"
EXPERTS = {"1": "expert", "2": "expert", "3": "expert"}


def example_bot() -> dict[str, Any]:
    """The example bot of docs/bots.md, run from its code block (so the docs stay true)."""
    block = re.search(r'```python\n("""robo\.py.*?)```', DOCS.read_text(), re.S)
    assert block is not None, "docs/bots.md has no robo.py block"
    names: dict[str, Any] = {"__name__": "robo"}
    exec(compile(block.group(1), "docs/bots.md: robo.py", "exec"), names)
    return names


def serve(tmp_path: Path, speed: float = 4.0, **limits: int) -> Any:
    config = Config(
        db=str(tmp_path / "bots.db"), port=free_port(), speed=speed, limits=Limits(**limits)
    )
    return running(config)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with serve(tmp_path) as port:
        yield f"http://127.0.0.1:{port}"


def refused(call: Any) -> ClientError:
    """The ``ClientError`` an awaited call ends in."""
    with pytest.raises(ClientError) as caught:
        asyncio.run(call)
    return caught.value


def get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def test_the_example_bot_plays_a_whole_match_at_a_table_of_server_bots(server: str) -> None:
    play = example_bot()["play"]

    async def match() -> tuple[Any, dict[str, Any]]:
        token = await register_bot(server, "Robo")
        made = await create_table(
            server, bots=EXPERTS, outside_bots=True, options={"match": "single"}
        )
        return await asyncio.wait_for(play(server, made["code"], token), 300), made

    ended, made = asyncio.run(match())
    assert isinstance(ended, MatchOver), ended
    record = get(f"{server}/api/matches/{made['id']}")
    robo = record["seats"][0]
    assert (robo["name"], robo["bot"]) == ("Robo", "outside")  # marked as a bot
    moves = [e for e in record["events"] if e["e"]["k"] == "moved" and e["e"]["seat"] == 0]
    assert moves, "the outside bot never got a card moved"
    assert list(record["totals"]) == list(ended.totals)


def test_a_wrong_or_revoked_token_is_refused_with_a_clear_error(server: str) -> None:
    token = asyncio.run(register_bot(server, "Robo"))
    made = asyncio.run(create_table(server, bots=EXPERTS, outside_bots=True))
    wrong = refused(join_as_bot(server, made["code"], token[:-2] + "xx"))
    assert (wrong.status, wrong.code) == (401, "bad_bot_token")
    assert "not the token of a registered bot" in wrong.reason
    missing = refused(join_as_bot(server, made["code"], ""))
    assert (missing.status, missing.code) == (401, "no_bot_token")
    # Only the bot's own token revokes it.
    assert refused(revoke_bot(server, "Robo", "x" * 32)).code == "bad_bot_token"

    async def seated_then_revoked() -> list[Any]:
        async with await Table.join(server, made["code"], token) as table:
            await table.ready()
            await revoke_bot(server, "robo", token)  # its name in any case
            told = []
            while not told or not isinstance(told[-1], Closed):
                told.append(await table.next(timeout=30))
            return told

    told = asyncio.run(seated_then_revoked())  # a seated bot loses its place at once
    assert [(u.code, u.reason) for u in told if isinstance(u, Problem)] == [
        ("bot_revoked", "the bot Robo was revoked by its owner; its token is refused")
    ]
    assert get(f"{server}/api/tables/{made['code']}")["seats"][0]["name"] is None
    revoked = refused(join_as_bot(server, made["code"], token))
    assert (revoked.status, revoked.code) == (401, "bad_bot_token")
    assert "revoked" in revoked.reason
    # Revoked, its name stays held: nobody registers it again.
    assert refused(register_bot(server, "Robo")).code == "name_held"


def test_a_held_name_is_refused_to_another_bot_and_to_a_person(server: str) -> None:
    asyncio.run(register_bot(server, "Robo"))
    for same in ("Robo", "ROBO", "R\u043eb\u043e"):  # the last with Cyrillic o's
        held = refused(register_bot(server, same))
        assert (held.status, held.code) == (409, "name_held"), same
        assert "held already" in held.reason
    assert refused(register_bot(server, "Ben")).code == "bot_name"  # a server bot's name
    made = asyncio.run(create_table(server, bots={"1": "expert"}, seats=3))
    with pytest.raises(urllib.error.HTTPError) as caught:
        asyncio.run(person_joins(server, made["code"], "r\u043ebo"))
    said = json.loads(caught.value.read())
    assert said["error"] == "bot_name" and "registered bot" in said["reason"]


def test_registration_is_a_quota_per_address(tmp_path: Path) -> None:
    with serve(tmp_path, bots_per_day=2) as port:
        server = f"http://127.0.0.1:{port}"
        asyncio.run(register_bot(server, "Robo"))
        asyncio.run(register_bot(server, "Tin"))
        over = refused(register_bot(server, "Gear"))
        assert (over.status, over.code) == (429, "too_many_bots")
        assert "at most 2 new bots a day from one address" in over.reason


def test_the_token_is_never_stored_in_plain_text(tmp_path: Path) -> None:
    with serve(tmp_path) as port:
        server = f"http://127.0.0.1:{port}"
        token = asyncio.run(register_bot(server, "Robo"))
    db = sqlite3.connect(tmp_path / "bots.db")
    (stored,) = db.execute("SELECT token_hash FROM bots WHERE name = 'Robo'").fetchone()
    assert stored == hashlib.sha256(token.encode()).hexdigest()
    assert db.execute("SELECT kind FROM names").fetchall() == [("bot",)]
    db.close()
    for path in tmp_path.iterdir():  # the database and its write-ahead log
        assert token.encode() not in path.read_bytes(), path.name


def test_a_table_seats_outside_bots_only_if_allowed_or_invited(server: str) -> None:
    token = asyncio.run(register_bot(server, "Robo"))
    made = asyncio.run(create_table(server, bots={"1": "expert"}, seats=3))
    closed = refused(join_as_bot(server, made["code"], token))
    assert (closed.status, closed.code) == (409, "no_outside_bots")
    assert "invite" in closed.reason

    async def invite_and_join() -> tuple[dict[str, Any], dict[str, Any]]:
        host = (await person_joins(server, made["code"], "Ann", host_token=made["host_token"]))[
            "token"
        ]
        async with websockets.connect(server.replace("http", "ws") + "/ws") as ws:
            await ws.send(json.dumps({"type": "hello", "table": made["code"], "token": host}))
            await ws.send(json.dumps({"type": "host", "do": "invite", "seat": 2, "bot": "Robo"}))
            while True:
                said = json.loads(await ws.recv())
                if said.get("type") == "event" and said["e"]["k"] == "invited":
                    break
            with pytest.raises(urllib.error.HTTPError) as taken:  # the place is Robo's
                await person_joins(server, made["code"], "Quentin")
            assert json.loads(taken.value.read())["error"] == "table_full"
            joined = await join_as_bot(server, made["code"], token)
            while True:
                said = json.loads(await ws.recv())
                if said.get("type") == "event" and said["e"]["k"] == "seat":
                    seat = said["e"]
                    break
            async with websockets.connect(server.replace("http", "ws") + "/ws") as robo:
                hello = {"type": "hello", "table": made["code"], "token": joined["token"]}
                await robo.send(json.dumps(hello))
                while True:  # the bot is here: the host tries to pass it the role
                    said = json.loads(await ws.recv())
                    if said.get("type") == "event" and said["e"]["k"] == "connected":
                        break
                # A bot is never the host (it cannot read the host's dialog).
                await ws.send(json.dumps({"type": "host", "do": "pass", "seat": 2}))
                while True:
                    said = json.loads(await ws.recv())
                    if said.get("type") == "error":
                        assert said["code"] == "host_refused", said
                        assert "Robo is a bot" in said["reason"]
                        return joined, seat

    joined, seat_event = asyncio.run(invite_and_join())
    assert joined["seat"] == 2 and joined["name"] == "Robo"
    assert (seat_event["seat"], seat_event["name"], seat_event["bot"]) == (2, "Robo", "outside")
    seats = get(f"{server}/api/tables/{made['code']}")["seats"]
    assert seats[2]["bot"] == "outside"  # every page marks it a bot


async def person_joins(server: str, code: str, name: str, **more: str) -> dict[str, Any]:
    """A person's join (``POST /api/tables/{code}/join``): its answer."""
    ask = urllib.request.Request(
        f"{server}/api/tables/{code}/join",
        data=json.dumps({"name": name, **more}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    answer = await asyncio.to_thread(urllib.request.urlopen, ask, None, 10)
    return json.loads(answer.read())  # type: ignore[no-any-return]


def test_a_bot_that_floods_is_refused_and_closed_like_any_client(server: str) -> None:
    token = asyncio.run(register_bot(server, "Robo"))
    made = asyncio.run(create_table(server, bots=EXPERTS, outside_bots=True))

    async def flood() -> tuple[list[Refusal | None], list[Any]]:
        async with await Table.join(server, made["code"], token) as table:
            answers = await asyncio.gather(*(table.play("T") for _ in range(400)))
            updates = []
            while not updates or not isinstance(updates[-1], Closed):
                updates.append(await table.next(timeout=30))
            return list(answers), updates

    answers, updates = asyncio.run(flood())
    codes = {a.code for a in answers if a is not None}
    assert "rate_limited" in codes  # the same answer as any client's over its rate
    limited = next(a for a in answers if a is not None and a.code == "rate_limited")
    assert "at most 20 a second" in limited.reason
    assert isinstance(updates[-1], Closed) and "rate limit" in updates[-1].reason
    assert not any(isinstance(u, Problem) and u.code == "bad_token" for u in updates)


def test_an_outside_bots_place_is_marked_after_a_restart(tmp_path: Path) -> None:
    with serve(tmp_path) as port:
        server = f"http://127.0.0.1:{port}"
        token = asyncio.run(register_bot(server, "Robo"))
        made = asyncio.run(create_table(server, bots=EXPERTS, outside_bots=True))
        asyncio.run(join_as_bot(server, made["code"], token))
    with serve(tmp_path) as port:  # the same database: the table is restored
        server = f"http://127.0.0.1:{port}"
        seat = get(f"{server}/api/tables/{made['code']}")["seats"][0]
        assert (seat["name"], seat["bot"]) == ("Robo", "outside")
        # The name is still held after the restart.
        assert refused(register_bot(server, "Robo")).code == "name_held"
