"""WebSocket frames (RFC 6455, 5.2) the server writes and reads itself, for the messages
of its play socket (``wsprotocol.PlaySocket``).

Written: every text message is one unmasked text frame (``text_frame``), built here
rather than by a frame object per message. Read: the frames a client sends most (whole,
unfragmented, masked text frames, and the pongs to the server's pings) are cut from the
bytes as they arrive (``FrameCutter``), rather than by websockets' parser, a chain of
generators per frame (a tenth of the event loop at 525 tables, docs/performance.md).
Anything else (a ping, a close, a fragment, binary data, a payload that is not UTF-8 or
too long) is handed back with everything after it, from a frame's first byte: the play
socket gives it to websockets' Sans-I/O ``ServerProtocol`` (its public
``receive_data``) for good, which answers pings, closes and refuses what is wrong, as it
always did. This module depends on no library."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["FrameCutter", "text_frame", "unmask"]

_TEXT = 0x81
"""The first byte of a whole text frame: FIN, no reserved bit, opcode 1."""
_PONG = 0x8A
"""The first byte of a pong: FIN, opcode 10."""
_MASKED = 0x80


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


def unmask(payload: bytes, mask: bytes) -> bytes:
    """``payload`` XOR the 4-byte ``mask`` repeated (RFC 6455, 5.3), as one integer
    operation: about a microsecond for a play's 40-200 bytes."""
    size = len(payload)
    key = (mask * (size // 4 + 1))[:size]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(key, "little")).to_bytes(
        size, "little"
    )


class FrameCutter:
    """Whole text frames and pongs cut from a client's bytes (sans-I/O).

    ``feed(data)`` hands each whole, unfragmented, masked text frame's text to
    ``on_text`` and each pong's payload to ``on_pong``, in order, keeps the start of a
    frame not all here yet, and returns None; at the first frame that is neither (or
    is longer than ``max_size``, or not UTF-8) it stops and returns the bytes from that
    frame's first byte on, which are then someone else's (websockets'), with all that
    follows: the cutter is not fed again."""

    __slots__ = ("max_size", "on_pong", "on_text", "rest")

    def __init__(
        self,
        max_size: int | None,
        on_text: Callable[[str], None],
        on_pong: Callable[[bytes], None],
    ) -> None:
        self.max_size = max_size
        self.on_text, self.on_pong = on_text, on_pong
        self.rest = b""
        """The start of a frame not all here yet."""

    def feed(self, data: bytes) -> bytes | None:
        if self.rest:
            data, self.rest = self.rest + data, b""
        end, at = len(data), 0
        max_size = self.max_size
        while True:
            if end - at < 6:  # a client's frame: two bytes, four of mask, the payload
                self.rest = data[at:]
                return None
            head, head2 = data[at], data[at + 1]
            if not head2 & _MASKED:
                return data[at:]
            size, start = head2 & 0x7F, at + 6
            if head == _PONG:
                if size > 125:  # a control frame's payload is at most 125 bytes
                    return data[at:]
            elif head != _TEXT:
                return data[at:]
            elif size == 126:
                start = at + 8
                if end < start:
                    self.rest = data[at:]
                    return None
                size = int.from_bytes(data[at + 2 : at + 4], "big")
            elif size == 127:  # 64 KiB or more: far past what a client may send
                return data[at:]
            if max_size is not None and size > max_size:
                return data[at:]
            stop = start + size
            if stop > end:
                self.rest = data[at:]
                return None
            payload = unmask(data[start:stop], data[start - 4 : start])
            if head == _PONG:
                at = stop
                self.on_pong(payload)
                continue
            try:
                text = payload.decode()
            except UnicodeDecodeError:
                return data[at:]
            at = stop
            self.on_text(text)
