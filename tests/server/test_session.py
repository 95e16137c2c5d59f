"""The ``/ws`` session (``http/session.py``) driven without Starlette or a server: a
stand-in channel gives it ASGI messages and records what it sends, and a real lobby
holds the table (no store)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nertz.engine import Rules
from nertz.server.door.limits import Limits, Quotas
from nertz.server.door.site import Site
from nertz.server.http.metrics import Metrics
from nertz.server.http.session import PlaySession, SessionServices
from nertz.server.lobby.lobby import Lobby
from nertz.server.table.settings import Settings
from nertz.server.wire.connection import Connection

PATIENCE_S = 30.0
"""A cap on waiting for the session to answer, never a pause."""


class Channel:
    """A WebSocket as the session sees it: what a test puts in, what it sends out."""

    def __init__(self, origin: str | None = None) -> None:
        headers = [(b"host", b"127.0.0.1:8000")]
        if origin is not None:
            headers.append((b"origin", origin.encode()))
        self.scope: dict[str, Any] = {
            "type": "websocket",
            "client": ("127.0.0.9", 5000),
            "headers": headers,
        }
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.sent: list[dict[str, Any]] = []
        self.news = asyncio.Event()
        self.accepted = False
        self.closed: tuple[int, str | None] | None = None

    async def accept(self) -> None:
        self.accepted = True

    async def receive(self) -> Mapping[str, Any]:
        return await self.inbox.get()

    async def send_text(self, data: str) -> None:
        self.sent.append(json.loads(data))
        self.news.set()

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = (code, reason)
        self.news.set()

    def say(self, message: dict[str, Any]) -> None:
        self.inbox.put_nowait({"type": "websocket.receive", "text": json.dumps(message)})

    async def until(self, kind: str) -> dict[str, Any]:
        """The first message sent of type ``kind`` (waiting for it if need be)."""
        async with asyncio.timeout(PATIENCE_S):
            while True:
                for message in self.sent:
                    if message["type"] == kind:
                        return message
                self.news.clear()
                await self.news.wait()

    async def until_closed(self) -> tuple[int, str | None]:
        async with asyncio.timeout(PATIENCE_S):
            while self.closed is None:
                self.news.clear()
                await self.news.wait()
        return self.closed


@dataclass(frozen=True)
class _Alone:
    """A single server's services as a session reads them (``SessionServices``)."""

    lobby: Lobby
    limits: Limits
    quotas: Quotas
    site: Site = field(default_factory=lambda: Site.of((), "127.0.0.1", 8000))
    metrics: Metrics = field(default_factory=lambda: Metrics(lambda: None))
    connections: set[Connection] = field(default_factory=set)
    cluster: None = None
    live: None = None


def _services(lobby: Lobby, limits: Limits | None = None) -> SessionServices:
    limits = limits or Limits()
    return _Alone(lobby, limits, Quotas(limits))


async def _a_seat_at_a_table() -> None:
    lobby = Lobby(None)
    entry, _ = lobby.create(Rules(), Settings(seats=2, bots={1: "demon"}))
    _, seat, _, token = await lobby.join(entry.code, "Ann")
    services = _services(lobby)
    ann = Channel()
    session = asyncio.create_task(PlaySession(services, ann).run())

    ann.say({"type": "ready"})  # before any hello: told to say it
    assert (await ann.until("error"))["code"] == "not_joined"
    ann.say({"type": "hello", "table": "QQQQQQ", "token": token})  # no such table
    assert [m["code"] for m in ann.sent if m["type"] == "error"] == ["not_joined"]
    ann.say({"type": "hello", "table": entry.code, "token": token})
    state = await ann.until("state")
    assert state["table"]["code"] == entry.code and state["seat"] == seat
    errors = [m["code"] for m in ann.sent if m["type"] == "error"]
    assert errors == ["not_joined", "unknown_table"]
    assert len(services.connections) == 1 and ann.accepted

    ann.inbox.put_nowait({"type": "websocket.disconnect", "code": 1001})
    await asyncio.wait_for(session, PATIENCE_S)
    assert services.connections == set()  # counted no more
    assert services.quotas.open_connection("127.0.0.9") is None  # its place is free again
    await lobby.stop()


def test_a_session_says_hello_finds_its_table_and_is_seated_without_a_server() -> None:
    """Hello, the table's lookup and the seat: a message before the hello is answered
    ``not_joined``, a hello to an unknown code ``unknown_table``, the right one gets
    the table's state for Ann's seat; the end of the connection frees its quota."""
    asyncio.run(_a_seat_at_a_table())


async def _refused() -> None:
    lobby = Lobby(None)
    stranger = Channel(origin="https://evil.example")
    await PlaySession(_services(lobby), stranger).run()
    assert stranger.closed == (1008, "origin not allowed") and not stranger.accepted

    one = Limits(connections_per_address=1, hello_timeout_s=0.2)
    services = _services(lobby, one)
    first, second = Channel(), Channel()
    session = asyncio.create_task(PlaySession(services, first).run())
    while not first.accepted:  # the first holds the address's one connection
        await asyncio.sleep(0)
    await PlaySession(services, second).run()  # over the address's connections
    assert second.closed == (1013, "too_many_connections")
    assert second.sent[0]["code"] == "too_many_connections"

    # The first never says hello: closed once hello_timeout_s has passed.
    assert await first.until_closed() == (1008, "no hello")
    await asyncio.wait_for(session, PATIENCE_S)
    await lobby.stop()


def test_a_session_refuses_a_foreign_origin_a_connection_over_quota_and_no_hello() -> None:
    asyncio.run(_refused())
