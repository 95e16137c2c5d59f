"""A WebSocket client's bytes written by hand, for tests that need exactly those bytes
on the wire (a frame in pieces, a receive buffer never read): the opening handshake
and masked client frames (RFC 6455), and a seat at a table to use them on."""

from __future__ import annotations

import base64
import os
import socket
import struct

import httpx


def masked(opcode: int, data: bytes) -> bytes:
    """One masked client frame with FIN (RFC 6455, 5.2), in each length encoding."""
    mask = os.urandom(4)
    if len(data) < 126:
        head = bytes([0x80 | opcode, 0x80 | len(data)])
    elif len(data) < 65536:
        head = bytes([0x80 | opcode, 0x80 | 126]) + struct.pack("!H", len(data))
    else:
        head = bytes([0x80 | opcode, 0x80 | 127]) + struct.pack("!Q", len(data))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def handshake(sock: socket.socket, port: int) -> bytes:
    """Open a WebSocket on the connected ``sock`` (``/ws``); returns what came after
    the server's ``101`` answer."""
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    got = b""
    while b"\r\n\r\n" not in got:
        more = sock.recv(4096)
        assert more, "the server closed the connection during the handshake"
        got += more
    head, _, rest = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101"), head
    return rest


def seat_ann(port: int) -> tuple[str, str]:
    """A two-seat table with a bot in seat 1 and Ann joined: its code and her token."""
    http = f"http://127.0.0.1:{port}"
    table = httpx.post(f"{http}/api/tables", json={"seats": 2, "bots": {"1": "demon"}}).json()
    token = httpx.post(f"{http}/api/tables/{table['code']}/join", json={"name": "Ann"}).json()
    return table["code"], token["token"]
