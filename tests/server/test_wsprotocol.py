"""The server's WebSocket protocol (``wire/wsprotocol.py``) on a stand-in transport:
the handshake through an ASGI app, frames cut however they arrive, and the round trip
of a ping frame (``round_trip``), which the page's script cannot lengthen."""

from __future__ import annotations

import asyncio
import base64
import os
from typing import Any

from nertz.server.wire.wsprotocol import PlaySocket, play_socket

from .raw_socket import masked

PATIENCE_S = 30.0


class Transport(asyncio.Transport):
    """What the protocol writes, and whether it closed."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.writes = 0
        self.closing = False
        self.reading = True

    def write(self, data: Any) -> None:
        self.written += data
        self.writes += 1

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = True

    def can_write_eof(self) -> bool:
        return False

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.5", 4000), "sockname": ("127.0.0.1", 8000)}.get(name, default)


class ServerState:
    def __init__(self) -> None:
        self.connections: set[Any] = set()
        self.tasks: set[asyncio.Task[None]] = set()
        self.default_headers: list[tuple[bytes, bytes]] = [(b"server", b"test")]


def _frames(data: bytes) -> list[tuple[int, bytes]]:
    """The server's (unmasked) frames in ``data``: (opcode, payload) each."""
    out, at = [], 0
    while at < len(data):
        size, start = data[at + 1] & 0x7F, at + 2
        if size == 126:
            size, start = int.from_bytes(data[at + 2 : at + 4], "big"), at + 4
        out.append((data[at] & 0x0F, bytes(data[start : start + size])))
        at = start + size
    return out


async def _open() -> tuple[PlaySocket, Transport, list[str], asyncio.Event]:
    """A socket whose app accepts, then records every text it receives (and says so)."""
    texts: list[str] = []
    got = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert PlaySocket.of(scope) is not None and scope["client"] == ("127.0.0.5", 4000)
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        while (message := await receive())["type"] == "websocket.receive":
            texts.append(message["text"])
            got.set()

    sock = play_socket(app, 4096, None, None)(config=None, server_state=ServerState(), app_state={})
    transport = Transport()
    sock.connection_made(transport)
    key = base64.b64encode(os.urandom(16))
    sock.data_received(
        b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: " + key + b"\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    async with asyncio.timeout(PATIENCE_S):
        while b"\r\n\r\n" not in transport.written:
            await asyncio.sleep(0)
    head, _, rest = bytes(transport.written).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101") and b"server: test" in head.lower()
    transport.written = bytearray(rest)
    return sock, transport, texts, got


async def _texts_until(texts: list[str], got: asyncio.Event, count: int) -> list[str]:
    async with asyncio.timeout(PATIENCE_S):
        while len(texts) < count:
            got.clear()
            await got.wait()
    return texts


async def _timed_writes() -> None:
    sock, transport, _, _ = await _open()
    answered = asyncio.Event()
    transport.writes = 0
    sock.write_text_timed(b'{"type": "ping"}', answered.set)
    assert transport.writes == 1  # one write: one segment, so both arrive together
    [(ping, payload), (text, body)] = _frames(bytes(transport.written))
    assert ping == 0x9 and len(payload) == 4  # a ping frame, its payload to match
    assert (text, body) == (0x1, b'{"type": "ping"}')
    sock.data_received(masked(0xA, b"????"))  # a pong to nothing asked: ignored
    await asyncio.sleep(0)
    assert not answered.is_set()
    sock.data_received(masked(0xA, payload))
    await asyncio.wait_for(answered.wait(), PATIENCE_S)
    # A connection that ends first: never answered, nothing written after.
    late = asyncio.Event()
    sock.write_text_timed(b"{}", late.set)
    sock.connection_lost(None)
    written = len(transport.written)
    sock.write_text_timed(b"{}", late.set)
    await asyncio.sleep(0)
    assert not late.is_set() and len(transport.written) == written


def test_a_message_goes_with_a_ping_frame_in_one_write_and_its_pong_is_told() -> None:
    asyncio.run(_timed_writes())


async def _cut() -> None:
    sock, transport, texts, got = await _open()
    one, two = masked(0x1, b'{"n": 1}'), masked(0x1, b'{"n": 2}' + b" " * 200)
    both = one + two  # two frames, the second with a 16-bit length, fed in pieces
    for at in range(0, len(both), 5):
        sock.data_received(both[at : at + 5])
    assert await _texts_until(texts, got, 2) == ['{"n": 1}', '{"n": 2}' + " " * 200]
    # A ping (websockets answers it from now on) between two texts, in one read.
    sock.data_received(masked(0x1, b"3") + masked(0x9, b"hi") + masked(0x1, b"4"))
    assert (await _texts_until(texts, got, 4))[2:] == ["3", "4"]
    assert (0xA, b"hi") in _frames(bytes(transport.written))
    sock.data_received(masked(0x1, b"x" * 5000))  # over the 4096 bytes given: 1009
    closes = [data for opcode, data in _frames(bytes(transport.written)) if opcode == 0x8]
    assert [data[:2] for data in closes] == [(1009).to_bytes(2, "big")]  # too big


def test_frames_are_cut_whole_however_they_arrive_and_the_rest_goes_to_websockets() -> None:
    asyncio.run(_cut())
