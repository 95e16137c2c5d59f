"""The cluster's shared quick-match queue (``cluster/quickshare.py``) on a real Redis,
two nodes' queues in one process, their clocks one hand-moved clock: a seat nobody
picks up lapses and does not keep its person from a table; a seat made for an entry
the person replaced is given up; a dead node's entries lapse."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as aioredis

from nertz.rating import Pairing
from nertz.server.cluster.quickshare import ENTRIES, PAIRER, SEATS, STALE_S, SharedQueue
from nertz.server.lobby.quickmatch import Player, QuickMatch, Seat, Waiting


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _player(name: str, number: int) -> Player:
    return Player(name, name.title(), f"device-{name}", f"203.0.113.{number}")


def _run(redis_url: str, body: Callable[[aioredis.Redis], Awaitable[None]]) -> None:
    async def main() -> None:
        client = aioredis.Redis.from_url(redis_url)
        try:
            await body(client)
        finally:
            await client.aclose()

    asyncio.run(main())


def test_an_old_seat_is_given_up_and_one_nobody_picks_up_lapses(redis_clean: str) -> None:
    clock = Clock()
    made: list[tuple[str, ...]] = []

    async def body(client: aioredis.Redis) -> None:
        one = SharedQueue(client, "n1", QuickMatch(clock=clock))
        two = SharedQueue(client, "n2", QuickMatch(clock=clock))

        async def seating(pairing: Pairing, people: tuple[Waiting, ...]) -> None:
            made.append(pairing.keys)
            for w in people:  # as seat_pairing tells each person
                seat = Seat("NEW", "key", 0, 0, f"token-{w.player.account}", clock())
                await one.tell(w.player.account, seat)

        def here(code: str) -> bool:
            return True  # every table made is still being played

        # A seat made for cid's last entry, which he left; and one for zed, whose page
        # went away before reading it.
        await client.hset(
            SEATS, mapping={"cid": _seat_json(clock.now), "zed": _seat_json(clock.now)}
        )
        clock.now += 1
        one.quick.enter(_player("cid", 1), "solo", 2, 2, 25.0)
        two.quick.enter(_player("bob", 2), "solo", 2, 2, 25.0)
        await one.tick(seating, here)  # cid's old seat is given up, not given to him
        assert one.quick.status("cid")["state"] == "waiting"
        await two.tick(seating, here)
        await one.tick(seating, here)  # one of them pairs both
        assert [sorted(keys) for keys in made] == [["bob", "cid"]], made
        await one.tick(seating, here)
        await two.tick(seating, here)
        assert one.quick.status("cid")["code"] == two.quick.status("bob")["code"] == "NEW"
        assert await client.hkeys(SEATS) == [b"zed"]  # zed's lapses after keep_s
        clock.now += one.quick.keep_s + 1
        await one.tick(seating, here)
        await two.tick(seating, here)
        assert await client.hlen(SEATS) == 0 and await client.hlen(ENTRIES) == 0

    _run(redis_clean, body)


def test_a_dead_node_s_entries_lapse(redis_clean: str) -> None:
    clock = Clock()
    made: list[tuple[str, ...]] = []

    async def body(client: aioredis.Redis) -> None:
        dead = SharedQueue(client, "n1", QuickMatch(clock=clock))
        live = SharedQueue(client, "n2", QuickMatch(clock=clock))

        async def seating(pairing: Pairing, people: tuple[Waiting, ...]) -> None:
            made.append(pairing.keys)

        dead.quick.enter(_player("ann", 1), "solo", 2, 2, 25.0)
        await dead.tick(seating, lambda code: False)  # published, then the node dies
        await client.delete(PAIRER)  # its lock lapsed
        clock.now += STALE_S + 1
        live.quick.enter(_player("bob", 2), "solo", 2, 2, 25.0)
        await live.tick(seating, lambda code: False)
        assert made == [] and await client.hkeys(ENTRIES) == [b"bob"]

    _run(redis_clean, body)


def _seat_json(made: float) -> Any:
    return json.dumps({"seat": ["OLD", "key", 1, 0, "token-old"], "made": made})
