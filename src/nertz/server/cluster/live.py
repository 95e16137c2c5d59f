"""The live counts that must span a cluster: what one address holds open, and what
every node holds together.

A node's own ``Quotas`` (``limits.py``) count the connections, spectators and open
tables of each address *there*; behind a round-robin balancer one address would hold a
full share on every node. So every node keeps a mirror of its counts in one Redis hash,
``nertz:live:{node}``: ``c:{address}`` its open WebSockets, ``s:{address}`` its
spectators, ``o:{address}`` the tables it made that it still runs, and ``c`` and
``t`` all the node's connections and its tables not yet over (the server-wide caps,
``max_connections`` and ``max_tables``, bound the whole cluster). The set
``nertz:live-nodes`` names every node that has counted.

* **Admitting** one more (a connection, a spectator, a table) is one script, run by
  Redis as one command: the address's field summed over this node's count (with the new
  one) and every other node's hash that exists, refused past the limit, else this
  node's field set. So two nodes admitting the same address at once cannot both take
  its last place, and a node counts from its first moment in every other's sums.
* **Letting go** (a connection closed) writes the node's new count without waiting
  for it; a started table stops counting at the next beat.
* **The beat**: every second, from the thread that renews the node's leases
  (``node.py``), the hash is rewritten whole from the node's own counts, with an expiry
  of a lease's life. So a count is never wrong for longer than a second whatever went
  astray (a write lost, two overtaking each other), and a node that dies — SIGKILL,
  no shutdown — takes its counts with it within ``LIVE_TTL_MS``: nothing leaks.

Nothing here runs per play: one round trip per connection opened or closed, spectator
admitted and table created. If Redis does not answer, the node's own quotas still hold
and the one more is let in. On a single server every function answers at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import redis
import redis.asyncio as aioredis

from nertz.server.cluster.leases import LEASE_TTL_MS
from nertz.server.door.limits import Quotas, Refusal

if TYPE_CHECKING:
    from nertz.server.lobby.lobby import Lobby

__all__ = [
    "LIVE_TTL_MS",
    "NODES",
    "LiveCounts",
    "connection_closed",
    "live_key",
    "mirror",
    "shared_connection",
    "shared_spectator",
    "shared_table",
]

log = logging.getLogger("nertz.cluster")

LIVE_TTL_MS = LEASE_TTL_MS
"""A dead node's counts lapse this long after its last beat."""

_PREFIX = "nertz:live:"
NODES = "nertz:live-nodes"
"""The nodes that count: each beat adds its node; a script that finds a node's hash
gone (its node dead, or stopped) takes it out."""

# KEYS[1] this node's hash, KEYS[2] the set of nodes. ARGV[1] this node, ARGV[2] the
# ttl (ms), then per check: the field, its limit, this node's count with the new one.
# The other nodes' hashes are found by their names, _PREFIX and the node (one Redis,
# not a Redis Cluster).
# Returns {0, 0} (admitted: this node's fields set) or {the failed check, what is held}.
_ADMIT = """
local others = {}
for _, node in ipairs(redis.call('smembers', KEYS[2])) do
  local key = 'nertz:live:' .. node
  if node == ARGV[1] then
  elseif redis.call('exists', key) == 1 then others[#others + 1] = key
  else redis.call('srem', KEYS[2], node) end  -- gone: its next beat, if any, adds it
end
for c = 0, (#ARGV - 2) / 3 - 1 do
  local field, limit = ARGV[3 + 3 * c], tonumber(ARGV[4 + 3 * c])
  local total = tonumber(ARGV[5 + 3 * c])
  for _, key in ipairs(others) do
    total = total + (tonumber(redis.call('hget', key, field)) or 0)
  end
  if total > limit then return {c + 1, total - 1} end
end
for c = 0, (#ARGV - 2) / 3 - 1 do
  redis.call('hset', KEYS[1], ARGV[3 + 3 * c], ARGV[5 + 3 * c])
end
redis.call('pexpire', KEYS[1], ARGV[2])
redis.call('sadd', KEYS[2], ARGV[1])
return {0, 0}
"""


def live_key(node: str) -> str:
    return _PREFIX + node


@dataclass(frozen=True, slots=True)
class Check:
    """One count to admit: its field, its limit, this node's count with the new one,
    and the refusal given what the cluster holds."""

    field: str
    limit: int
    mine: int
    refusal: Callable[[int], Refusal]


class LiveCounts:
    """A node's side of the shared live counts."""

    def __init__(self, client: aioredis.Redis, node: str) -> None:
        self.client = client
        self.node = node
        self._admit = client.register_script(_ADMIT)
        self._writes: set[asyncio.Task[None]] = set()

    async def admit(self, checks: list[Check]) -> Refusal | None:
        """Every check under its limit across the cluster (then counted here), or the
        first refusal."""
        args: list[Any] = [self.node, LIVE_TTL_MS]
        for check in checks:
            args += [check.field, check.limit, check.mine]
        answer = await self._admit(keys=[live_key(self.node), NODES], args=args)
        failed, held = (int(x) for x in answer)
        return None if not failed else checks[failed - 1].refusal(held)

    def let_go(self, fields: dict[str, int]) -> None:
        """Write this node's new counts (0: none) without waiting for Redis."""
        task = asyncio.get_running_loop().create_task(self._write(fields))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _write(self, fields: dict[str, int]) -> None:
        key = live_key(self.node)
        try:
            async with self.client.pipeline(transaction=True) as pipe:
                for field, count in fields.items():
                    if count > 0:
                        pipe.hset(key, field, count)
                    else:
                        pipe.hdel(key, field)
                await pipe.execute()
        except Exception as error:  # the next beat writes it again
            log.warning("node %s could not write its live counts: %r", self.node, error)

    async def settled(self) -> None:
        """Every write begun has ended (tests; a node stopping)."""
        if self._writes:
            await asyncio.gather(*self._writes, return_exceptions=True)


def mirror(quotas: Quotas, lobby: Lobby) -> dict[str, int]:
    """This node's live counts as the fields of its hash. Called from the renewing
    thread: it only copies (each copy of a dict or list is one step under the GIL), so a
    count changing meanwhile is at worst a beat late."""
    fields = {f"c:{a}": n for a, n in quotas.connections.copy().items()}
    fields.update((f"s:{a}", n) for a, n in quotas.spectators.copy().items())
    tables = lobby.tables.copy()
    for address, codes in quotas.created.copy().items():
        waiting = sum(1 for code in list(codes) if code in tables)  # until it is gone
        if waiting:
            fields[f"o:{address}"] = waiting
    fields["c"] = quotas.open
    fields["t"] = sum(1 for e in tables.values() if e.table.stage.value != "over")
    return fields


def beat(client: redis.Redis, node: str, fields: dict[str, int]) -> None:
    """The hash rewritten whole from ``fields``, with a lease's life (the thread's
    blocking client; a node starting writes its first the same way)."""
    key = live_key(node)
    with client.pipeline(transaction=True) as pipe:
        pipe.delete(key)
        # Never empty: "c" and "t" are always there.
        pipe.hset(key, mapping=cast("dict[Any, Any]", fields))
        pipe.pexpire(key, LIVE_TTL_MS)
        pipe.sadd(NODES, node)
        pipe.execute()


# ---------------------------------------------------------------------- the app's side
# Each takes ``live``, this node's ``LiveCounts`` (None on a single server: nothing to
# count across), and the node's own ``Quotas``.


async def _admit(live: LiveCounts, checks: list[Check]) -> Refusal | None:
    try:
        return await live.admit(checks)
    except Exception as error:  # Redis away: the node's own quotas still hold
        log.warning("node %s could not count across the cluster: %r", live.node, error)
        return None


def _server_full(limit: int) -> Callable[[int], Refusal]:
    return lambda held: Refusal(
        "server_full",
        f"these servers hold at most {limit} connections; try again later",
        30,
        503,
    )


async def shared_connection(
    live: LiveCounts | None, quotas: Quotas, address: str
) -> Refusal | None:
    """A WebSocket from ``address`` the node's ``Quotas.open_connection`` admitted:
    admitted across the cluster too, or refused and no longer counted here either."""
    if live is None:
        return None
    limits = quotas.limits
    cap = limits.connections_per_address
    refusal = await _admit(
        live,
        [
            Check("c", limits.max_connections, quotas.open, _server_full(limits.max_connections)),
            Check(
                f"c:{address}",
                cap,
                quotas.connections.get(address, 0),
                lambda held: Refusal(
                    "too_many_connections",
                    f"at most {cap} connections from one address, across the servers "
                    f"(you hold {held}); close one first",
                    30,
                ),
            ),
        ],
    )
    if refusal is not None:
        quotas.close_connection(address, spectator=False)
    return refusal


async def shared_spectator(live: LiveCounts | None, quotas: Quotas, address: str) -> Refusal | None:
    """A spectator from ``address`` the node's ``Quotas.spectate`` admitted: admitted
    across the cluster too, or refused and no longer counted here either."""
    if live is None:
        return None
    cap = quotas.limits.spectators_per_address
    refusal = await _admit(
        live,
        [
            Check(
                f"s:{address}",
                cap,
                quotas.spectators.get(address, 0),
                lambda held: Refusal(
                    "too_many_spectators",
                    f"at most {cap} spectators from one address, across the servers",
                    30,
                ),
            )
        ],
    )
    if refusal is not None:
        quotas.unspectate(address)
    return refusal


async def shared_table(
    live: LiveCounts | None, quotas: Quotas, lobby: Lobby, address: str
) -> Refusal | None:
    """May ``address`` make one more table (``Quotas.create_table`` said yes here)? Its
    open tables and every node's tables counted across the cluster."""
    if live is None:
        return None
    limits = quotas.limits
    cap, most = limits.open_tables_per_address, limits.max_tables
    return await _admit(
        live,
        [
            Check(
                "t",
                most,
                lobby.live_count() + 1,
                lambda held: Refusal(
                    "too_many_tables",
                    f"these servers run at most {most} tables; try again later",
                    60,
                    503,
                ),
            ),
            Check(
                f"o:{address}",
                cap,
                len(quotas.created.get(address, ())) + 1,
                lambda held: Refusal(
                    "too_many_open_tables",
                    f"you have {held} tables open, across the servers (at most {cap} "
                    "from one address): finish or leave one first",
                    60,
                ),
            ),
        ],
    )


def connection_closed(
    live: LiveCounts | None, quotas: Quotas, address: str, spectator: bool
) -> None:
    """After ``Quotas.close_connection``: the node's new counts, written in the
    background."""
    if live is None:
        return
    fields = {f"c:{address}": quotas.connections.get(address, 0), "c": quotas.open}
    if spectator:
        fields[f"s:{address}"] = quotas.spectators.get(address, 0)
    live.let_go(fields)
