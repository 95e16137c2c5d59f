"""Reading tables' records back (a restart, a cluster node taking tables over): many
tables at once, one query per kind of row, rather than a few queries per table and
one per hand (a node taking a hundred tables over reads them in a handful of round
trips). The store calls this; ``store.py`` writes the rows."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, select

from nertz.server.store.chat_rows import recent_chat
from nertz.server.store.schema import events_t, hands_t, inputs_t, seats_t
from nertz.server.table.records import DealRecord, EventRecord, InputRecord, Record, SeatRecord

__all__ = ["read_records"]

_AT_ONCE = 200
"""Tables per query (well under SQLite's limit on bound values)."""


def read_records(conn: Connection, table_ids: Sequence[str]) -> dict[str, list[Record]]:
    """Each table's records in order: its seats, each hand's deal then its inputs, its
    public events, its recent chat."""
    out: dict[str, list[Record]] = {}
    for i in range(0, len(table_ids), _AT_ONCE):
        out.update(_read(conn, list(table_ids[i : i + _AT_ONCE])))
    return out


def _read(conn: Connection, ids: list[str]) -> dict[str, list[Record]]:
    records: dict[str, list[Record]] = {t: [] for t in ids}
    for s in conn.execute(select(seats_t).where(seats_t.c.table_id.in_(ids))):
        records[s.table_id].append(
            SeatRecord(s.seat, s.name, s.token_hash, s.bot, s.partner, bool(s.outside))
        )
    inputs: dict[tuple[str, int], list[Any]] = {}
    for i in conn.execute(
        select(inputs_t)
        .where(inputs_t.c.table_id.in_(ids))
        .order_by(inputs_t.c.table_id, inputs_t.c.hand, inputs_t.c.idx)
    ):
        inputs.setdefault((i.table_id, i.hand), []).append(i)
    for h in conn.execute(
        select(hands_t)
        .where(hands_t.c.table_id.in_(ids))
        .order_by(hands_t.c.table_id, hands_t.c.number)
    ):
        middle = tuple(json.loads(h.middle)) if h.middle else ()
        mine = records[h.table_id]
        mine.append(DealRecord(h.number, tuple(json.loads(h.layouts)), h.seed, middle))
        mine.extend(InputRecord.of_row(i) for i in inputs.get((h.table_id, h.number), ()))
    for e in conn.execute(
        select(events_t)
        .where(events_t.c.table_id.in_(ids))
        .order_by(events_t.c.table_id, events_t.c.version)
    ):
        records[e.table_id].append(EventRecord(e.version, bytes(e.body)))
    for table_id in ids:
        records[table_id] += recent_chat(conn, table_id)
    return records
