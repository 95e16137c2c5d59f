"""The line at the door (``line.DoorLine``, issue 24, point 2): while the event loop is
behind, a connection beginning a new request waits unread and is read at its turn,
one address after another; on an idle loop nothing waits. Driven as asyncio drives
the gate (``tests/server/test_head_gate.py``'s harness), on a real event loop made
late by callbacks that hold it."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

from nertz.server.cli import uvicorn_config
from nertz.server.door.edge import HeadGate
from nertz.server.door.line import DoorLine
from nertz.server.http.app import Config, create_app
from nertz.server.http.services import services_of

from .test_head_gate import LISTING, TABLE, Parser, Socket, until


class From(Socket):
    """A connection from ``client``."""

    def __init__(self, client: tuple[str, int]) -> None:
        super().__init__()
        self.client = client

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.client if name == "peername" else default


def gated(
    line: DoorLine, client: tuple[str, int] = ("127.0.0.5", 40000)
) -> tuple[HeadGate, Parser, Socket]:
    """A gate with the door's line (and no door) on a new connection from ``client``."""
    kind = type("Gate", (HeadGate,), {"inner_class": Parser, "door": None, "line": line})
    made = kind(config=None, server_state=SimpleNamespace(default_headers=[]), app_state={})
    socket = From(client)
    made.connection_made(socket)
    assert isinstance(made.inner, Parser)
    return made, made.inner, socket


@contextlib.asynccontextmanager
async def held(line: DoorLine) -> AsyncIterator[None]:
    """The loop held 10 ms a round, from before the block (once the line sees it
    behind) to the block's end."""
    done = False
    loop = asyncio.get_running_loop()

    def hold() -> None:
        time.sleep(0.01)  # a long round: the door's timer comes late
        if not done:
            loop.call_soon(hold)

    line.waits(loop)  # the timer runs from the first request on
    loop.call_soon(hold)
    try:
        await until(lambda: line.waits(loop))  # a request beginning now would wait
        yield
    finally:
        done = True


def test_on_an_idle_loop_a_request_is_read_at_once() -> None:
    async def run() -> None:
        line = DoorLine()
        made, parser, socket = gated(line)
        made.data_received(LISTING)
        assert parser.got == LISTING and socket.reading
        assert line.waited == 0 and not made.in_line
        line.stop()

    asyncio.run(run())


def test_while_the_loop_is_behind_a_new_request_waits_unread_then_is_read() -> None:
    async def run() -> None:
        line = DoorLine()
        made, parser, socket = gated(line)
        async with held(line):
            made.data_received(TABLE[:20])
            made.data_received(TABLE[20:])  # read before the pause took: kept, in order
            assert parser.got == b"" and not socket.reading and made.in_line
            assert made.timer is None  # waiting in line is the server's wait, not the client's
            assert line.waiting == 1 and line.waited == 1
        await until(lambda: bool(parser.got))
        assert parser.got == TABLE and socket.reading and not made.in_line
        assert line.waiting == 0
        line.stop()

    asyncio.run(run())


def test_a_request_body_and_a_websocket_never_wait_in_line() -> None:
    """Only the start of a request waits: the rest of one being read, and the frames of
    a connection that became a WebSocket, go on (the tables' plays never wait)."""

    async def run() -> None:
        line = DoorLine()
        made, parser, _ = gated(line)
        made.data_received(TABLE[:-5])  # the head and part of the body, before
        async with held(line):
            made.data_received(TABLE[-5:])
            assert parser.got == TABLE
            made.upgraded()
            made.data_received(b"\x81\x02hi")
            assert parser.got == TABLE + b"\x81\x02hi"
            assert line.waited == 0
        line.stop()

    asyncio.run(run())


def test_the_line_lets_one_address_after_another_in() -> None:
    """Issue 24, point 2: an address with many connections waiting does not hold up
    one with a single request; each address's own connections keep their order."""

    async def run() -> None:
        line = DoorLine()
        loop = asyncio.get_running_loop()
        order: list[str] = []
        async with held(line):
            for name in ("a1", "a2", "a3", "a4"):
                line.wait("10.0.0.1", lambda name=name: order.append(name))
            line.wait("10.0.0.2", lambda: order.append("b1"))
            line.wait("10.0.0.3", lambda: order.append("c1"))
        assert line.waits(loop)  # anyone in line: a new request waits behind them
        await until(lambda: len(order) == 6)
        assert order == ["a1", "b1", "c1", "a2", "a3", "a4"]
        line.stop()

    asyncio.run(run())


def test_the_line_moves_while_the_loop_stays_behind() -> None:
    async def run() -> None:
        line = DoorLine()
        async with held(line):
            gates = [gated(line, (f"127.0.0.{i}", 40000)) for i in range(1, 6)]
            for made, _, _ in gates:
                made.data_received(LISTING)
            assert line.waiting == 5
            await until(lambda: all(parser.got == LISTING for _, parser, _ in gates))
            assert line.behind  # still behind all along: each tick let one in
        line.stop()

    asyncio.run(run())


def test_a_connection_closed_in_line_lets_its_turn_pass() -> None:
    async def run() -> None:
        line = DoorLine()
        made, parser, _ = gated(line)
        after, parser_after, _ = gated(line, ("127.0.0.9", 40001))
        async with held(line):
            made.data_received(LISTING)
            after.data_received(LISTING)
            made.connection_lost(None)
            assert made.backlog == b""
        await until(lambda: parser_after.got == LISTING)
        assert parser.got == b"" and line.waiting == 0
        line.stop()

    asyncio.run(run())


def test_the_timer_stops_once_requests_stop_and_starts_with_the_next() -> None:
    async def run() -> None:
        line = DoorLine()
        made, parser, _ = gated(line)
        made.data_received(LISTING)
        assert parser.got == LISTING and line.ticking
        # Nobody in line and no request begun for IDLE_S (a second): the timer stops.
        await until(lambda: not line.ticking)
        other, parser_other, _ = gated(line, ("127.0.0.8", 40002))
        other.data_received(LISTING)
        assert parser_other.got == LISTING and line.ticking
        line.stop()
        assert not line.ticking

    asyncio.run(run())


def test_the_servers_http_protocol_waits_in_its_services_line() -> None:
    app = create_app(Config(db=":memory:", host="127.0.0.1", port=8000))
    protocol = uvicorn_config(app, Config(db=":memory:")).http
    assert isinstance(protocol, type) and issubclass(protocol, HeadGate)
    assert protocol.line is services_of(app).line


def test_a_turn_that_goes_wrong_does_not_stop_the_line() -> None:
    """A bug in one connection's turn is logged by asyncio; the line moves on."""

    async def run() -> None:
        line = DoorLine()
        loop = asyncio.get_running_loop()
        errors: list[object] = []
        loop.set_exception_handler(lambda _, context: errors.append(context.get("exception")))

        def broken() -> None:
            raise RuntimeError("a bug in a turn")

        order: list[str] = []
        async with held(line):
            line.wait("10.0.0.1", broken)
            line.wait("10.0.0.2", lambda: order.append("after"))
        await until(lambda: order == ["after"])
        assert len(errors) == 1 and isinstance(errors[0], RuntimeError)
        assert line.ticking and line.waiting == 0
        line.stop()

    asyncio.run(run())
