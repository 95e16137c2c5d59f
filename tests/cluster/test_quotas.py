"""The rates that span a cluster: a client spread over nodes by the balancer gets one
share, not one per node (``cluster/quotas.py``)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import redis.asyncio as aioredis

from nertz.server.cluster.quotas import shared_lookup, shared_missed, shared_rate
from nertz.server.door.limits import Limits, Quotas


def _node(url: str, limits: Limits) -> Any:
    """What ``shared_rate`` reads of a node's services: its Redis and its quotas."""
    return SimpleNamespace(
        cluster=SimpleNamespace(redis=aioredis.Redis.from_url(url)), quotas=Quotas(limits)
    )


def _rate(node: Any, kind: str, address: str) -> Any:
    return shared_rate(node.cluster, node.quotas, kind, address)


def _lookup(node: Any, address: str) -> Any:
    return shared_lookup(node.cluster, node.quotas, address)


def _missed(node: Any, address: str) -> Any:
    return shared_missed(node.cluster, node.quotas, address)


def test_creates_and_joins_are_counted_across_the_nodes(redis_clean: str) -> None:
    async def go() -> list[str | None]:
        limits = Limits(creates_per_minute=3, joins_per_minute=5)
        nodes = [_node(redis_clean, limits) for _ in range(3)]
        creates = [await _rate(n, "creates", "10.0.0.7") for n in nodes]  # one each
        fourth = await _rate(nodes[0], "creates", "10.0.0.7")
        other = await _rate(nodes[1], "creates", "10.0.0.8")  # another address
        joins = [await _rate(nodes[i % 3], "joins", "10.0.0.7") for i in range(6)]
        for n in nodes:
            await n.cluster.redis.aclose()
        assert creates == [None, None, None] and other is None
        assert fourth is not None and fourth.code == "too_many_creates"
        assert "across the servers" in fourth.reason and 1 <= fourth.retry_after_s <= 60
        return [None if j is None else j.code for j in joins]

    assert asyncio.run(go()) == [None] * 5 + ["too_many_joins"]


def test_a_single_server_counts_nothing_in_redis() -> None:
    quotas = Quotas(Limits(creates_per_minute=1))
    assert asyncio.run(shared_rate(None, quotas, "creates", "10.0.0.7")) is None


def test_every_shared_rate_has_its_own_limit_and_window(redis_clean: str) -> None:
    """Score sheets and new browsers an hour, histories a minute: each its own count,
    refused past its ``Limits`` field, told when to try again within its window."""

    async def go() -> dict[str, list[str | None]]:
        limits = Limits(sheets_per_hour=2, devices_per_hour=1, histories_per_minute=3)
        nodes = [_node(redis_clean, limits) for _ in range(3)]
        out: dict[str, list[str | None]] = {}
        for kind in ("sheets", "devices", "histories"):
            answers = [await _rate(nodes[i % 3], kind, "10.0.0.9") for i in range(4)]
            out[kind] = [None if a is None else a.code for a in answers]
            last = answers[-1]
            assert last is not None and "across the servers" in last.reason
            window = 3600 if kind != "histories" else 60
            assert 1 <= last.retry_after_s <= window
        for n in nodes:
            await n.cluster.redis.aclose()
        return out

    assert asyncio.run(go()) == {
        "sheets": [None, None, "too_many_sheets", "too_many_sheets"],
        "devices": [None, "too_many_devices", "too_many_devices", "too_many_devices"],
        "histories": [None, None, None, "too_many_histories"],
    }


def test_misses_on_one_node_slow_lookups_on_every_node(redis_clean: str) -> None:
    """Probing for private codes spread over the nodes gets one share of misses: once
    they are spent on any nodes, every node refuses the next lookup (a lookup that
    finds its table counts nothing)."""

    async def go() -> list[str | None]:
        limits = Limits(misses_per_minute=3)
        nodes = [_node(redis_clean, limits) for _ in range(3)]
        answers = []
        for i in range(3):  # three misses, one on each node, each looked up first
            answers.append(await _lookup(nodes[i], "10.0.0.5"))
            await _missed(nodes[i], "10.0.0.5")
        for n in nodes:  # every node now refuses, though each saw only one miss
            answers.append(await _lookup(n, "10.0.0.5"))
        answers.append(await _lookup(nodes[0], "10.0.0.6"))  # another address
        for n in nodes:
            await n.cluster.redis.aclose()
        return [None if a is None else a.code for a in answers]

    assert asyncio.run(go()) == [None] * 3 + ["too_many_misses"] * 3 + [None]
