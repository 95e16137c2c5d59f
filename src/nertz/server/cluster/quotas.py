"""The per-address rates that must span a cluster: new tables and joins a minute.

A node's own ``Quotas`` (``limits.py``) count what one client does *there*; behind a
round-robin balancer the same client would get a full share from every node. So a
cluster node also counts each create and join in Redis, in one key per kind, address
and minute (``INCR`` and an expiry in one transaction), and refuses past the limit. A
fixed minute, not a sliding one: at a minute's turn a client may get up to twice the
rate for a moment, which a limit meant to stop floods can afford. Counted on the node
that does the work, after any redirect, so a routed request counts once.
"""

from __future__ import annotations

import math
import time
from typing import Any

from ..limits import Refusal

__all__ = ["WINDOW_S", "shared_rate"]

WINDOW_S = 60


async def shared_rate(state: dict[str, Any], kind: str, address: str) -> Refusal | None:
    """Count one ``kind`` (``creates`` or ``joins``) from ``address`` across the
    cluster; a refusal past the limit a minute (None on a single server)."""
    node = state.get("cluster")
    if node is None:
        return None
    limits = state["quotas"].limits
    limit = limits.creates_per_minute if kind == "creates" else limits.joins_per_minute
    now = time.time()
    key = f"nertz:rate:{kind}:{address}:{int(now // WINDOW_S)}"
    async with node.redis.pipeline(transaction=True) as pipe:
        pipe.incr(key)
        pipe.expire(key, 2 * WINDOW_S)
        count, _ = await pipe.execute()
    if int(count) <= limit:
        return None
    wait = max(1, math.ceil(WINDOW_S - now % WINDOW_S))
    what = "new tables" if kind == "creates" else "joins"
    return Refusal(
        f"too_many_{kind}",
        f"at most {limit} {what} a minute from one address, across the servers; "
        f"try again in {wait} s",
        wait,
    )
