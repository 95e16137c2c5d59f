"""The line at the door: while the event loop is behind, new requests wait unread.

asyncio runs every callback that is ready in one round and only then looks at its
sockets again, and a play takes a few rounds (its frame read, the table's actor, the
commit, the acknowledgement). When many requests come at once — each allowed by its
address's quotas, each a fraction of a millisecond to a few milliseconds — the rounds
grow long and every play waits for each round it passes through: in
``bench/abuse.py``'s first second most plays waited 10-50 ms. The tables' plays
cannot wait; a request can wait a few milliseconds.

``DoorLine`` times a short timer (``TICK_S``): when it fires late by more than
``BEHIND_S`` the loop is behind. While it is, or while anyone waits, a connection that
begins a new request is not read (``pause_reading``: its bytes wait in the kernel,
which costs the server nothing) and waits in line. Each tick lets a few connections in
(``WHILE_BEHIND`` while behind, ``CAUGHT_UP`` once caught up), one address at a time in
turn, so an address with many connections waiting does not hold up one with a single
request. The line always moves, and each connection is in it at most once, so it is
never longer than the connections open.

The timer runs only while requests come: it stops once nobody is in line and no
request has begun for ``IDLE_S``, and starts again with the next request.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable

__all__ = ["BEHIND_S", "CAUGHT_UP", "TICK_S", "WHILE_BEHIND", "DoorLine"]

TICK_S = 0.002
"""How often the loop's lateness is looked at and the line moved."""
BEHIND_S = 0.002
"""A tick this much later than due means the loop is behind."""
WHILE_BEHIND = 1
"""Connections let in a tick while the loop is behind: the line always moves."""
CAUGHT_UP = 2
"""Connections let in a tick once the loop has caught up. More let a volley of
costly requests make the next rounds long again (docs/performance.md)."""
IDLE_S = 1.0
"""With nobody in line and no request begun this long, the timer stops."""


class DoorLine:
    """Connections waiting to be read while the event loop is behind, by address."""

    def __init__(self) -> None:
        self.behind = False
        """The last tick came late: the loop's rounds are long."""
        self.by_address: collections.OrderedDict[str, collections.deque[Callable[[], None]]]
        self.by_address = collections.OrderedDict()
        self.waiting = 0
        """Connections in line now."""
        self.waited = 0
        """Connections that have waited in line, ever."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._due = 0.0
        self._asked = 0.0
        """When a request last began (``waits``), on the loop's clock."""

    def waits(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Whether a request beginning now must wait its turn (the loop is behind, or
        others wait before it). Starts the timer if it is not running."""
        self._asked = loop.time()
        if self._timer is None:
            self._loop = loop
            self._schedule(self._asked)
            return bool(self.waiting)
        return self.behind or bool(self.waiting)

    def wait(self, address: str, go_on: Callable[[], None]) -> None:
        """Put a connection of ``address`` in line; ``go_on()`` is called at its turn
        (a connection that closed meanwhile lets its turn pass)."""
        line = self.by_address.get(address)
        if line is None:
            line = self.by_address[address] = collections.deque()
        line.append(go_on)
        self.waiting += 1
        self.waited += 1

    def tick(self) -> None:
        """Time the loop; let the next connections in, one address after another."""
        assert self._loop is not None
        now = self._loop.time()
        self.behind = now - self._due > BEHIND_S
        try:
            for _ in range(WHILE_BEHIND if self.behind else CAUGHT_UP):
                if not self.by_address:
                    break
                address, line = next(iter(self.by_address.items()))
                go_on = line.popleft()
                self.waiting -= 1
                if line:
                    self.by_address.move_to_end(address)  # its next turn after the others'
                else:
                    del self.by_address[address]
                go_on()
        finally:
            # A connection's turn that went wrong (a bug, which asyncio logs) must not
            # stop the line: every later request would wait for good.
            if not self.waiting and now - self._asked > IDLE_S:
                self._timer, self.behind = None, False
            else:
                self._schedule(now)

    def _schedule(self, now: float) -> None:
        assert self._loop is not None
        self._due = now + TICK_S
        self._timer = self._loop.call_at(self._due, self.tick)

    @property
    def ticking(self) -> bool:
        """Whether its timer runs (it stops when requests stop coming)."""
        return self._timer is not None

    def stop(self) -> None:
        """Stop the timer (the server is shutting down)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
