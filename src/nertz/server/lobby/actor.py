"""The table actor: one per table owns its ``Table`` (STYLE.md).

Every input is a message on the actor's queue, handled one at a time and stamped
with the table's monotonic clock on arrival: people's messages, connections opening
and closing, and the table's own timer (``Wake``), which drives the countdown, the
landing window, the settle and idle checks and the bots' actions. Bots therefore
reach the hand through the same queue and the same ``Table`` path as people. The
queue is drained by a callback of the event loop, scheduled when an input finds the
actor idle; while a failed table is rebuilt, inputs wait on it.

Output goes to per-connection outboxes (the actor never waits for a socket) and to the
store (the actor never waits for the disk). A command's messages wait for the group
commit that holds its records: an acknowledgement, and every event, goes out only once
what it reports is on disk; messages of later commands queue behind them, in order,
while the table goes on with its next command. An exception inside the table is logged
and the table is rebuilt from the store, which holds the records of every command that
completed (the failed command's never went out): it carries on from its last good state,
exactly as after a restart, and the server never goes down with it. (The actor keeps
no copy of the records: a journal in memory grew the heap the garbage collector scans.)
"""

from __future__ import annotations

import asyncio
import collections
import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from nertz.engine import Rules
from nertz.server.store.store import Store
from nertz.server.table.commands import Command, Out, Wake, WirePong
from nertz.server.table.records import Record
from nertz.server.table.settings import Settings
from nertz.server.table.table import Table, restore_from_records

__all__ = ["Clock", "Outbox", "Request", "TableActor"]

log = logging.getLogger("nertz.actor")


class Outbox(Protocol):
    """Where a connection's messages go: queued, never awaited by the actor."""

    def send(self, body: bytes) -> None: ...

    def send_timed(self, body: bytes, answered: Callable[[], None]) -> None:
        """``body`` and a WebSocket ping frame in one write; ``answered`` is called when
        the frame's pong comes back (never, on a transport without ping frames)."""
        ...

    def close(self, reason: str) -> None: ...


class Clock:
    """A table's monotonic clock in ms. ``speed`` > 1 runs table time faster than real
    time (test-only: bots, countdown and every rules timer speed up together)."""

    def __init__(self, speed: float = 1.0, start_ms: int = 0) -> None:
        self.speed = speed
        self._t0 = time.monotonic()
        self._start = start_ms
        self._per_s = 1000 * speed

    def now(self) -> int:
        return self._start + int((time.monotonic() - self._t0) * self._per_s)

    def seconds_until(self, at_ms: int) -> float:
        return max(0.0, (at_ms - self.now()) / 1000 / self.speed)


@dataclass(slots=True)
class _Held:
    """A command's output waiting for the commit of its records (or of an earlier one's)."""

    out: Out
    future: asyncio.Future[Any] | None = None
    committed: bool = False


@dataclass(slots=True)
class Request:
    """A command whose reply someone awaits (an HTTP join)."""

    command: Command
    future: asyncio.Future[Any]


class TableActor:
    """The task that owns one table."""

    def __init__(
        self,
        table_id: str,
        table: Table,
        store: Store | None,
        clock: Clock,
    ) -> None:
        self.id = table_id
        self.table = table
        self.store = store
        self.clock = clock
        self.outboxes: dict[int, Outbox] = {}
        self.queue: collections.deque[Command | Request] = collections.deque()
        """Inputs not handled yet, oldest first."""
        self.failures = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        """Set by ``start``: inputs queued before it wait for it."""
        self._kicked = False
        """A drain of the queue is scheduled."""
        self._rebuilding: asyncio.Task[None] | None = None
        self._stopped = False
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: int | None = None
        self._wake_queued = False
        self._held: collections.deque[_Held] = collections.deque()
        """Outputs waiting for their records' commit, oldest first (``_dispatch``)."""
        self.on_done: Callable[[], None] | None = None
        """Called once when the table is ``done`` and its last messages have gone out
        (the lobby then takes it out of memory)."""
        self._done_told = False

    # ------------------------------------------------------------------ outside API

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._schedule()
        self._kick()

    def submit(self, command: Command) -> None:
        """Queue a command (from a connection or a timer)."""
        self.queue.append(command)
        self._kick()

    async def request(self, command: Command) -> Any:
        """Queue a command and wait for the table's reply."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.queue.append(Request(command, future))
        self._kick()
        return await future

    async def stop(self) -> None:
        """Handle what is queued, then nothing more."""
        while self._rebuilding is not None:
            await self._rebuilding
        self._drain()
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()

    # ------------------------------------------------------------------ the loop

    def _kick(self) -> None:
        # A callback that drains the queue, not a task awaiting it: the table's inputs
        # are still handled one at a time and in order, without a task switch and a
        # future per command (asyncio.Queue's get and put were 8% of the event loop at
        # 450 tables).
        if not self._kicked and self._loop is not None and not self._stopped:
            self._kicked = True
            self._loop.call_soon(self._drain)

    def _drain(self) -> None:
        self._kicked = False
        if self._stopped or self._rebuilding is not None:  # ``_recover`` drains after it
            return
        queue = self.queue
        while queue:
            item = queue.popleft()
            future = None
            if type(item) is Request:
                future, command = item.future, item.command
            else:
                command = item  # type: ignore[assignment]
            if type(command) is Wake:
                self._wake_queued = False
            try:
                out = self.table.handle(command, self.clock.now())
            except Exception as error:
                log.exception("table %s failed on %r; rebuilding it", self.table.code, command)
                self.failures += 1
                self._rebuilding = asyncio.get_running_loop().create_task(
                    self._recover(error, future)
                )
                return
            self._dispatch(out, future)
        self._schedule()
        self._maybe_done()

    async def _recover(self, error: Exception, future: asyncio.Future[Any] | None) -> None:
        """Rebuild the table after ``error``; inputs that come meanwhile wait."""
        try:
            await self._rebuild()
            if future is not None and not future.done():
                future.set_exception(error)
        finally:
            self._rebuilding = None
        self._drain()

    def _dispatch(self, out: Out, future: asyncio.Future[Any] | None = None) -> None:
        """Send ``out`` (and reply to ``future``) once its records are committed, after
        every earlier output: no acknowledgement or event reports what a crash could
        still take back."""
        store = self.store
        if not out.records or store is None:
            if self._held:
                self._held.append(_Held(out, future, committed=True))
            else:
                self._deliver(out, future)
            return
        held = _Held(out, future)
        self._held.append(held)
        store.submit(self.id, out.records, functools.partial(self._committed, held))

    def _committed(self, held: _Held) -> None:
        held.committed = True
        queue = self._held
        while queue and queue[0].committed:
            first = queue.popleft()
            self._deliver(first.out, first.future)
        self._maybe_done()

    def _maybe_done(self) -> None:
        if self.table.done and not self._done_told and not self._held:
            self._done_told = True
            if self.on_done is not None:
                self.on_done()

    def _deliver(self, out: Out, future: asyncio.Future[Any] | None) -> None:
        if future is not None and not future.done():
            future.set_result(out.reply)
        outboxes = self.outboxes
        for conn, body in out.sends:
            box = outboxes.get(conn)
            if box is not None:
                box.send(body)
        for conn, body, t in out.pings:
            box = outboxes.get(conn)
            if box is not None:
                box.send_timed(body, functools.partial(self.submit, WirePong(conn, t)))
        for conn, reason in out.closes:
            box = outboxes.pop(conn, None)
            if box is not None:
                box.close(reason)

    async def _rebuild(self) -> None:
        """The table from the store: its last good state (every completed command).
        Commands that arrive meanwhile wait on the queue."""
        old = self.table
        store = self.store
        if store is None:
            log.error("table %s has no store to be rebuilt from; it stays as it was", old.code)
            return
        try:
            await asyncio.to_thread(store.flush)
            records = await asyncio.to_thread(store.records_of, self.id)
            table = restore_from_records(old.code, old.rules, old.settings, records, old.dealer)
        except Exception:
            log.exception("table %s could not be rebuilt; it stays as it was", old.code)
            return
        table.adopt(dict(old.conns))
        self.table = table
        self.clock = Clock(self.clock.speed, max(old.now, table.now) + 1)
        self._dispatch(table.take_out())

    def _schedule(self) -> None:
        """One timer per table, at its next deadline."""
        due = self.table.next_deadline()
        if due == self._timer_at:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timer_at = due
        if due is not None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.clock.seconds_until(due), self._wake)

    def _wake(self) -> None:
        self._timer = None
        self._timer_at = None
        if not self._wake_queued:
            self._wake_queued = True
            self.submit(Wake())


def restored_actor(
    table_id: str,
    code: str,
    rules: Rules,
    settings: Settings,
    records: list[Record],
    store: Store | None,
    speed: float,
) -> TableActor:
    """An actor for a table rebuilt from stored records (server restart)."""
    table = restore_from_records(code, rules, settings, records)
    actor = TableActor(table_id, table, store, Clock(speed, table.now + 1))
    actor._dispatch(table.take_out())
    return actor
