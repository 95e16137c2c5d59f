"""What a Redis that lost its data (a restart without persistence, a flush, a replica
promoted empty) held alone, rebuilt from PostgreSQL, which holds the truth.

Redis holds the cluster's *directory*: every live table's code (``nertz:codes``), its
invite (``nertz:invites``), its lease (``nertz:lease:{id}``) and the fencing counter
(``nertz:fence``). All of it is also in the database: a table's code and invite hash in
``tables``, its writer and token in ``table_owners``. The key ``nertz:directory`` says
the directory is whole: one script (``_REBUILD``) writes it last, in the same step as
everything it rebuilds, and while it is missing

* no lease is handed out (``leases.py``: a table taken then could get a token below
  the one its row holds, or be taken from the node still running it), and
* a lease found missing is not lost (the renewal keeps the table running; the rebuild
  puts the lease back from ``table_owners``, so no table moves).

The first node to see it missing (its renewal, a lookup, a new table, the sweep) reads
the live tables' rows and runs the script; a second node's script finds the key and
does nothing. What else Redis holds is harmless to lose (docs/cluster.md): each node
publishes its open tables and rewrites its live counts every second, and a rate's window
starts again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import redis.asyncio as aioredis
from sqlalchemy import Engine, func, or_, select

from nertz.server.store.schema import matches_t, table_owners_t, tables_t

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["DIRECTORY", "FENCE_MARGIN", "Directory", "Recovery", "stored_directory"]

log = logging.getLogger("nertz.cluster")

DIRECTORY = "nertz:directory"
"""Present while Redis holds the whole directory (written by ``_REBUILD``, last)."""
FENCE_MARGIN = 1_000_000
"""The rebuilt fencing counter starts this far above every token in ``table_owners``: a
token handed out before the loss whose claim had not reached the database yet is below
it, so no new token can equal one still to be claimed. Tokens are only compared, so the
numbers skipped cost nothing."""

# KEYS[1] the directory's key, KEYS[2] the fence, KEYS[3] the codes, KEYS[4] the invites.
# ARGV[1] the leases' life (ms), ARGV[2] the fence's floor, ARGV[3] how many leases,
# ARGV[4] how many codes, then the pairs: (table id, lease value) per lease, (code,
# table id) per code, (invite hash, code) per invite; ARGV[5] what the key says.
# Returns 1 if it rebuilt, 0 if the directory was whole already.
_REBUILD = """
if redis.call('exists', KEYS[1]) == 1 then return 0 end
if tonumber(redis.call('get', KEYS[2]) or '0') < tonumber(ARGV[2]) then
  redis.call('set', KEYS[2], ARGV[2])
end
local leases, codes = tonumber(ARGV[3]), tonumber(ARGV[4])
local i = 6
for _ = 1, leases do
  redis.call('set', 'nertz:lease:' .. ARGV[i], ARGV[i + 1], 'PX', ARGV[1], 'NX')
  i = i + 2
end
for _ = 1, codes do
  redis.call('hsetnx', KEYS[3], ARGV[i], ARGV[i + 1])
  i = i + 2
end
while i < #ARGV do
  redis.call('hsetnx', KEYS[4], ARGV[i], ARGV[i + 1])
  i = i + 2
end
redis.call('set', KEYS[1], ARGV[5])
return 1
"""


@dataclass(frozen=True, slots=True)
class Directory:
    """What the rebuild writes: each live table's lease (table id to ``node:token``),
    code (code to table id) and invite (its hash to the code); and the fence's floor."""

    leases: dict[str, str]
    codes: dict[str, str]
    invites: dict[str, str]
    fence: int


def stored_directory(engine: Engine, kept_s: float) -> Directory:
    """The directory as the database has it: every table not over, or over less than
    ``kept_s`` ago (a node still runs it for the series' next match), or not yet written
    (its ``table_owners`` row is, its ``tables`` row not yet)."""
    finished = matches_t.c.finished
    query = (
        select(
            table_owners_t.c.table_id,
            table_owners_t.c.node,
            table_owners_t.c.token,
            tables_t.c.code,
            tables_t.c.key_hash,
        )
        .outerjoin(tables_t, tables_t.c.id == table_owners_t.c.table_id)
        .outerjoin(matches_t, matches_t.c.table_id == table_owners_t.c.table_id)
        .where(or_(finished.is_(None), finished > time.time() - kept_s))
    )
    with engine.connect() as conn:
        rows = conn.execute(query).all()
        top = conn.execute(select(func.max(table_owners_t.c.token))).scalar()
    leases, codes, invites = {}, {}, {}
    for row in rows:
        leases[row.table_id] = f"{row.node}:{row.token}"
        if row.code is not None:
            codes[row.code] = row.table_id
            if row.key_hash is not None:
                invites[row.key_hash] = row.code
    return Directory(leases, codes, invites, int(top or 0) + FENCE_MARGIN)


class Recovery:
    """A node's side of it: ``ensure`` rebuilds the directory if Redis lost it (one
    rebuild at a time on this node, however many ask)."""

    def __init__(
        self,
        client: aioredis.Redis,
        node: str,
        ttl_ms: int,
        read: Callable[[], Directory],
        own: Callable[[], Directory],
    ) -> None:
        self.client = client
        self.node = node
        self.ttl_ms = ttl_ms
        self._read = read
        """The database's directory (blocking: run in a thread)."""
        self._own = own
        """What this node knows it runs (tables whose rows may not be written yet)."""
        self._rebuild = client.register_script(_REBUILD)
        self._running: asyncio.Task[bool] | None = None
        self.rebuilt = 0
        """Times this node rebuilt the directory (for ``GET /``)."""

    async def whole(self) -> bool:
        """Does Redis hold the whole directory?"""
        return bool(await self.client.exists(DIRECTORY))

    async def ensure(self) -> bool:
        """The directory whole again; True if it was not (a rebuild ran, here or on
        another node, and what was missing may be there now)."""
        if await self.whole():
            return False
        if self._running is None:
            self._running = asyncio.get_running_loop().create_task(self._run())
            self._running.add_done_callback(self._ran)
        await asyncio.shield(self._running)
        return True

    def _ran(self, _task: object) -> None:
        self._running = None

    async def _run(self) -> bool:
        began = time.monotonic()
        stored = await asyncio.to_thread(self._read)
        own = self._own()
        # The database's word first: a lease written NX is not overwritten, so a node's
        # own belief about a table it lost to another node cannot win.
        leases = {**own.leases, **stored.leases}
        codes = {**own.codes, **stored.codes}
        invites = {**own.invites, **stored.invites}
        args: list[str | int] = [self.ttl_ms, stored.fence, len(leases), len(codes)]
        args += [f"{self.node} {time.time():.3f}"]
        for pairs in (leases, codes, invites):
            for key, value in pairs.items():
                args += [key, value]
        keys = [DIRECTORY, "nertz:fence", "nertz:codes", "nertz:invites"]
        done = bool(await self._rebuild(keys=keys, args=args))
        if done:
            self.rebuilt += 1
            log.warning(
                "node %s rebuilt the directory from the database in %.0f ms: %d leases, "
                "%d codes, %d invites, fence %d",
                *(self.node, (time.monotonic() - began) * 1000, len(leases), len(codes)),
                *(len(invites), stored.fence),
            )
        return done
