"""The directory rebuilt from PostgreSQL after Redis lost its data (``cluster/recovery.py``):
no lease is handed out until it is whole, the rebuilt fencing counter outranks every
stored token, a node's leases are kept meanwhile and put back as the database has them,
a new table's code is none the database has; and the shared rates let a request
through when Redis does not answer."""

from __future__ import annotations

import asyncio
import functools
from types import SimpleNamespace

import pytest
import redis
import redis.asyncio as aioredis

from nertz.engine import Rules
from nertz.server.cluster.fencing import claim
from nertz.server.cluster.leases import DirectoryLost, Lease, Leases, Renewer
from nertz.server.cluster.node import ClusterNode
from nertz.server.cluster.quotas import shared_lookup, shared_rate
from nertz.server.cluster.recovery import Directory, Recovery, stored_directory
from nertz.server.door.limits import Limits, Quotas
from nertz.server.lobby.lobby import SERIES_KEPT_S, Lobby
from nertz.server.store.schema import matches_t, tables_t
from nertz.server.store.store import Store
from nertz.server.table.settings import Settings

from .. import services


def _recovery(client: aioredis.Redis, store: Store, node: str) -> Recovery:
    nothing = Directory({}, {}, {}, 0)
    read = functools.partial(stored_directory, store.engine, SERIES_KEPT_S)
    return Recovery(client, node, 4000, read, lambda: nothing)


def test_a_lease_after_redis_lost_its_data_outranks_every_stored_token(
    pg_url: str, redis_clean: str
) -> None:
    """A table written by n1 with token 7, then Redis restarted empty: its fencing
    counter would start again at 1, below the row's token, and no node could take the
    table over (its claim refused). No lease is handed out before the rebuild, and after
    it every token is above 7; n1's lease is back as the database has it."""
    store = Store(pg_url)
    assert claim(store.engine, "t1", "n1", 7)
    held = Lease("t1", "n1", 7)
    renewer = Renewer(redis_clean)

    async def go() -> None:
        client = aioredis.Redis.from_url(redis_clean)
        leases = Leases(client, "n2")
        with pytest.raises(DirectoryLost):
            await leases.acquire("t2")
        kept = renewer.renew([held])  # n1 keeps running its table meanwhile
        assert kept.lost == [] and not kept.whole
        recovery = _recovery(client, store, "n2")
        assert await recovery.ensure() and recovery.rebuilt == 1
        assert not await recovery.ensure()  # whole: nothing more to do
        assert await leases.owner("t1") == "n1"
        lease = await leases.acquire("t2")
        assert lease is not None and lease.token > 7
        assert claim(store.engine, "t2", "n2", lease.token)
        renewed = renewer.renew([held])
        assert renewed.lost == [] and renewed.whole
        await client.delete("nertz:lease:t1")  # lapsed with the directory whole: lost
        assert renewer.renew([held]).lost == [held]
        await client.aclose()

    try:
        asyncio.run(go())
    finally:
        renewer.close()
        store.close()


def test_two_nodes_rebuilding_at_once_write_the_directory_once(
    pg_url: str, redis_clean: str
) -> None:
    store = Store(pg_url)
    assert claim(store.engine, "t1", "n1", 3)

    async def go() -> list[bool]:
        clients = [aioredis.Redis.from_url(redis_clean) for _ in range(2)]
        recoveries = [_recovery(c, store, f"n{i}") for i, c in enumerate(clients)]
        done = await asyncio.gather(*(r.ensure() for r in recoveries))
        assert sum(r.rebuilt for r in recoveries) == 1
        for c in clients:
            await c.aclose()
        return list(done)

    try:
        assert asyncio.run(go()) == [True, True]  # both waited for a whole directory
    finally:
        store.close()
    with redis.Redis.from_url(redis_clean) as client:
        assert client.get("nertz:lease:t1") == b"n1:3"


def test_the_shared_rates_let_a_request_through_when_redis_does_not_answer() -> None:
    """The node's own quotas still hold; the request is not answered 500."""
    gone = f"redis://127.0.0.1:{services.free_port()}/0"

    async def go() -> None:
        client = aioredis.Redis.from_url(gone)
        node = SimpleNamespace(id="n1", redis=client)
        quotas = Quotas(Limits())
        assert await shared_rate(node, quotas, "creates", "10.0.0.7") is None
        assert await shared_lookup(node, quotas, "10.0.0.7") is None
        await client.aclose()

    asyncio.run(go())


def test_a_new_table_after_redis_lost_its_data_takes_no_finished_tables_code(
    pg_url: str, redis_clean: str
) -> None:
    """A table over long ago (made by another node, after this one started) keeps its
    code only in the database once Redis has lost its data: a new table must not get
    it, or its first record could never be written (the code is unique)."""
    store = Store(pg_url)
    lobby = Lobby(store)
    with store.engine.begin() as conn:  # another node's table, over for a day
        conn.execute(
            tables_t.insert().values(
                id="old", code="OLDOLD", public=True, rules="{}", settings="{}", created=1.0
            )
        )
        conn.execute(matches_t.insert().values(table_id="old", started=1.0, finished=2.0))
    offered = iter(["OLDOLD", "NEWNEW"])
    lobby.new_code = lambda: next(offered)  # type: ignore[method-assign]

    async def go() -> str:
        node = ClusterNode("n1", redis_clean, lobby, store)
        await node.start()  # a Redis with nothing in it: the directory rebuilt
        try:
            entry, _ = await node.create(Rules(), Settings(seats=2))
            return entry.code
        finally:
            await lobby.stop()
            await asyncio.to_thread(store.flush)
            await node.stop()

    try:
        assert asyncio.run(go()) == "NEWNEW"
        assert store.errors == 0
    finally:
        store.close()
