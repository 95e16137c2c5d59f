"""Takeovers read in batches: what is asked together is answered by one call."""

from __future__ import annotations

import asyncio

import pytest

from nertz.server.cluster.batches import Coalesced
from nertz.server.cluster.fencing import claim, claim_many


def test_requests_made_together_are_answered_by_one_call_each_its_own() -> None:
    calls: list[dict[str, int]] = []

    async def run(asked: dict[str, int]) -> dict[str, int]:
        calls.append(asked)
        await asyncio.sleep(0)
        return {k: v * 10 for k, v in asked.items()}

    async def main() -> list[int]:
        batched = Coalesced(run)
        return await asyncio.gather(*(batched(f"t{i}", i) for i in range(50)))

    assert asyncio.run(main()) == [i * 10 for i in range(50)]
    assert calls == [{f"t{i}": i for i in range(50)}]


def test_a_failed_call_fails_its_requests_and_the_next_ones_go_on() -> None:
    async def run(asked: dict[str, int]) -> dict[str, int]:
        if "bad" in asked:
            raise RuntimeError("the database went away")
        return dict(asked)

    async def main() -> int:
        batched = Coalesced(run)
        with pytest.raises(RuntimeError):
            await batched("bad", 1)
        return await batched("good", 2)

    assert asyncio.run(main()) == 2


def test_a_claim_only_ever_raises_a_tables_token(pg_url: str) -> None:
    from nertz.server.store.store import Store

    store = Store(pg_url)
    try:
        assert claim_many(store.engine, "n1", {"a": 5, "b": 5, "c": 5}) == {"a", "b", "c"}
        assert claim_many(store.engine, "n2", {"a": 4, "b": 6, "d": 6}) == {"b", "d"}
        assert not claim(store.engine, "c", "n2", 5)  # the same token is no raise
        assert claim(store.engine, "c", "n2", 7)
    finally:
        store.close()
