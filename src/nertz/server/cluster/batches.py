"""Calls that coalesce: what is asked while one call runs, or within a moment of it,
is answered by the next single call for all of it. A node taking a dead node's tables
over claims and reads them in a few batches rather than one table at a time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

__all__ = ["Coalesced"]

K = TypeVar("K")
V = TypeVar("V")
R = TypeVar("R")

GATHER_S = 0.01
"""How long a batch waits for more before it goes (a takeover's requests arrive over a
few loop iterations: their leases come back one by one)."""


class Coalesced(Generic[K, V, R]):
    """``await batched(key, value)``: ``run`` is called with every pending key's value
    and answers each key; one ``run`` at a time."""

    def __init__(self, run: Callable[[dict[K, V]], Awaitable[dict[K, R]]]) -> None:
        self._run = run
        self._waiting: dict[K, tuple[V, asyncio.Future[R]]] = {}
        self._task: asyncio.Task[None] | None = None
        self.calls = 0

    async def __call__(self, key: K, value: V) -> R:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[R] = loop.create_future()
        self._waiting[key] = (value, future)
        if self._task is None:
            self._task = loop.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._waiting:
                await asyncio.sleep(GATHER_S)
                batch, self._waiting = self._waiting, {}
                self.calls += 1
                try:
                    answers = await self._run({k: v for k, (v, _) in batch.items()})
                except Exception as error:
                    for _, future in batch.values():
                        if not future.done():
                            future.set_exception(error)
                    continue
                for key, (_, future) in batch.items():
                    if not future.done():
                        future.set_result(answers[key])
        finally:
            self._task = None
