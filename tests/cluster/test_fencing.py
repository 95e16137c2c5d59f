"""The store's fencing on PostgreSQL, on both of the writer's paths: a batch of plays
(one pipelined round trip) and any other batch (the guard's own transaction)."""

from __future__ import annotations

from sqlalchemy import select

from nertz.server.cluster.fencing import FencedPlays, OwnerGuard, claim
from nertz.server.store.schema import events_t, inputs_t, seats_t
from nertz.server.store.store import Store
from nertz.server.table.records import EventRecord, InputRecord, SeatRecord


def _stored(store: Store, table_id: str) -> tuple[list[int], list[int], list[int]]:
    with store.engine.connect() as conn:
        events = conn.execute(select(events_t.c.version).where(events_t.c.table_id == table_id))
        inputs = conn.execute(select(inputs_t.c.idx).where(inputs_t.c.table_id == table_id))
        seats = conn.execute(select(seats_t.c.seat).where(seats_t.c.table_id == table_id))
        return sorted(events.scalars()), sorted(inputs.scalars()), sorted(seats.scalars())


def test_plays_are_written_while_the_token_holds_and_refused_once_another_node_claims(
    pg_url: str,
) -> None:
    store = Store(pg_url)
    guard = OwnerGuard()
    plays = FencedPlays(store.engine, guard)
    store.guard, store.fast = guard, plays
    refused: list[str] = []
    store.on_refused = refused.append
    try:
        assert claim(store.engine, "t1", "n1", 5) and claim(store.engine, "t2", "n1", 6)
        guard.tokens.update({"t1": 5, "t2": 6})
        for table_id in ("t1", "t2"):
            store.submit(table_id, [InputRecord(1, 0, 100, 0, "T"), EventRecord(1, b"{}")])
        store.flush()
        assert plays.batches >= 1
        store.submit("t1", [SeatRecord(0, "ann", "h", None)])  # not a play: the usual way
        store.flush()
        assert _stored(store, "t1") == ([1], [0], [0])
        assert _stored(store, "t2") == ([1], [0], [])

        assert claim(store.engine, "t1", "n2", 7)  # t1 taken over elsewhere
        store.submit("t1", [InputRecord(1, 1, 200, 1, "T"), EventRecord(2, b"{}")])
        store.submit("t2", [InputRecord(1, 1, 200, 1, "T"), EventRecord(2, b"{}")])
        store.flush()
        store.submit("t1", [SeatRecord(1, "bo", "h", None)])
        store.flush()
        assert _stored(store, "t1") == ([1], [0], [0])  # nothing more of the fenced node
        assert _stored(store, "t2") == ([1, 2], [0, 1], [])  # its other table goes on
        assert store.refused == 2 and store.errors == 0
    finally:
        store.close()
