"""A node's part in the cluster: it runs the tables whose leases it holds, and only
those (docs/cluster.md).

* **Creating** a table: a new id, its lease, the ``table_owners`` row at the lease's
  token, a code no node has used (``HSETNX`` on the directory), then the table as on a
  single node.
* **Renewing**: every second, from a thread of its own, one script renews every lease
  this node holds. A lease found lost, or no successful renewal for a whole lease's life
  (Redis unreachable), drops the table here at once: its connections close and come
  back through the load balancer to its new owner. The store's fencing makes a late
  drop harmless (``fencing.py``): the node's writes for it are refused, and so are
  its messages, which wait for those writes.
* **Taking over**: a table whose lease lapsed (its node died, or was paused past the
  lease) is taken by the first node a client of it reaches (``locate``) or, within a
  second, by the sweep that every node runs over the unfinished tables: the lease, then
  the row raised to the new token, then the table restored from the database exactly as
  a restarted single node restores it.
* **Stopping** cleanly: the leases are released, so others take the tables at once.
* **Live counts**: the same thread rewrites the node's share of the cluster-wide live
  counts every second, with a lease's life (``live.py``), so a dead node's lapse too.
* **Redis lost its data**: the renewal (or a lookup, a new table, the sweep) finds the
  directory's key gone, and the directory is rebuilt from the database before any lease
  is handed out again (``recovery.py``); meanwhile every table runs on where it is.

Every table's code is in the directory hash ``nertz:codes`` (code to id); a node also
publishes its open tables for the cluster's lobby list (``open_tables``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
import redis.asyncio as aioredis

from nertz.engine import Rules
from nertz.server.cluster.batches import Coalesced
from nertz.server.cluster.fencing import FencedPlays, OwnerGuard, claim, claim_many
from nertz.server.cluster.leases import (
    LEASE_TTL_MS,
    RENEW_S,
    DirectoryLost,
    Lease,
    Leases,
    Renewer,
    retrying,
)
from nertz.server.cluster.live import NODES as LIVE_NODES
from nertz.server.cluster.live import LiveCounts, beat, live_key
from nertz.server.cluster.recovery import Directory, Recovery, stored_directory
from nertz.server.lobby.invites import Invite
from nertz.server.lobby.lobby import SERIES_KEPT_S, Entry, Lobby, new_table_id
from nertz.server.store.store import Store, StoredTable
from nertz.server.table.settings import Settings

__all__ = ["ClusterNode"]

log = logging.getLogger("nertz.cluster")

CODES = "nertz:codes"
"""The directory: every table's code, to its id."""
INVITES = "nertz:invites"
"""A private table's invite (its key), hashed, to its code."""
NODES = "nertz:nodes"
"""Node id to what it publishes (its open tables, when), renewed with its leases."""
SWEEP_S = 1.0
"""How often a node looks for tables nobody holds."""


class ClusterNode:
    """One node: its Redis, its leases and its guard over the store."""

    def __init__(
        self,
        node_id: str,
        redis_url: str,
        lobby: Lobby,
        store: Store,
        ttl_ms: int = LEASE_TTL_MS,
        counts: Callable[[], dict[str, int]] | None = None,
    ) -> None:
        self.id = node_id
        self.url = redis_url
        # A bounded pool that waits for a free connection: a burst of requests for
        # tables elsewhere queues for Redis instead of failing. A command that meets a
        # connection Redis closed (it restarted) is sent again on a new one.
        pool = aioredis.BlockingConnectionPool.from_url(
            redis_url, max_connections=32, timeout=10, retry=retrying()
        )
        self.redis: aioredis.Redis = aioredis.Redis(connection_pool=pool)
        self.leases = Leases(self.redis, node_id, ttl_ms)
        self.live = LiveCounts(self.redis, node_id)
        self.recovery = Recovery(
            self.redis,
            node_id,
            ttl_ms,
            functools.partial(stored_directory, store.engine, SERIES_KEPT_S),
            self._own_directory,
        )
        self.counts = counts
        """This node's live counts as its hash's fields (``live.mirror``), for the beat."""
        self.lobby = lobby
        self.store = store
        self.guard = OwnerGuard()
        store.guard = self.guard
        self.plays = FencedPlays(store.engine, self.guard)
        store.fast = self.plays
        store.on_refused = self._refused
        self.held: dict[str, Lease] = {}
        """Table id to this node's lease on it (from the moment a takeover wins it)."""
        self.codes: dict[str, str] = {}
        """Table id to code, for the tables held here."""
        self.taken = 0
        """Tables this node took over from another."""
        self.dropped = 0
        """Tables this node gave up because it lost their lease."""
        self._taking: dict[str, asyncio.Task[Entry | str | None]] = {}
        self._restores = Coalesced(self._claim_and_read)
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = threading.Event()
        self._rebuilds: set[asyncio.Task[None]] = set()
        self._renewer: threading.Thread | None = None

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        await self.redis.ping()
        await self.recovery.ensure()  # a new Redis (or one that lost its data)
        renewer = Renewer(self.url, self.leases.ttl_ms)
        if self.counts is not None:  # a past life's counts replaced by this one's
            await asyncio.to_thread(beat, renewer.client, self.id, self.counts())
        await self._publish()
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._publish_loop(), name="cluster-publish"),
            loop.create_task(self._sweep_loop(), name="cluster-sweep"),
        ]
        self._renewer = threading.Thread(
            target=self._renew_thread, args=(renewer, loop), name="nertz-leases", daemon=True
        )
        self._renewer.start()

    async def stop(self) -> None:
        """After the tables have stopped and the store has flushed: hand every lease
        back, so other nodes take the tables without waiting for them to lapse."""
        for task in self._tasks:
            task.cancel()
        self._stopping.set()
        if self._renewer is not None:
            await asyncio.to_thread(self._renewer.join, 5)
        with contextlib.suppress(Exception):
            await self.live.settled()
            for lease in list(self.held.values()):
                await self.leases.release(lease)
            await self.redis.hdel(NODES, self.id)
            await self.redis.delete(live_key(self.id))
            await self.redis.srem(LIVE_NODES, self.id)
        await self.redis.aclose()

    # ------------------------------------------------------------------ tables

    async def create(
        self, rules: Rules, settings: Settings, invite: Invite | None = None
    ) -> tuple[Entry, str | None]:
        """A new table owned here (``Lobby.create``'s errors are raised before the
        table takes a lease or a code), with ``invite`` if private (``Lobby.invited``)."""
        self.lobby.check_create(rules, settings)
        table_id = new_table_id()
        lease = await self._acquire(table_id)
        if lease is None:  # 64 random bits met another table's: never in practice
            raise RuntimeError("a new table id is already leased")
        await asyncio.to_thread(claim, self.store.engine, table_id, self.id, lease.token)
        while True:
            code = self.lobby.new_code()
            # The directory has every live table's code; a table over long ago has its
            # code only in the database once Redis has lost its data.
            if await asyncio.to_thread(self.store.code_used, code):
                continue
            if await self.redis.hsetnx(CODES, code, table_id):
                break
        self._hold(lease, code)  # before its first record reaches the store's guard
        try:
            entry, key = self.lobby.create(
                rules, settings, table_id=table_id, code=code, invite=invite
            )
        except Exception:
            self._let_go(table_id)
            await self.leases.release(lease)
            raise
        if entry.key_hash is not None:  # its invite finds it from any node
            await self.redis.hset(INVITES, entry.key_hash, code)
        return entry, key

    async def invite_code(self, key_hash: str) -> str | None:
        """The code of the table whose invite hashes to ``key_hash``, on any node."""
        code = await self.redis.hget(INVITES, key_hash)
        if code is None and await self.recovery.ensure():  # Redis lost it: rebuilt now
            code = await self.redis.hget(INVITES, key_hash)
        return None if code is None else _text(code)

    async def _table_id(self, code: str) -> str | None:
        """The id of the table ``code`` from the directory, or from the database when
        the directory does not have it (Redis lost its data; a table over long ago)."""
        raw = await self.redis.hget(CODES, code)
        if raw is None and await self.recovery.ensure():
            raw = await self.redis.hget(CODES, code)
        if raw is not None:
            return _text(raw)
        table_id = await asyncio.to_thread(self.store.table_id, code)
        if table_id is not None:
            await self.redis.hsetnx(CODES, code, table_id)
        return table_id

    async def _acquire(self, table_id: str) -> Lease | None:
        """``Leases.acquire``, the directory rebuilt first if Redis lost it."""
        try:
            return await self.leases.acquire(table_id)
        except DirectoryLost:
            await self.recovery.ensure()
            return await self.leases.acquire(table_id)

    def _own_directory(self) -> Directory:
        """What this node runs, for a rebuild: its leases, codes and invites (a table
        made a moment ago may not be in the database yet)."""
        leases = {t: lease.value for t, lease in self.held.items()}
        codes = {code: t for t, code in self.codes.items()}
        invites = {}
        for code in codes:
            entry = self.lobby.tables.get(code)
            if entry is not None and entry.key_hash is not None:
                invites[entry.key_hash] = code
        return Directory(leases, codes, invites, 0)

    async def locate(self, code: str) -> Entry | str | None:
        """Where a table runs: its entry here (taken over now if nobody held it), the
        id of the node that holds it, or None if there is no such table (or it is over
        and nobody runs it)."""
        code = code.strip().upper()
        entry = self.lobby.tables.get(code)
        if entry is not None:
            return entry
        table_id = await self._table_id(code)
        if table_id is None:
            return None
        owner = await self.leases.owner(table_id)
        if owner is not None and owner != self.id:
            return owner
        return await asyncio.shield(self._taking_over(table_id))

    def _taking_over(self, table_id: str) -> asyncio.Task[Entry | str | None]:
        """The one task taking ``table_id`` over here, however many ask at once."""
        task = self._taking.get(table_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._take(table_id))
            self._taking[table_id] = task
            task.add_done_callback(functools.partial(self._took, table_id))
        return task

    def _took(self, table_id: str, _task: object) -> None:
        self._taking.pop(table_id, None)

    async def _take(self, table_id: str) -> Entry | str | None:
        """Take a table nobody holds: lease, row, restore (the row and the read in one
        batch with the other tables being taken at the same moment: ``_claim_and_read``)."""
        began = time.monotonic()
        lease = await self._acquire(table_id)
        if lease is None:
            return await self.leases.owner(table_id)
        leased = time.monotonic()
        self.held[table_id] = lease  # renewed from now on: a slow read must not lose it
        try:
            found = await self._restores(table_id, lease.token)
        except Exception:
            self.held.pop(table_id, None)
            await self.leases.release(lease)
            raise
        read = time.monotonic()
        if self.held.get(table_id) != lease:  # lost all the same (Redis unreachable)
            return await self.leases.owner(table_id)
        if not isinstance(found, StoredTable):  # claimed by a later token; or over
            self.held.pop(table_id, None)
            await self.leases.release(lease)
            return None
        self._hold(lease, found.code)
        entry = self.lobby.adopt(found)
        if entry is None:
            self._let_go(table_id)
            await self.leases.release(lease)
            return None
        self.taken += 1
        log.info(
            "node %s took table %s (token %d) in %.0f ms: lease %.0f, row and read %.0f, "
            "replay %.0f",
            *(self.id, entry.code, lease.token, (time.monotonic() - began) * 1000),
            *((leased - began) * 1000, (read - leased) * 1000, (time.monotonic() - read) * 1000),
        )
        return entry

    async def _claim_and_read(self, tokens: dict[str, int]) -> dict[str, StoredTable | bool | None]:
        """Each table's row raised to its token, then the ones claimed read back: False
        if a later token holds the row, None if the table is over."""
        claimed, found = await asyncio.to_thread(self._claim_and_read_now, tokens)
        return {t: (found.get(t) if t in claimed else False) for t in tokens}

    def _claim_and_read_now(
        self, tokens: dict[str, int]
    ) -> tuple[set[str], dict[str, StoredTable]]:
        claimed = claim_many(self.store.engine, self.id, tokens)
        stored = self.store.unfinished(claimed, SERIES_KEPT_S) if claimed else []
        return claimed, {t.id: t for t in stored}

    def _hold(self, lease: Lease, code: str) -> None:
        self.held[lease.table_id] = lease
        self.codes[lease.table_id] = code
        self.guard.tokens[lease.table_id] = lease.token

    def _let_go(self, table_id: str) -> str | None:
        self.held.pop(table_id, None)
        self.guard.tokens.pop(table_id, None)
        return self.codes.pop(table_id, None)

    async def _drop(self, table_id: str, why: str) -> None:
        code = self._let_go(table_id)
        if code is None:
            return
        self.dropped += 1
        log.warning("node %s gives up table %s: %s", self.id, code, why)
        await self.lobby.drop(code, "moved")

    def _refused(self, table_id: str) -> None:
        """The store refused this table's writes: another node owns it now."""
        asyncio.get_running_loop().create_task(self._drop(table_id, "its writes were fenced"))

    # ------------------------------------------------------------------ loops

    def _renew_thread(self, renewer: Renewer, loop: asyncio.AbstractEventLoop) -> None:
        """Every ``RENEW_S``: renew every lease held here; hand the lost ones to the
        loop. With no renewal for a whole lease's life (Redis unreachable), every lease
        may have lapsed: the tables stop here rather than run beside their next owner."""
        renewed_at = time.monotonic()
        while not self._stopping.wait(RENEW_S):
            try:
                renewal = renewer.renew(list(self.held.values()))
            except Exception:
                log.exception("node %s could not renew its leases", self.id)
                if time.monotonic() - renewed_at > self.leases.ttl_ms / 1000:
                    lost = list(self.held.values())
                else:
                    continue
            else:
                renewed_at = time.monotonic()
                lost = renewal.lost
                if not renewal.whole:  # Redis lost its data: the loop rebuilds it
                    with contextlib.suppress(RuntimeError):
                        loop.call_soon_threadsafe(self._rebuild_soon)
            if lost:
                with contextlib.suppress(RuntimeError):  # the loop has closed
                    loop.call_soon_threadsafe(self._lost, lost)
            self._beat(renewer)
        renewer.close()

    def _beat(self, renewer: Renewer) -> None:
        """This node's live counts rewritten, their life renewed (``live.py``)."""
        if self.counts is None:
            return
        try:
            beat(renewer.client, self.id, self.counts())
        except Exception:
            log.exception("node %s could not renew its live counts", self.id)

    def _rebuild_soon(self) -> None:
        task = asyncio.get_running_loop().create_task(self._rebuild())
        self._rebuilds.add(task)
        task.add_done_callback(self._rebuilds.discard)

    async def _rebuild(self) -> None:
        try:
            await self.recovery.ensure()
        except Exception:
            log.exception("node %s could not rebuild the directory", self.id)

    def _lost(self, lost: list[Lease]) -> None:
        for lease in lost:
            if self.held.get(lease.table_id) == lease:
                asyncio.get_running_loop().create_task(
                    self._drop(lease.table_id, "its lease was lost")
                )

    async def _publish_loop(self) -> None:
        while True:
            await asyncio.sleep(RENEW_S)
            try:
                await self._publish()
            except Exception:
                log.exception("node %s could not publish its open tables", self.id)

    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_S * random.uniform(0.5, 1.5))
            try:
                await self._sweep()
            except Exception:
                log.exception("node %s: the sweep failed", self.id)

    async def _sweep(self) -> None:
        """Take a share of the unfinished tables that no lease holds."""
        await self.recovery.ensure()  # a lease Redis lost is no orphan
        ids = await asyncio.to_thread(self.store.unfinished_ids)
        ids = [t for t in ids if t not in self.held]
        if not ids:
            return
        owners = await self.redis.mget([f"nertz:lease:{t}" for t in ids])
        orphans = [t for t, owner in zip(ids, owners, strict=True) if owner is None]
        if not orphans:
            return
        nodes = max(1, len(await self._live_nodes()))
        random.shuffle(orphans)
        share = orphans[: len(orphans) // nodes + 1]
        takes = [asyncio.shield(self._taking_over(t)) for t in share]  # read in batches
        for result in await asyncio.gather(*takes, return_exceptions=True):
            if isinstance(result, Exception):
                log.error("node %s could not take a table: %r", self.id, result)

    def figures(self) -> dict[str, Any]:
        """For ``GET /``: this node, its tables, what it took over and gave up."""
        return {
            "node": self.id,
            "held": len(self.held),
            "taken": self.taken,
            "dropped": self.dropped,
            "fast_batches": self.plays.batches,
            "rebuilt": self.recovery.rebuilt,
        }

    # ------------------------------------------------------------------ the lobby list

    async def _publish(self) -> None:
        body = {"at": time.time(), "open": self.lobby.open_tables()}
        await self.redis.hset(NODES, self.id, json.dumps(body))

    async def _live_nodes(self) -> dict[str, Any]:
        """What every node that renewed within a lease's life last published."""
        stale = time.time() - self.leases.ttl_ms / 1000
        published = {
            _text(n): json.loads(raw) for n, raw in (await self.redis.hgetall(NODES)).items()
        }
        return {n: body for n, body in published.items() if body["at"] >= stale}

    async def open_tables(self) -> list[dict[str, Any]]:
        """The public tables with a free seat on every live node, this one's as they
        are now, the others' as they published them (within a second)."""
        out = self.lobby.open_tables()
        try:
            published = await self._live_nodes()
        except redis.RedisError as error:  # this node's own, until Redis answers again
            log.warning("node %s could not read the other nodes' tables: %r", self.id, error)
            return out
        for node, body in published.items():
            if node != self.id:
                out.extend(body["open"])
        return out


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
