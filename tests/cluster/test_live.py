"""The live counts that span a cluster: what one address holds open (connections,
spectators, open tables) and what all the nodes hold together, counted over every
node (``cluster/live.py``); a node's share rewritten by its beat, with a lease's life."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import redis
import redis.asyncio as aioredis

from nertz.server.cluster.live import (
    LIVE_TTL_MS,
    NODES,
    LiveCounts,
    beat,
    connection_closed,
    live_key,
    mirror,
    shared_connection,
    shared_spectator,
    shared_table,
)
from nertz.server.door.limits import Limits, Quotas


def _nodes(url: str, limits: Limits) -> list[Any]:
    """Two nodes' services: their live counts (in Redis), quotas and tables."""
    nodes = []
    for me in ("n1", "n2"):
        live = LiveCounts(aioredis.Redis.from_url(url), me)
        tables: list[str] = []
        nodes.append(
            SimpleNamespace(
                live=live,
                quotas=Quotas(limits),
                lobby=SimpleNamespace(live_count=lambda tables=tables: len(tables)),
                tables=tables,
            )
        )
    return nodes


async def _close(nodes: list[Any]) -> None:
    for n in nodes:
        await n.live.settled()
        await n.live.client.aclose()


async def _connect(node: Any, address: str) -> str | None:
    """What ``/ws`` does as a connection opens: this node's quota, then the cluster's."""
    quotas = node.quotas
    refusal = quotas.open_connection(address) or await shared_connection(node.live, quotas, address)
    return None if refusal is None else refusal.code


def test_one_address_gets_one_share_of_connections_and_spectators(redis_clean: str) -> None:
    async def go() -> None:
        limits = Limits(connections_per_address=3, spectators_per_address=1)
        n1, n2 = nodes = _nodes(redis_clean, limits)
        ann = "10.0.0.7"
        assert [await _connect(n, ann) for n in (n1, n2, n1)] == [None, None, None]
        refused = n2.quotas.open_connection(ann) or await shared_connection(n2.live, n2.quotas, ann)
        assert refused is not None and refused.code == "too_many_connections"
        assert "across the servers" in refused.reason and refused.retry_after_s == 30
        # Refused: no longer counted on the node that let it in first.
        assert n2.quotas.connections[ann] == 1 and n2.quotas.open == 1
        assert await _connect(n2, "10.0.0.8") is None  # another address meanwhile
        n1.quotas.close_connection(ann, spectator=False)
        connection_closed(n1.live, n1.quotas, ann, spectator=False)
        await n1.live.settled()
        assert await _connect(n2, ann) is None  # one closed on n1: one more on n2

        assert n1.quotas.spectate(ann) is None
        assert await shared_spectator(n1.live, n1.quotas, ann) is None
        assert n2.quotas.spectate(ann) is None  # n2 alone would let it watch
        watching = await shared_spectator(n2.live, n2.quotas, ann)
        assert watching is not None and watching.code == "too_many_spectators"
        assert "across the servers" in watching.reason
        assert ann not in n2.quotas.spectators
        await _close(nodes)

    asyncio.run(go())


def test_open_tables_of_an_address_and_all_the_tables_span_the_nodes(
    redis_clean: str,
) -> None:
    async def go() -> list[str | None]:
        limits = Limits(open_tables_per_address=2, max_tables=3)
        n1, n2 = nodes = _nodes(redis_clean, limits)
        codes = iter(f"T{i}" for i in range(10))

        async def create(node: Any, address: str) -> str | None:
            """As ``POST /api/tables``: this node's quota, the cluster's, the table."""
            quotas = node.quotas
            refusal = quotas.create_table(address, lambda code: True)
            refusal = refusal or await shared_table(node.live, quotas, node.lobby, address)
            if refusal is not None:
                assert "across the servers" in refusal.reason or "these servers" in refusal.reason
                return refusal.code
            code = next(codes)
            quotas.table_created(address, code, lambda code: True)
            node.tables.append(code)
            return None

        answers = [
            await create(n1, "10.0.0.7"),
            await create(n2, "10.0.0.7"),
            await create(n1, "10.0.0.7"),  # n1 holds one of its two: the other is on n2
            await create(n2, "10.0.0.9"),  # three tables on the two nodes
            await create(n1, "10.0.0.9"),
        ]
        await _close(nodes)
        return answers

    assert asyncio.run(go()) == [None, None, "too_many_open_tables", None, "too_many_tables"]


def _entry(stage: str) -> Any:
    return SimpleNamespace(table=SimpleNamespace(stage=SimpleNamespace(value=stage)))


def test_the_beat_rewrites_a_node_s_share_whole_and_gives_it_a_lease_s_life(
    redis_clean: str,
) -> None:
    """Whatever went astray (a write lost, a started table), the next beat writes the
    node's counts as they are; the hash lapses unless the next beat renews it."""
    quotas = Quotas(Limits())
    for address in ("10.0.0.7", "10.0.0.7", "10.0.0.8"):
        assert quotas.open_connection(address) is None
    assert quotas.spectate("10.0.0.8") is None
    for code in ("AAAAAA", "BBBBBB"):
        quotas.table_created("10.0.0.7", code, lambda code: True)
    lobby = SimpleNamespace(tables={"AAAAAA": _entry("seating"), "BBBBBB": _entry("playing")})
    with redis.Redis.from_url(redis_clean) as client:
        client.hset(live_key("n1"), "c:10.0.0.9", 5)  # a count whose close was lost
        beat(client, "n1", mirror(quotas, lobby))  # type: ignore[arg-type]
        stored = {k.decode(): int(v) for k, v in client.hgetall(live_key("n1")).items()}
        life = client.pttl(live_key("n1"))
        named = client.sismember(NODES, "n1")
    assert stored == {
        "c:10.0.0.7": 2,
        "c:10.0.0.8": 1,
        "s:10.0.0.8": 1,
        "o:10.0.0.7": 2,  # BBBBBB has started: it counts until it is gone (issue 24)
        "c": 3,
        "t": 2,
    }
    assert 0 < life <= LIVE_TTL_MS and named  # every other node's sums find it
