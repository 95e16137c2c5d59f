"""A virtual-time driver for the sans-I/O table: no sockets, no clock, no sleeping."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from nertz.engine import Rules
from nertz.server.protocol import ClientMessage, decode_client
from nertz.server.table.commands import Command, Connect, Disconnect, Inbound, Join, Out, Wake
from nertz.server.table.records import Record
from nertz.server.table.settings import Settings
from nertz.server.table.table import Table


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Harness:
    """Drives one ``Table`` in virtual time and keeps every byte each connection got."""

    def __init__(self, rules: Rules, settings: Settings, table: Table | None = None) -> None:
        self.table = table or Table("TEST", rules, settings)
        self.now = 0
        self.wire: dict[int, list[bytes]] = {}
        self.closed: dict[int, str] = {}
        self.records: list[Record] = []
        self.replies: list[Any] = []

    def do(self, command: Command) -> Out:
        out = self.table.handle(command, self.now)
        for conn, body in out.sends:
            self.wire.setdefault(conn, []).append(body)
        for conn, body, _ in out.pings:  # the ping frame that goes with it: not kept
            self.wire.setdefault(conn, []).append(body)
        for conn, why in out.closes:
            self.closed[conn] = why
        self.records += out.records
        self.replies.append(out.reply)
        return out

    def join(
        self, name: str, token: str, seat: int | None = None, partner: int | None = None
    ) -> Any:
        return self.do(Join(name, token_hash(token), seat, partner)).reply

    def connect(
        self, conn: int, token: str | None, last_version: int = -1, epoch: str | None = None
    ) -> None:
        """Open a connection; resuming at ``last_version`` names the table's ``epoch``."""
        hashed = token_hash(token) if token else None
        self.do(Connect(conn, hashed, last_version, epoch=epoch))

    def send(self, conn: int, message: ClientMessage | dict[str, Any] | str) -> None:
        if isinstance(message, dict):
            message = json.dumps(message)
        if isinstance(message, str):
            decoded = decode_client(message)
            assert not hasattr(decoded, "code"), decoded
            message = decoded  # type: ignore[assignment]
        self.do(Inbound(conn, message))  # type: ignore[arg-type]

    def drop(self, conn: int) -> None:
        self.do(Disconnect(conn))

    def messages(self, conn: int) -> list[dict[str, Any]]:
        return [json.loads(b) for b in self.wire.get(conn, [])]

    def last(self, conn: int) -> dict[str, Any]:
        """The last message sent to ``conn`` but the clock's pings, which come on their
        own schedule (fair races, R16) between a play's answer and the test reading it."""
        for body in reversed(self.wire[conn]):
            message: dict[str, Any] = json.loads(body)
            if message["type"] != "ping":
                return message
        raise AssertionError(f"nothing but pings was sent to connection {conn}")

    def advance(self, ms: int) -> None:
        """Let ``ms`` of virtual time pass, waking the table at each deadline."""
        self.run_until(lambda: False, ms)

    def run_until(self, done: Callable[[], bool], max_ms: int = 3_600_000) -> bool:
        end = self.now + max_ms
        while not done():
            due = self.table.next_deadline()
            if due is None or due > end:
                self.now = end
                return done()
            self.now = max(self.now, due)
            self.do(Wake())
        return True
