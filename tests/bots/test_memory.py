"""Memory: built from a view and kept up to date by events, it always agrees with a
fresh view of the seat (R4, R6, R21: only what the seat can see), jokers included
(R41: where they lie, what the middle takes after a landed one, the open
announcements)."""

from __future__ import annotations

from typing import Any

import pytest

from nertz.bots import Bot
from nertz.bots.memory import Memory
from nertz.engine import Card, Hand, Move, Rules, deal, view
from nertz.sim import table


def _visible(m: Memory) -> tuple[Any, ...]:
    return (
        m.nertz_top,
        m.nertz_count,
        m.work,
        m.stock_count,
        m.waste[-1:],
        m.wants,
        m.nertz_counts,
        m.middle,
        m.stuck,
        m.announced,
    )


@pytest.mark.parametrize(
    "options",
    [{}, {"draw": "1", "nertz_pile": "11"}, {"jokers": "on"}, {"jokers": "on", "draw": "1"}],
)
def test_memory_agrees_with_a_fresh_view_after_every_event(options: dict[str, str]) -> None:
    hands: list[Hand] = []
    checks = 0
    seen = {"announced": 0, "landed": 0, "jokers": 0}

    class Checking(Bot):
        def decide(
            self, now_ms: int, avoid: frozenset[int] = frozenset(), role: str | None = None
        ) -> Any:
            nonlocal checks
            seat_view = view(hands[-1], self.seat)
            fresh = Memory(seat_view)
            assert self.memory is not None
            assert _visible(self.memory) == _visible(fresh)
            assert len(self.memory.waste) == seat_view["seats"][self.seat]["waste_count"]
            checks += 1
            seen["announced"] += bool(self.memory.announced)
            seen["landed"] += any(f["top_as"] for f in seat_view["foundations"])
            seen["jokers"] += any(c.rank == 0 for p in self.memory.work for c in p)
            return super().decide(now_ms, avoid, role)

    rules = Rules().with_text(options)
    for seed in range(3):
        bots = [Checking(s, "expert", "balanced", seed * 4 + s) for s in range(3)]
        table.play_hand(bots, rules, seed, watch=hands.append)
    assert checks > 300
    if "jokers" in options:  # the jokers were really there to follow (R41)
        assert min(seen.values()) > 10, seen


def test_memory_remembers_waste_cards_below_the_fan() -> None:
    """A view shows only the last turn's cards (R21); the seat saw the earlier ones."""
    rules = Rules()
    hand = Hand(deal(1, rules, 5), rules)
    memory = Memory(view(hand, 0))
    hand.start(0)
    turned: list[Card] = []
    for t in (1, 2):
        outcome = hand.play(0, Move.parse("T"), t)
        memory.observe(outcome.events)
        turned += outcome.events[0].cards  # type: ignore[attr-defined]
    assert len(view(hand, 0)["seats"][0]["waste"]) == 3
    assert memory.waste == turned
    assert len(memory.waste) == 6
