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

If Redis loses its data (``recovery.py``), every lease is gone at once. Until the
directory is rebuilt from the database no lease is handed out (``acquire`` raises
``DirectoryLost``) and a renewal that finds its lease missing keeps it (the rebuild puts
it back from ``table_owners``), so the tables stay where they run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import redis
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from nertz.server.cluster.recovery import DIRECTORY as _DIRECTORY

__all__ = [
    "LEASE_TTL_MS",
    "RENEW_S",
    "DirectoryLost",
    "Lease",
    "Leases",
    "Renewal",
    "Renewer",
    "retrying",
]

LEASE_TTL_MS = 4000
"""A dead node's tables wait this long at most before another node may take them;
a live node renews its leases every second (``RENEW_S``), four times in that window."""
RENEW_S = 1.0

_PREFIX = "nertz:lease:"
_FENCE = "nertz:fence"

# KEYS[1] the lease, KEYS[2] the fence counter, KEYS[3] the directory's key; ARGV[1] the
# node, ARGV[2] the ttl. -1: the directory is not whole (Redis lost its data).
_ACQUIRE = """
if redis.call('exists', KEYS[3]) == 0 then return -1 end
if redis.call('exists', KEYS[1]) == 1 then return 0 end
local token = redis.call('incr', KEYS[2])
redis.call('set', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
return token
"""
# KEYS[1] the directory's key, KEYS[2..] the leases; ARGV[1] the ttl, ARGV[2..] each
# lease's expected value. Returns 1 if the directory is whole, else 0, then one 1
# (renewed, or missing from a Redis that lost its data: kept) or 0 (lost) per lease.
_RENEW = """
local whole = redis.call('exists', KEYS[1])
local out = {whole}
for i = 2, #KEYS do
  local value = redis.call('get', KEYS[i])
  if value == ARGV[i] then
    redis.call('pexpire', KEYS[i], ARGV[1])
    out[i] = 1
  elseif value == false and whole == 0 then
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


class DirectoryLost(redis.RedisError):
    """Redis lost the directory: rebuild it (``recovery.Recovery.ensure``), then ask
    again. (Lost again at once, it is answered as Redis not answering: try again.)"""


@dataclass(frozen=True, slots=True)
class Renewal:
    """What a renewal found: the leases no longer ours, and whether Redis still holds
    the whole directory (False: it lost its data, rebuild it)."""

    lost: list[Lease]
    whole: bool


def retrying() -> AsyncRetry:
    """A command that fails on a connection Redis closed (a restart) or timed out is
    sent again on a new one, three times within a third of a second; after that the
    caller hears of it."""
    return AsyncRetry(ExponentialBackoff(0.2, 0.02), 3)


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
        """The table's lease with a new token, or None while another node holds it.
        Raises ``DirectoryLost`` while Redis has not been rebuilt since it lost its data."""
        keys = [_PREFIX + table_id, _FENCE, _DIRECTORY]
        token = int(await self._acquire(keys=keys, args=[self.node, self.ttl_ms]))
        if token < 0:
            raise DirectoryLost(table_id)
        return Lease(table_id, self.node, token) if token else None

    async def renew(self, leases: Iterable[Lease]) -> Renewal:
        """Extend every lease still ours; say which are not (expired, or taken by
        another node meanwhile)."""
        held = list(leases)
        return _renewal(held, await self._renew(*_renew_args(held, self.ttl_ms)))

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
        self.client = redis.Redis.from_url(
            url, socket_timeout=ttl_ms / 2000, retry=Retry(ExponentialBackoff(0.2, 0.02), 3)
        )
        self.ttl_ms = ttl_ms
        self._renew = self.client.register_script(_RENEW)

    def renew(self, held: list[Lease]) -> Renewal:
        """As ``Leases.renew`` (with none held, still a sign of life: Redis answers)."""
        return _renewal(held, self._renew(*_renew_args(held, self.ttl_ms)))

    def close(self) -> None:
        self.client.close()


def _renew_args(held: list[Lease], ttl_ms: int) -> tuple[list[str], list[str | int]]:
    keys = [_DIRECTORY, *(_PREFIX + lease.table_id for lease in held)]
    return keys, [ttl_ms, *(lease.value for lease in held)]


def _renewal(held: list[Lease], answers: list[int]) -> Renewal:
    lost = [lease for lease, ok in zip(held, answers[1:], strict=True) if not int(ok)]
    return Renewal(lost, bool(int(answers[0])))
