"""WebSocket frames (RFC 6455, 5.2) the server writes and reads itself, on uvicorn's
sans-I/O protocol, for the messages of a connection at its table.

Written: every message a table sends is one unmasked text frame (``text_frame``), built
here rather than by a frame object per message. Read: once a connection is at its table,
each whole, unfragmented, masked text frame is cut from the bytes as they arrive and its
text handed on (``read_text_frames``), rather than through websockets' parser, a chain of
generators per frame (a tenth of the event loop at 525 tables, docs/performance.md).
Anything else (a control frame, a fragment, binary data, a payload that is not UTF-8 or
too long) goes to websockets with everything after it, from then on: it answers pings,
closes and refuses what is wrong, as it always did."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    from websockets.speedups import apply_mask  # C, as websockets itself uses
except ImportError:  # pragma: no cover - a platform without websockets' extension
    from websockets.utils import apply_mask
from websockets.streams import StreamReader

__all__ = ["read_text_frames", "text_frame"]

_TEXT = 0x81
"""The first byte of a whole text frame: FIN, no reserved bit, opcode 1."""
_MASKED = 0x80
_WAITING = StreamReader.at_eof.__code__
"""Where websockets' parser waits between frames when it holds no byte of the next."""


def text_frame(body: bytes) -> bytes:
    """``body`` (UTF-8 text) as one unmasked, unfragmented text frame: what websockets
    would write for it, without per-message extensions (the server turns
    permessage-deflate off)."""
    size = len(body)
    if size < 126:
        return bytes((_TEXT, size)) + body
    if size < 65536:
        return b"\x81\x7e" + size.to_bytes(2, "big") + body
    return b"\x81\x7f" + size.to_bytes(8, "big") + body


def read_text_frames(proto: Any, handle: Callable[[str], None]) -> bool:
    """Read the whole text frames that reach ``proto`` (uvicorn's
    ``WebSocketsSansIOProtocol``) here from now on, handing each one's text to ``handle``
    in order, until a frame comes that is not one (see the module's docstring), which
    with all that follows goes to websockets for good. Only while websockets' parser is
    between frames, holding no byte (so nothing is read twice or skipped); False (and
    nothing changes) otherwise."""
    conn = proto.conn
    waiting = conn.parser  # the generator it waits in, innermost
    while waiting.gi_yieldfrom is not None:
        waiting = waiting.gi_yieldfrom
    if conn.reader.buffer or conn.current_size is not None or waiting.gi_code is not _WAITING:
        return False
    max_size = conn.max_message_size
    rest = b""  # the start of a frame not all here yet

    def receive_data(data: bytes) -> None:
        nonlocal rest
        if rest:
            data, rest = rest + data, b""
        end, at = len(data), 0
        while True:
            if end - at < 6:  # a client's frame: two bytes, four of mask, the payload
                rest = data[at:]
                return
            head2 = data[at + 1]
            if data[at] != _TEXT or not head2 & _MASKED:
                break
            size, start = head2 & 0x7F, at + 6
            if size == 126:
                start = at + 8
                if end < start:
                    rest = data[at:]
                    return
                size = int.from_bytes(data[at + 2 : at + 4], "big")
            elif size == 127:  # 64 KiB or more: far past what a client may send
                break
            if max_size is not None and size > max_size:
                break
            stop = start + size
            if stop > end:
                rest = data[at:]
                return
            try:
                text = apply_mask(data[start:stop], data[start - 4 : start]).decode()
            except UnicodeDecodeError:
                break
            at = stop
            handle(text)
        del conn.receive_data  # websockets again, from this frame on
        conn.receive_data(data[at:])

    # uvicorn hands what it reads to websockets' ``receive_data`` and then handles the
    # events parsed: here, that is none until a frame is not one of these. (Not the
    # protocol's ``data_received``: uvloop's transport keeps that method from the start.)
    conn.receive_data = receive_data
    return True
