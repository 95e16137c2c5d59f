"""Table leases in Redis: which node owns a table, and the fencing token of that
ownership.

A lease is the key ``nertz:lease:{table id}`` holding ``"{node id}:{token}"`` with an
expiry (``ttl_ms``); its node renews it while it lives. The token comes from one counter
(``nertz:fence``) that only grows, so every new ownership of any table has a larger
token than every earlier one. A lease only says who *should* run a table; what makes a
node that lost its lease harmless is the store: every write is conditioned on the
table's row in ``table_owners`` holding the writer's token, and a node taking a table
over raises that row to its own token first (``store.py``, ``claim``). A node paused
past its expiry (SIGSTOP, a long GC, a partition) may wake up believing it still owns
its tables; its next write is refused, and its renewal finds the lease gone.

Every operation that must be atomic is one Lua script, run by Redis as one command.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import redis
import redis.asyncio as aioredis

__all__ = ["LEASE_TTL_MS", "RENEW_S", "Lease", "Leases", "Renewer"]

LEASE_TTL_MS = 4000
"""A dead node's tables wait this long at most before another node may take them;
a live node renews its leases every second (``RENEW_S``), four times in that window."""
RENEW_S = 1.0

_PREFIX = "nertz:lease:"
_FENCE = "nertz:fence"

# KEYS[1] the lease, KEYS[2] the fence counter; ARGV[1] the node, ARGV[2] the ttl.
_ACQUIRE = """
if redis.call('exists', KEYS[1]) == 1 then return 0 end
local token = redis.call('incr', KEYS[2])
redis.call('set', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
return token
"""
# KEYS the leases; ARGV[1] the ttl, ARGV[2..] each lease's expected value. Returns
# one 1 (renewed) or 0 (lost) per lease.
_RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[i + 1] then
    redis.call('pexpire', key, ARGV[1])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""


@dataclass(frozen=True, slots=True)
class Lease:
    """One node's ownership of one table."""

    table_id: str
    node: str
    token: int

    @property
    def value(self) -> str:
        return f"{self.node}:{self.token}"


class Leases:
    """A node's leases: acquire, renew, release, and look up who owns a table."""

    def __init__(self, client: aioredis.Redis, node: str, ttl_ms: int = LEASE_TTL_MS) -> None:
        self.client = client
        self.node = node
        self.ttl_ms = ttl_ms
        self._acquire = client.register_script(_ACQUIRE)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)

    async def acquire(self, table_id: str) -> Lease | None:
        """The table's lease with a new token, or None while another node holds it."""
        token = int(
            await self._acquire(keys=[_PREFIX + table_id, _FENCE], args=[self.node, self.ttl_ms])
        )
        return Lease(table_id, self.node, token) if token else None

    async def renew(self, leases: Iterable[Lease]) -> list[Lease]:
        """Extend every lease still ours; return those that are not (expired, or
        taken by another node meanwhile)."""
        held = list(leases)
        if not held:
            return []
        answers = await self._renew(
            keys=[_PREFIX + lease.table_id for lease in held],
            args=[self.ttl_ms, *(lease.value for lease in held)],
        )
        return [lease for lease, ok in zip(held, answers, strict=True) if not int(ok)]

    async def release(self, lease: Lease) -> None:
        """Give a lease up at once (a node stopping cleanly), if it is still ours."""
        await self._release(keys=[_PREFIX + lease.table_id], args=[lease.value])

    async def owner(self, table_id: str) -> str | None:
        """The node holding the table's lease, or None if nobody does."""
        value = await self.client.get(_PREFIX + table_id)
        if value is None:
            return None
        text = value.decode() if isinstance(value, bytes) else str(value)
        return text.rsplit(":", 1)[0]


class Renewer:
    """Renews a node's leases from a thread of its own, with a blocking client: a busy
    event loop (a burst of connections on a loaded machine) must not let the leases of
    a live node lapse, which would move its tables for nothing."""

    def __init__(self, url: str, ttl_ms: int = LEASE_TTL_MS) -> None:
        self.client = redis.Redis.from_url(url, socket_timeout=ttl_ms / 2000)
        self.ttl_ms = ttl_ms
        self._renew = self.client.register_script(_RENEW)

    def renew(self, held: list[Lease]) -> list[Lease]:
        """As ``Leases.renew``: the leases that are no longer ours."""
        if not held:
            self.client.ping()  # still a sign of life: Redis answers
            return []
        answers = self._renew(
            keys=[_PREFIX + lease.table_id for lease in held],
            args=[self.ttl_ms, *(lease.value for lease in held)],
        )
        return [lease for lease, ok in zip(held, answers, strict=True) if not int(ok)]

    def close(self) -> None:
        self.client.close()
