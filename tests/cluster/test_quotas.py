"""The rates that span a cluster: a client spread over nodes by the balancer gets one
share, not one per node (``cluster/quotas.py``)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import redis.asyncio as aioredis

from nertz.server.cluster.quotas import shared_rate
from nertz.server.limits import Limits, Quotas


def _node(url: str, limits: Limits) -> dict[str, Any]:
    """What ``shared_rate`` reads of a node's app state: its Redis and its limits."""
    return {
        "cluster": SimpleNamespace(redis=aioredis.Redis.from_url(url)),
        "quotas": Quotas(limits),
    }


def test_creates_and_joins_are_counted_across_the_nodes(redis_clean: str) -> None:
    async def go() -> list[str | None]:
        limits = Limits(creates_per_minute=3, joins_per_minute=5)
        nodes = [_node(redis_clean, limits) for _ in range(3)]
        creates = [await shared_rate(n, "creates", "10.0.0.7") for n in nodes]  # one each
        fourth = await shared_rate(nodes[0], "creates", "10.0.0.7")
        other = await shared_rate(nodes[1], "creates", "10.0.0.8")  # another address
        joins = [await shared_rate(nodes[i % 3], "joins", "10.0.0.7") for i in range(6)]
        for n in nodes:
            await n["cluster"].redis.aclose()
        assert creates == [None, None, None] and other is None
        assert fourth is not None and fourth.code == "too_many_creates"
        assert "across the servers" in fourth.reason and 1 <= fourth.retry_after_s <= 60
        return [None if j is None else j.code for j in joins]

    assert asyncio.run(go()) == [None] * 5 + ["too_many_joins"]


def test_a_single_server_counts_nothing_in_redis() -> None:
    state = {"cluster": None, "quotas": Quotas(Limits(creates_per_minute=1))}
    assert asyncio.run(shared_rate(state, "creates", "10.0.0.7")) is None
