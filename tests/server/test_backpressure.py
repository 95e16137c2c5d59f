"""Back-pressure (docs/server.md, "Back-pressure"): a client that never reads is cut off,
and a player at the same table at the same time plays on unaffected (a real server: the
kernel's buffers are the point)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from nertz.server.http.app import Config
from nertz.server.wire import connection, frames, wsprotocol

from ..live_server import free_port, running
from .conftest import SPEED, Live
from .raw_socket import handshake, masked, seat_ann
from .test_app import Client
from .test_limits import metrics


@pytest.fixture(params=["uvloop", "asyncio"])
def port(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[int]:
    """The server on either event loop (uvloop's transports are another class)."""
    monkeypatch.setattr(connection, "BEHIND_S", 2.0)  # the limit is 10 s; the test need not wait
    config = Config(db=str(tmp_path / "bp.db"), port=free_port(), speed=SPEED)
    with running(config, loop=request.param) as port:
        yield port


def _text(text: str) -> bytes:
    return masked(0x1, text.encode())


def _play(me: Client, seq: int) -> dict[str, Any]:
    """Turn the stock (or be told why not): every play gets an answer."""
    me.send({"type": "play", "seq": seq, "move": "T"})
    return me.until(lambda m: m["type"] in ("ack", "refused") and m["seq"] == seq)


def _never_reading(port: int) -> socket.socket:
    """A WebSocket from 127.0.0.2 whose receive buffer is tiny and is never read after
    the handshake."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind(("127.0.0.2", 0))
    sock.connect(("127.0.0.1", port))
    handshake(sock, port)
    return sock


def test_a_client_that_never_reads_is_cut_off_and_a_player_beside_it_plays_on(port: int) -> None:
    http = f"http://127.0.0.1:{port}"
    bots = {str(n): "demon" for n in range(1, 8)}
    table = httpx.post(f"{http}/api/tables", json={"seats": 8, "bots": bots}).json()
    token = httpx.post(f"{http}/api/tables/{table['code']}/join", json={"name": "Ann"}).json()
    ann = Client(f"ws://127.0.0.1:{port}/ws")
    ann.send({"type": "hello", "table": table["code"], "token": token["token"]})
    ann.send({"type": "ready"})
    ann.until(lambda m: m["type"] == "event" and m["e"]["k"] == "dealt")

    hog = _never_reading(port)
    hog.sendall(_text(json.dumps({"type": "hello", "table": table["code"]})))
    started, cut_at, seq, slowest = time.monotonic(), None, 0, 0.0
    while time.monotonic() - started < 40:
        try:  # full states, as many as its quota allows, never read
            hog.sendall(_text('{"type": "resync"}'))
        except OSError:
            cut_at = time.monotonic() - started
            break
        seq += 1
        asked = time.monotonic()
        answer = _play(ann, seq)  # Ann, at the same table, at the same time
        slowest = max(slowest, time.monotonic() - asked)
        assert answer["type"] in ("ack", "refused"), answer
        time.sleep(0.25)
    hog.close()
    assert cut_at is not None, "a client that never reads was never cut off"
    assert seq >= 5 and slowest < 2.0
    live = Live(http, f"ws://127.0.0.1:{port}/ws", port)
    assert (
        metrics(live)["nertz_closes_total{reason=too slow}"] >= 1
    )  # cut off for not reading, not for asking
    # After it: Ann is still connected and still playing.
    for more in range(seq + 1, seq + 4):
        assert _play(ann, more)["type"] in ("ack", "refused")
    ann.close()


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 70000])
def test_a_message_written_directly_is_the_frame_websockets_would_write(size: int) -> None:
    """The send path's own framing (``frames.text_frame``) is byte for byte the text
    frame of websockets, for each length encoding (7-bit, 16-bit, 64-bit)."""
    from websockets.frames import Frame, Opcode

    body = ("é" * size).encode()[:size].replace(b"\xc3", b"a")  # valid UTF-8, any length
    expected = Frame(Opcode.TEXT, body).serialize(mask=False)
    assert frames.text_frame(body) == expected


def _dealt_to_ann(port: int) -> tuple[Client, dict[str, Any], str]:
    """Ann at a table with a bot, connected, ready and dealt: her client, the state she
    was first sent and the table's code."""
    code, token = seat_ann(port)
    ann = Client(f"ws://127.0.0.1:{port}/ws")
    ann.send({"type": "hello", "table": code, "token": token})
    state = ann.until(lambda m: m["type"] == "state")
    ann.send({"type": "ready"})
    ann.until(lambda m: m["type"] == "event" and m["e"]["k"] == "dealt")
    return ann, state, code


def test_the_table_writes_its_messages_directly_and_they_arrive_whole(
    port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the server's own WebSocket protocol, a table's messages go out as frames
    built by it (``frames.text_frame``), and a player reads them as usual: the state,
    its plays' answers, every event."""
    written = []
    real = frames.text_frame

    def counting(body: bytes) -> bytes:
        written.append(len(body))
        return real(body)

    monkeypatch.setattr(wsprotocol, "text_frame", counting)
    ann, state, code = _dealt_to_ann(port)
    for seq in (1, 2, 3):
        assert _play(ann, seq)["type"] in ("ack", "refused")
    ann.close()
    assert state["table"]["code"] == code
    assert len(written) >= 6 and max(written) > 125  # states need the longer lengths


def test_a_player_at_the_table_is_read_straight_to_it_and_fragments_still_arrive(
    port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After its hello, a connection's messages go to the table as they are read
    (``Connection.take_text``), not through the ASGI queue; a message sent in fragments
    goes back to the queue, and it and the messages after it are answered in order."""
    queued: list[dict[str, Any]] = []
    real = wsprotocol.PlaySocket._queue

    def counting(self: wsprotocol.PlaySocket, message: dict[str, Any]) -> None:
        queued.append(message)
        real(self, message)

    monkeypatch.setattr(wsprotocol.PlaySocket, "_queue", counting)
    ann, _, _ = _dealt_to_ann(port)
    before = len(queued)
    for seq in (1, 2, 3):
        assert _play(ann, seq)["type"] in ("ack", "refused")
    assert len(queued) == before  # straight to the table
    ann.ws.send(['{"type": "play", ', '"seq": 4, "move": "T"}'])  # two fragments
    ann.send({"type": "play", "seq": 5, "move": "T"})
    ann.until(lambda m: m["type"] in ("ack", "refused") and m["seq"] == 5)
    answers = [m["seq"] for m in ann.got if m["type"] in ("ack", "refused")]
    assert answers[-2:] == [4, 5] and len(queued) == before + 2  # through the queue again
    ann.close()
