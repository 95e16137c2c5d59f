"""The table actor: a table that raises is rebuilt from the store and goes on."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nertz.engine import Deal, Rules
from nertz.server.lobby.actor import Clock, TableActor
from nertz.server.protocol import Play, Ready
from nertz.server.store.store import Store, TableCreated
from nertz.server.table.commands import Connect, Inbound, Join, Stage
from nertz.server.table.table import Table

from .harness import token_hash
from .test_table import fast


class Box:
    """An outbox that keeps what it is given."""

    def __init__(self) -> None:
        self.got: list[dict[str, Any]] = []
        self.closed: str | None = None

    def send(self, body: bytes) -> None:
        self.got.append(json.loads(body))

    def send_timed(self, body: bytes, answered: Callable[[], None]) -> None:
        self.send(body)  # no ping frames here: never answered

    def close(self, reason: str) -> None:
        self.closed = reason


async def until(done: Callable[[], bool], seconds: float = 10.0) -> None:
    """Wait for the actor (polling, so a loaded machine only makes it slower)."""
    for _ in range(int(seconds / 0.01)):
        if done():
            return
        await asyncio.sleep(0.01)


ANN = "nertz: KC; work: AD / 6S / 9C / 4C; stock: 2C 3C 7H; waste: -"
"""Ann only turns her stock. Her ace of diamonds stays in sight: a seat with an ace in
sight is never blocked (R24), so the table never rotates nor ends blocked (R25, R26)."""
BOT = "nertz: 9S 2H AH; work: KS / KC / KH / KD; stock: 3H 4H 5H QD QH 6H 7H; waste: -"
"""Each bot plays a few seconds (hearts to the middle, queens on its kings) and can
never call (R27): no ace of spades is dealt and it has no red 10, so its 9S never
leaves the Nertz pile, and its kings never leave a space for it. At 20x a random hand
of these bots could end within a second, before the test's last play on a loaded
machine; this one lasts until the test is done however long it takes."""


async def _scenario(store: Store) -> None:
    rules = Rules().with_options(idle_rotate_s=0)  # no idle rotation either (R25)
    dealt = Deal.from_layouts([ANN, BOT, BOT, BOT])
    settings = fast(countdown_ms=100)
    table = Table("TEST", rules, settings, dealer=lambda seats, rules, seed: dealt)
    created = TableCreated("TEST", None, True, rules.as_dict(), settings.as_dict(), 0.0)
    store.submit("t1", [created])
    actor = TableActor("t1", table, store, Clock(speed=20.0))
    actor.start()
    box = Box()
    actor.outboxes[1] = box
    assert await actor.request(Join("ann", token_hash("t0"))) == ((0, 0), None)
    actor.submit(Connect(1, token_hash("t0")))
    actor.submit(Inbound(1, Ready()))
    for _ in range(200):
        await asyncio.sleep(0.01)
        if actor.table.stage is Stage.PLAYING:
            break
    assert actor.table.stage is Stage.PLAYING
    hand = actor.table.hand
    assert hand is not None
    await until(lambda: sum(seat > 0 for _, seat, _ in hand.log) >= 6)  # the bots play a little
    broken = actor.table
    snapshot = broken.hand.snapshot() if broken.hand else None

    def boom(*args: Any) -> bool:
        raise RuntimeError("a bug in the table")

    broken._inbound = boom  # type: ignore[method-assign]
    # What the table had settled before the failing input: all of it was stored. (Bot
    # moves the failing call itself made before raising were never stored nor sent to
    # anyone, so the rebuilt table may play on differently from there.)
    settled = list(broken.hand.log) if broken.hand else []
    mark = len(box.got)
    actor.submit(Inbound(1, Play(1, "T")))
    # The rebuilt table's fresh state leaves after its group commit, like every message.
    await until(lambda: "state" in [m["type"] for m in box.got[mark:]])
    assert actor.failures == 1
    assert actor.table is not broken  # rebuilt from the store ...
    assert "state" in [m["type"] for m in box.got[mark:]]  # ... everyone gets a fresh state
    assert actor.table.hand is not None
    assert actor.table.hand.log[: len(settled)] == settled
    assert snapshot is not None
    actor.submit(Inbound(1, Play(2, "T")))  # ... and goes on
    await until(lambda: any(m["type"] in ("ack", "refused") and m["seq"] == 2 for m in box.got))
    answers = [m for m in box.got if m["type"] in ("ack", "refused") and m["seq"] == 2]
    assert answers and answers[0]["type"] == "ack"
    await actor.stop()


def test_a_table_that_raises_is_rebuilt_and_carries_on(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "actor.db"))
    asyncio.run(_scenario(store))
    store.close()
