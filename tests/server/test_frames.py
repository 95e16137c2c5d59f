"""The server's own reading of a player's frames (``frames.FrameCutter``): whole
text frames cut from the bytes however they arrive, answered in order, and anything
else (a ping here) handed to websockets with what follows, which answers it as ever."""

from __future__ import annotations

import json
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.frames import Frame

from nertz.server.http.app import Config

from ..live_server import free_port, running
from .conftest import SPEED
from .raw_socket import handshake, masked, seat_ann


@pytest.fixture(params=["uvloop", "asyncio"])
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    config = Config(db=str(tmp_path / "frames.db"), port=free_port(), speed=SPEED)
    with running(config, loop=request.param) as port:
        yield port


def _play(seq: int, pad: int = 0) -> bytes:
    return masked(0x1, json.dumps({"type": "play", "seq": seq, "move": "T"}).encode() + b" " * pad)


class Raw:
    """A WebSocket client on a bare socket: it writes exactly the bytes a test gives."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.settimeout(10)
        self.buffer = handshake(self.sock, port)
        self.pongs: list[bytes] = []
        self.closed_with: int | None = None

    def send(self, message: dict[str, Any]) -> None:
        self.sock.sendall(masked(0x1, json.dumps(message).encode()))

    def recv(self) -> dict[str, Any]:
        """The next text message (pongs on the way are kept in ``pongs``)."""
        while True:
            while True:  # a whole frame in the buffer?
                if len(self.buffer) >= 2:
                    size, start = self.buffer[1] & 0x7F, 2
                    if size == 126:
                        size, start = struct.unpack("!H", self.buffer[2:4])[0], 4
                    elif size == 127:
                        size, start = struct.unpack("!Q", self.buffer[2:10])[0], 10
                    if len(self.buffer) >= start + size:
                        break
                more = self.sock.recv(65536)
                assert more, "the server closed the connection"
                self.buffer += more
            opcode, data = self.buffer[0] & 0x0F, self.buffer[start : start + size]
            self.buffer = self.buffer[start + size :]
            if opcode == 0xA:
                self.pongs.append(data)
            elif opcode == 0x8:
                self.closed_with = struct.unpack("!H", data[:2])[0]
                return {"type": "closed"}
            elif opcode == 0x1:
                return json.loads(data)  # type: ignore[no-any-return]

    def answer(self) -> int:
        """The seq of the next play's answer."""
        while True:
            message = self.recv()
            if message["type"] in ("ack", "refused"):
                return message["seq"]  # type: ignore[no-any-return]


def _dealt(port: int) -> Raw:
    """Ann at a table with a bot, on a bare socket, dealt."""
    code, token = seat_ann(port)
    ann = Raw(port)
    ann.send({"type": "hello", "table": code, "token": token})
    ann.send({"type": "ready"})
    while (dealt := ann.recv())["type"] != "event" or dealt["e"]["k"] != "dealt":
        pass
    return ann


@pytest.mark.parametrize(
    "frame",
    [
        masked(0x1, b"\xff\xfe not UTF-8"),  # websockets closes: 1007, invalid data
        masked(0x1, b" " * 70_000),  # over the frame limit (64 KiB): 1009, too big
    ],
    ids=["not UTF-8", "too big"],
)
def test_a_frame_the_server_does_not_read_itself_ends_the_connection_as_before(
    port: int, frame: bytes
) -> None:
    """Frames the server's own reader does not take go to websockets, which closes the
    connection as it always did, and the play sent after it is never answered."""
    ann = _dealt(port)
    ann.sock.sendall(_play(1))
    assert ann.answer() == 1  # read by the server's own reader
    ann.sock.sendall(frame + _play(2))
    seqs = []
    try:
        while (message := ann.recv())["type"] != "closed":
            seqs += [message["seq"]] if message["type"] in ("ack", "refused") else []
    except (ConnectionResetError, AssertionError):  # closed, with unread bytes: a reset
        pass
    assert seqs == []
    assert ann.closed_with in (None, 1007, 1009)
    ann.sock.close()


def test_frames_are_read_whole_however_they_arrive_and_a_ping_still_gets_its_pong(
    port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[Any] = []  # the frames websockets' own parser read
    real = Frame.parse.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Frame], *args: Any, **kwargs: Any) -> Any:
        frame = yield from real(cls, *args, **kwargs)
        parsed.append(frame.opcode.name)
        return frame

    monkeypatch.setattr(Frame, "parse", classmethod(counting))
    ann = _dealt(port)
    before = list(parsed)

    ann.sock.sendall(_play(1) + _play(2))  # two frames in one write
    assert [ann.answer(), ann.answer()] == [1, 2]
    three = _play(3)
    for piece in (three[:1], three[1:7], three[7:20], three[20:]):  # a byte at a time, nearly
        ann.sock.sendall(piece)
        time.sleep(0.05)
    assert ann.answer() == 3
    ann.sock.sendall(_play(4, pad=200))  # a 16-bit length
    assert ann.answer() == 4
    assert parsed == before, "whole text frames went through websockets' parser"

    # A ping between two plays, in one write: a pong, and both plays answered in order.
    ann.sock.sendall(_play(5) + masked(0x9, b"are you there") + _play(6))
    assert [ann.answer(), ann.answer()] == [5, 6]
    assert ann.pongs == [b"are you there"]
    assert parsed[len(before) :] == ["PING", "TEXT"]  # websockets' again, from the ping on
    ann.sock.sendall(_play(7))
    assert ann.answer() == 7
    ann.sock.close()
