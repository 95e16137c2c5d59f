"""The per-address rates that must span a cluster.

A node's own ``Quotas`` (``limits.py``) count what one client does *there*; behind a
round-robin balancer the same client would get a full share from every node. So a
cluster node also counts, in Redis, each new table, join, score sheet, new browser,
history read and miss (an unknown code or a wrong invite), in one key per kind, address
and window (``INCR`` and an expiry in one transaction), and refuses past the limit. A
fixed window, not a sliding one: at a window's turn a client may get up to twice the
rate for a moment, which a limit meant to stop floods can afford. Counted on the node
that does the work, after any redirect, so a routed request counts once. On a single
server every function here answers at once and counts nothing. If Redis does not
answer (or has just lost its counters), the node's own quotas still hold: the count is
let through, as the live counts are (``live.py``).
"""

from __future__ import annotations

import logging
import math
import time

import redis

from nertz.server.cluster.node import ClusterNode
from nertz.server.door.limits import Limits, Quotas, Refusal

__all__ = ["RATES", "shared_lookup", "shared_missed", "shared_rate"]

RATES: dict[str, tuple[str, int, str]] = {
    "creates": ("creates_per_minute", 60, "new tables a minute"),
    "joins": ("joins_per_minute", 60, "joins a minute"),
    "sheets": ("sheets_per_hour", 3600, "new score sheets an hour"),
    "devices": ("devices_per_hour", 3600, "new browsers an hour"),
    "bots": ("bots_per_day", 86_400, "new bots a day"),
    "accounts": ("accounts_per_day", 86_400, "new accounts a day"),
    "ceremonies": ("ceremonies_per_minute", 60, "passkey requests a minute"),
    "recoveries": ("recoveries_per_hour", 3600, "recovery codes an hour"),
    "histories": ("histories_per_minute", 60, "histories and match pages a minute"),
    "misses": ("misses_per_minute", 60, "unknown codes or wrong invites a minute"),
}
"""Kind -> the ``Limits`` field that bounds it, its window (s), and its words."""

log = logging.getLogger("nertz.cluster")


def _key(kind: str, address: str, now: float) -> str:
    window = RATES[kind][1]
    return f"nertz:rate:{kind}:{address}:{int(now // window)}"


def _refusal(limits: Limits, kind: str, count: int, now: float) -> Refusal | None:
    field, window, words = RATES[kind]
    limit: int = getattr(limits, field)
    if count <= limit:
        return None
    wait = max(1, math.ceil(window - now % window))
    return Refusal(
        f"too_many_{kind}",
        f"at most {limit} {words} from one address, across the servers; try again in {wait} s",
        wait,
    )


async def _count(node: ClusterNode, kind: str, address: str, now: float) -> int:
    """The window's count with this one (0 if Redis does not answer)."""
    key = _key(kind, address, now)
    try:
        async with node.redis.pipeline(transaction=True) as pipe:
            pipe.incr(key)
            pipe.expire(key, 2 * RATES[kind][1])
            count, _ = await pipe.execute()
    except (redis.RedisError, OSError) as error:
        log.warning("node %s could not count %s across the cluster: %r", node.id, kind, error)
        return 0
    return int(count)


async def shared_rate(
    node: ClusterNode | None, quotas: Quotas, kind: str, address: str
) -> Refusal | None:
    """Count one ``kind`` (a key of ``RATES``) from ``address`` across the cluster of
    ``node``; a refusal past its limit (None on a single server: no ``node``)."""
    if node is None:
        return None
    now = time.time()
    refusal = _refusal(quotas.limits, kind, await _count(node, kind, address, now), now)
    if refusal is not None:
        quotas.memory.remember(address, refusal)  # this node's door answers it again
    return refusal


async def shared_lookup(node: ClusterNode | None, quotas: Quotas, address: str) -> Refusal | None:
    """May ``address`` look a table up, its misses across the cluster not spent? (The
    node's own ``Quotas.lookup`` first; a lookup itself counts nothing.)"""
    refusal = quotas.lookup(address)
    if refusal is not None or node is None:
        return refusal
    now = time.time()
    try:
        spent = await node.redis.get(_key("misses", address, now))
    except (redis.RedisError, OSError) as error:
        log.warning("node %s could not read the misses across the cluster: %r", node.id, error)
        spent = None  # none known: this node's own misses still count
    refusal = _refusal(quotas.limits, "misses", int(spent or 0) + 1, now)
    if refusal is not None:
        quotas.memory.remember(address, refusal)
    return refusal


async def shared_missed(node: ClusterNode | None, quotas: Quotas, address: str) -> None:
    """``address`` asked for a table that does not exist, or that it holds no key to:
    counted on this node (``Quotas.missed``) and across the cluster."""
    quotas.missed(address)
    if node is not None:
        await _count(node, "misses", address, time.time())
