"""The door's gate in front of uvicorn's HTTP protocol (``edge.HeadGate``, issue 25,
point 5), driven as asyncio drives a protocol: whatever cuts the network makes of a
client's bytes, they reach the HTTP protocol as they were sent, but for a request the
door refuses, which is answered at its head and never reaches it; a WebSocket upgrade
leaves the gate out of the connection's way."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

from nertz.server.door.edge import Door, HeadGate
from nertz.server.door.limits import Refusal, RefusalMemory
from nertz.server.door.pace import RefusalPace

CLIENT = ("127.0.0.5", 40000)


class Socket(asyncio.Transport):
    """The real transport: what the server wrote, and whether it closed."""

    def __init__(self) -> None:
        super().__init__()
        self.sent = bytearray()
        self.closed = False
        self.reading = True
        self.protocol: asyncio.BaseProtocol | None = None

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def write(self, data: Any) -> None:
        self.sent += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return CLIENT if name == "peername" else default

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.protocol = protocol


class Parser(asyncio.Protocol):
    """Stands for uvicorn's HTTP protocol: keeps what it is given."""

    def __init__(self, config: Any, server_state: Any, app_state: dict[str, Any]) -> None:
        self.got = bytearray()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.got += data


def gate(door: Door | None) -> tuple[HeadGate, Parser, Socket]:
    kind = type("Gate", (HeadGate,), {"inner_class": Parser, "door": door})
    made = kind(config=None, server_state=SimpleNamespace(default_headers=[]), app_state={})
    socket = Socket()
    made.connection_made(socket)
    assert isinstance(made.inner, Parser)
    return made, made.inner, socket


def refusing(pace: RefusalPace | None = None) -> Door:
    memory = RefusalMemory(lambda: 0.0)
    reason = "at most 3 new score sheets an hour from one address; try again in 60 s"
    memory.remember(CLIENT[0], Refusal("too_many_sheets", reason, 60))
    return Door(memory, pace=pace)


def cuts(data: bytes) -> Iterator[list[bytes]]:
    """``data`` cut into pieces of each size from 1 byte to all of it."""
    for size in range(1, len(data) + 1):
        yield [data[at : at + size] for at in range(0, len(data), size)]


BODY = b'{"names": ["A"]}'
SHEET = b"POST /api/sheets HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(BODY), BODY)
TABLE = b'POST /api/tables HTTP/1.1\r\nContent-Length: 12\r\n\r\n{"seats": 2}'
LISTING = b"GET /api/tables HTTP/1.1\r\nHost: x\r\n\r\n"


def test_bytes_reach_the_http_protocol_as_sent_in_any_cut() -> None:
    async def run() -> None:
        stream = TABLE + LISTING + b"\r\n" + TABLE
        for pieces in cuts(stream):
            made, parser, _ = gate(refusing())  # refused score sheets, not these
            for piece in pieces:
                made.data_received(piece)
            assert parser.got == stream
            assert made.timer is None  # three requests wait for their answers
            assert parser.transport is not None
            for _ in range(3):
                parser.transport.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
            assert made.timer is not None  # answered: the next head has its time

    asyncio.run(run())


def test_a_refused_request_is_answered_at_its_head_in_any_cut() -> None:
    async def run() -> None:
        stream = SHEET + SHEET + LISTING + SHEET
        for pieces in cuts(stream):
            made, parser, socket = gate(refusing())
            for piece in pieces:
                made.data_received(piece)
            # The two refused ones never reach uvicorn; the listing does, and the one
            # sent behind it, while it waits, is left to the app's door.
            assert parser.got == LISTING + SHEET
            answers = bytes(socket.sent).split(b"HTTP/1.1 ")[1:]
            assert len(answers) == 2 and not socket.closed
            for answer in answers:
                assert answer.startswith(b"429 Too Many Requests\r\n")
                assert b"retry-after: 60\r\n" in answer and b"too_many_sheets" in answer

    asyncio.run(run())


def test_a_refused_request_with_a_big_body_is_answered_and_never_read() -> None:
    async def run() -> None:
        made, parser, socket = gate(refusing())
        made.data_received(SHEET.replace(b"Length: 16", b"Length: 900000")[: -len(BODY)])
        assert parser.got == b""
        assert b"429 Too Many Requests" in socket.sent and b"connection: close" in socket.sent
        assert socket.closed

    asyncio.run(run())


def test_a_websocket_upgrade_leaves_the_gate_out_of_the_way() -> None:
    async def run() -> None:
        made, parser, socket = gate(refusing())
        upgrade = (
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
        )
        made.data_received(upgrade)
        assert parser.got == upgrade  # never refused at the door: a WebSocket passes
        play = asyncio.Protocol()
        assert parser.transport is not None
        parser.transport.set_protocol(play)  # what uvicorn does with its ws= class
        assert socket.protocol is play
        assert made.timer is None
        # The WebSocket's writes go straight to the socket, not through the gate.
        assert parser.transport.write == socket.write
        parser.transport.write(b"\x81\x02hi")
        assert socket.sent == b"\x81\x02hi"

    asyncio.run(run())


def answers_in(socket: Socket) -> list[bytes]:
    return bytes(socket.sent).split(b"HTTP/1.1 ")[1:]


async def until(condition: Callable[[], bool]) -> None:
    """Wait for ``condition``, as long as a busy machine needs (at most 30 s)."""
    async with asyncio.timeout(30):
        while not condition():
            await asyncio.sleep(0.01)


def test_a_refusal_past_its_address_burst_waits_its_turn_with_the_connection_unread() -> None:
    """Issue 24, point 2: a client asking again at once while refused is answered at
    the address's pace (``pace.RefusalPace``), not as fast as it asks; till its turn
    nothing more of the connection is read, and then what came after goes on in order."""

    async def run() -> None:
        loop = asyncio.get_running_loop()
        made, parser, socket = gate(refusing(RefusalPace(5.0, 1, 10.0, loop.time)))
        made.data_received(SHEET + SHEET)
        assert len(answers_in(socket)) == 1  # the burst: answered at once
        assert made.parked is not None and not socket.reading
        made.data_received(LISTING)  # read before the pause took: kept, in order
        assert parser.got == b""
        await until(lambda: made.parked is None)
        assert len(answers_in(socket)) == 2 and socket.reading and not socket.closed
        assert parser.got == LISTING  # what came after the refusal, passed on once answered
        for answer in answers_in(socket):
            assert answer.startswith(b"429 Too Many Requests\r\n")
        assert made.timer is None  # the listing waits for its answer

    asyncio.run(run())


def test_a_refusal_whose_turn_is_too_far_away_closes_the_connection_unanswered() -> None:
    async def run() -> None:
        loop = asyncio.get_running_loop()
        made, parser, socket = gate(refusing(RefusalPace(1.0, 1, 0.5, loop.time)))
        made.data_received(SHEET + SHEET + LISTING)
        assert len(answers_in(socket)) == 1 and socket.closed
        assert parser.got == b"" and made.parked is None

    asyncio.run(run())


def test_a_connection_lost_while_its_refusal_waits_is_forgotten() -> None:
    async def run() -> None:
        loop = asyncio.get_running_loop()
        made, _, socket = gate(refusing(RefusalPace(0.5, 1, 10.0, loop.time)))
        made.data_received(SHEET + SHEET)
        assert made.parked is not None
        made.connection_lost(None)
        assert made.parked is None and made.backlog == b""
        await asyncio.sleep(0)
        assert len(answers_in(socket)) == 1

    asyncio.run(run())
