"""A WebSocket client on asyncio's ``Protocol``: the benchmarks' instrument, made light.

The benchmarks' thousands of clients share the server's two cores, so what a client
spends per message is taken from the server being measured. This one does the least
RFC 6455 asks of a client: the opening handshake, masked text frames out, unmasked
frames in, a pong for each ping and a close. Each text message read is handed, as
bytes, to a callback as soon as it is read (no queue, no task, no parser of generators);
nothing is compressed, and a message from the server in fragments is refused (no
server here sends one).
"""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import Callable

from websockets.speedups import apply_mask

__all__ = ["Closed", "RawWebSocket", "connect"]


class Closed(Exception):
    """The connection ended (or never opened)."""


class RawWebSocket(asyncio.Protocol):
    """One client connection; ``on_text`` gets each text message's bytes."""

    def __init__(
        self,
        host: str,
        path: str,
        on_text: Callable[[bytes], None],
        headers: dict[str, str] | None = None,
    ) -> None:
        extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
        self.request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
            f"Sec-WebSocket-Version: 13\r\n{extra}\r\n"
        ).encode()
        self.on_text = on_text
        self.mask = os.urandom(4)  # one per connection: the server only unmasks
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.error: str | None = None

    # ------------------------------------------------------------------ asyncio

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        transport.write(self.request)  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        data = self.buffer + data if self.buffer else data
        if not self.opened.done():
            head, found, data = data.partition(b"\r\n\r\n")
            if not found:
                self.buffer = head
                return
            if not head.startswith(b"HTTP/1.1 101"):
                self._fail(f"handshake refused: {head.splitlines()[0]!r}")
                return
            self.opened.set_result(None)
        end, at = len(data), 0
        while end - at >= 2:
            head1, size, start = data[at], data[at + 1] & 0x7F, at + 2
            opcode = head1 & 0x0F
            if size == 126:
                start = at + 4
                size = int.from_bytes(data[at + 2 : at + 4], "big")
            elif size == 127:
                start = at + 10
                size = int.from_bytes(data[at + 2 : at + 10], "big")
            if start + size > end:
                break
            payload, at = data[start : start + size], start + size
            if not head1 & 0x80:
                self._fail("a message in fragments")
                return
            if opcode == 0x1:
                self.on_text(payload)
            elif opcode == 0x9:  # ping: pong, as RFC 6455 5.5.2 asks
                self._write(0xA, payload)
            elif opcode == 0x8:
                self._fail("closed by the server")
                return
            else:
                self._fail(f"unexpected frame, opcode {opcode}")
                return
        self.buffer = data[at:]

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(f"connection lost: {exc!r}" if exc else "connection closed")

    # ------------------------------------------------------------------ ours

    def send(self, text: str) -> None:
        """Send a text message (on a closed connection: nothing)."""
        if not self.closed.done():
            self._write(0x1, text.encode())

    def close(self) -> None:
        if self.transport is not None:
            if not self.closed.done():
                self._write(0x8, b"\x03\xe8")  # 1000: a normal close
            self.transport.close()
        self._fail(None)

    def _write(self, opcode: int, data: bytes) -> None:
        size = len(data)
        if size < 126:
            head = bytes((0x80 | opcode, 0x80 | size))
        elif size < 65536:
            head = bytes((0x80 | opcode, 0xFE)) + size.to_bytes(2, "big")
        else:
            head = bytes((0x80 | opcode, 0xFF)) + size.to_bytes(8, "big")
        assert self.transport is not None
        self.transport.write(head + self.mask + apply_mask(data, self.mask))

    def _fail(self, error: str | None) -> None:
        """The connection is over: ``error`` says why (None: our own close)."""
        if self.closed.done():
            return
        self.error = error
        if not self.opened.done():
            self.opened.set_exception(Closed(error or "closed"))
        self.closed.set_result(None)


async def connect(
    url: str,
    on_text: Callable[[bytes], None],
    address: str = "127.0.0.1",
    timeout: float = 30,
    headers: dict[str, str] | None = None,
    to: tuple[str, int] | None = None,
) -> RawWebSocket:
    """Open ``url`` (``ws://host:port/path``) from ``address``, with ``headers`` besides
    the handshake's own, on a connection to ``to`` (host, port) if given, else to the
    URL's (a rebound name: the URL's ``Host``, another machine's socket); raises
    ``Closed`` (or ``TimeoutError``) when it cannot."""
    rest = url.removeprefix("ws://")
    hostport, _, path = rest.partition("/")
    host, _, port = hostport.partition(":")
    if to is not None:
        host, port = to[0], str(to[1])
    loop = asyncio.get_running_loop()
    ws = RawWebSocket(hostport, "/" + path, on_text, headers)
    async with asyncio.timeout(timeout):
        await loop.create_connection(lambda: ws, host, int(port or 80), local_addr=(address, 0))
        await ws.opened
    return ws
