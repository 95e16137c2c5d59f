"""Answers that cost the server milliseconds, kept once made: asked for on and on they
took time from every table (issue 24).

* ``Listing``: ``GET /api/tables``, made again at most once a ``LISTING_S``, or at once
  when a table comes or goes;
* ``FinishedMatches``: ``GET /api/matches/{id}``, kept once made, up to
  ``FINISHED_BYTES``: a finished match never changes;
* ``Kept``: answers kept once made, the most recently asked, up to a number of bytes
  (``FinishedMatches``'s, and a match's notation, ``notation_api.py``);
* ``Makers``: where such answers are made, off the event loop: one making of each at a
  time, and a few at once in all (a new score sheet's checking and scoring too).

(The score sheets' answers are kept in ``web.py``, keyed by what is stored; the watch
secret and the QR code by ``invites.py``.)
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, Generic, TypeVar

import msgspec

from nertz.server.lobby.history import finished_match

__all__ = ["FINISHED_BYTES", "LISTING_S", "MAKERS", "FinishedMatches", "Kept", "Listing", "Makers"]

LISTING_S = 1.0
"""``GET /api/tables`` is made again at most this often (a table created or ended
makes it at once): a list a second old is what people browsing it see anyway."""
FINISHED_BYTES = 32 * 1024 * 1024
"""The finished matches' answers kept (``FinishedMatches``), in bytes."""


MAKERS = 2
"""Answers made at once, server-wide (``Makers``)."""


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")


class Makers:
    """Where answers that cost milliseconds of Python are made: on a worker thread, one
    making of each answer at a time (who asks for it meanwhile waits for that one, not
    a making of their own) and at most ``at_once`` in all. Each making holds the GIL
    most of its time, and every thread that wants it takes turns with the event loop:
    before this, six addresses asking for their new score sheets at 8 requests in
    flight made 48 at once, and honest plays waited 124 ms (docs/performance.md)."""

    def __init__(self, at_once: int = MAKERS) -> None:
        self.slots = asyncio.Semaphore(at_once)
        self.making: dict[Hashable, asyncio.Future[Any]] = {}

    async def make(self, key: Hashable, work: Callable[[], T]) -> T:
        """``work()``'s answer, made on a worker thread once for everyone asking for
        ``key`` while it is made. A caller that goes away leaves the making to the rest."""
        found = self.making.get(key)
        if found is None:
            found = self.making[key] = asyncio.ensure_future(self._made(key, work))
        answer: T = await asyncio.shield(found)
        return answer

    async def run(self, work: Callable[[], T]) -> T:
        """``work()`` on a worker thread in one of the same few slots, for costly Python
        nobody shares: a new or changed score sheet checked and scored. Seven addresses
        posting their long sheets at once were seven threads taking turns with the
        event loop (docs/performance.md)."""
        async with self.slots:
            return await asyncio.to_thread(work)

    async def _made(self, key: Hashable, work: Callable[[], T]) -> T:
        try:
            return await self.run(work)
        finally:
            del self.making[key]


class Kept(Generic[K, V]):
    """Answers kept once made: the most recently asked, up to ``cap`` bytes (``size``
    tells an answer's); one over a quarter of ``cap`` is not kept."""

    def __init__(self, cap: int, size: Callable[[V], int]) -> None:
        self.cap, self.size, self._size_of = cap, 0, size
        self.kept: collections.OrderedDict[K, V] = collections.OrderedDict()

    def get(self, key: K) -> V | None:
        """The answer kept for ``key``, if any (it is then the most recently asked)."""
        found = self.kept.get(key)
        if found is not None:
            self.kept.move_to_end(key)
        return found

    def keep(self, key: K, answer: V) -> None:
        """Keep ``answer``, dropping the least recently asked past ``cap``."""
        size = self._size_of(answer)
        if size > self.cap // 4 or key in self.kept:
            return
        self.kept[key] = answer
        self.size += size
        while self.size > self.cap:
            _, dropped = self.kept.popitem(last=False)
            self.size -= self._size_of(dropped)


class FinishedMatches:
    """``GET /api/matches/{id}``'s answers, kept once made: a finished match never
    changes, and one made large by many stored events took 70 ms of CPU to read and
    encode. The answer is encoded off the event loop; the most recently asked are kept,
    up to ``FINISHED_BYTES``."""

    def __init__(self, makers: Makers, cap: int = FINISHED_BYTES) -> None:
        self.answers: Kept[str, bytes] = Kept(cap, len)
        self.makers = makers

    async def get(self, engine: Any, match_id: str) -> bytes | None:
        body = self.answers.get(match_id)
        if body is not None:
            return body

        def made() -> bytes | None:
            found = finished_match(engine, match_id)
            return None if found is None else msgspec.json.encode(found)

        body = await self.makers.make(("finished", match_id), made)
        if body is not None:
            self.answers.keep(match_id, body)
        return body


class Listing:
    """One answer made again at most once a ``LISTING_S``, or when the number of
    tables it lists from changed: at 2000 tables the list is some 400 KB and took
    milliseconds each time it was asked for."""

    def __init__(self) -> None:
        self.made_at, self.tables, self.body = -LISTING_S, -1, b""

    async def get(self, tables: int, make: Callable[[], Awaitable[bytes]]) -> bytes:
        now = time.monotonic()
        if now - self.made_at >= LISTING_S or tables != self.tables:
            self.body = await make()
            self.made_at, self.tables = now, tables
        return self.body
