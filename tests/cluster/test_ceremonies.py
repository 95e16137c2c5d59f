"""Passkey ceremonies across a cluster's nodes (``cluster/ceremonies.py``): the balancer
sends a browser's two requests anywhere, so a ceremony begun on one node is answered on
another, and still only once (issue 26, point 1)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
import redis.asyncio as aioredis

from nertz.server.cluster.ceremonies import shared_keep, shared_take
from nertz.server.door.requests import RequestError
from nertz.server.lobby.passkeys import Ceremonies, RelyingParty

PARTY = RelyingParty.of(("https://nertz.example.org",))


def _node(url: str, name: str) -> Any:
    """What the shared ceremonies read of a node: its id and its Redis."""
    return SimpleNamespace(id=name, redis=aioredis.Redis.from_url(url))


async def _refused(call: Any) -> str:
    with pytest.raises(RequestError) as caught:
        await call
    return caught.value.code


def test_a_ceremony_begun_on_one_node_is_answered_on_another_once(redis_clean: str) -> None:
    async def go() -> None:
        one, two = _node(redis_clean, "n1"), _node(redis_clean, "n2")
        here, there = Ceremonies(PARTY, cap=10), Ceremonies(PARTY, cap=10)
        ceremony, options = here.register("register", "acc1", "Ann", [])
        await shared_keep(one, here, ceremony)
        found = await shared_take(two, there, ceremony, "register")  # the other node
        assert (found.kind, found.account, found.name) == ("register", "acc1", "Ann")
        assert found.challenge == here.peek(ceremony).challenge  # type: ignore[union-attr]
        # Answered once: neither node takes it again, not even the one that began it.
        assert await _refused(shared_take(two, there, ceremony, "register")) == "unknown_ceremony"
        assert await _refused(shared_take(one, here, ceremony, "register")) == "unknown_ceremony"

        # Begun and answered on the same node: the other node finds nothing after.
        again, _ = here.signin()
        await shared_keep(one, here, again)
        assert (await shared_take(one, here, again, "signin")).kind == "signin"
        assert await _refused(shared_take(two, there, again, "signin")) == "unknown_ceremony"

        # Another kind, or an id of no ceremony (however long), is no ceremony.
        third, _ = here.signin()
        await shared_keep(one, here, third)
        assert await _refused(shared_take(two, there, third, "add")) == "unknown_ceremony"
        assert await _refused(shared_take(two, there, "x" * 5000, "add")) == "unknown_ceremony"
        assert options["rp"]["id"] == "nertz.example.org"
        assert await one.redis.ttl(f"nertz:ceremony:{ceremony}") == -2  # gone from Redis
        for node in (one, two):
            await node.redis.aclose()

    asyncio.run(go())


def test_a_single_server_keeps_its_ceremonies_in_memory_alone() -> None:
    async def go() -> None:
        alone = Ceremonies(PARTY, cap=10)
        ceremony, _ = alone.signin()
        await shared_keep(None, alone, ceremony)
        assert alone.peek(ceremony) is not None and not alone.peek(ceremony).shared  # type: ignore[union-attr]
        assert (await shared_take(None, alone, ceremony, "signin")).kind == "signin"

    asyncio.run(go())
