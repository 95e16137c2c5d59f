"""Fencing in the database: a node writes a table's records only while the table's
``table_owners`` row holds that node's token (``leases.py`` hands the tokens out).

``claim`` raises the row to a new token, and only ever upwards. ``OwnerGuard`` is the
store's ``guard``: inside every batch's transaction it reads the rows of the batch's
tables ``FOR SHARE`` and refuses the tables whose token is not the node's. The share
lock holds until the batch commits, so a claim by another node (an UPDATE of that row)
waits for the batch and every later batch sees the new token: a write is either
committed before the takeover, and so read by the new owner's restore, or refused.

``FencedPlays`` is the store's ``fast`` path for the common batch (plays: inputs and
events only): the same share locks, a check that fails the transaction unless every
token is the node's, and the inserts, all in one statement: one round trip to
PostgreSQL instead of five, its own transaction (the writer keeps a connection in
autocommit for it), prepared once, whatever the batch's size (its rows as arrays).
Anything else, and any batch it fails (a refused token, a lost connection), goes the
ordinary way, where ``OwnerGuard`` says which tables are refused.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import psycopg
from sqlalchemy import Connection, Engine, select
from sqlalchemy.dialects import postgresql
from sqlalchemy.pool import PoolProxiedConnection

from nertz.server.store.schema import table_owners_t
from nertz.server.table.records import EventRecord, InputRecord

__all__ = ["FencedPlays", "OwnerGuard", "claim", "claim_many"]

log = logging.getLogger("nertz.store")

# One statement, so one transaction committed as it ends (the writer's connection is in
# autocommit): the rows locked FOR SHARE (in order of id, as claims take them), then a
# division by zero, failing the whole statement with nothing written, unless every row
# holds the token given; the inserts wait for that check (an InitPlan) before any row.
_PLAYS = """
WITH locked AS MATERIALIZED (
    SELECT table_id, token FROM table_owners
    WHERE table_id = ANY(%(ids)s::text[]) ORDER BY table_id FOR SHARE
), ok AS (
    SELECT 1 / (count(*) = %(n)s)::int AS ok FROM locked
    JOIN unnest(%(ids)s::text[], %(tokens)s::bigint[]) AS m(table_id, token)
    ON locked.table_id = m.table_id AND locked.token = m.token
), i AS (
    INSERT INTO inputs (table_id, hand, idx, at_ms, seat, text, arrival_ms, credited_ms)
    SELECT * FROM unnest(
        %(i_table)s::text[], %(i_hand)s::int[], %(i_idx)s::int[], %(i_at)s::bigint[],
        %(i_seat)s::int[], %(i_text)s::text[], %(i_arrival)s::bigint[], %(i_credited)s::bigint[]
    ) WHERE (SELECT ok FROM ok) = 1
), e AS (
    INSERT INTO events (table_id, version, body)
    SELECT * FROM unnest(%(e_table)s::text[], %(e_version)s::int[], %(e_body)s::bytea[])
    WHERE (SELECT ok FROM ok) = 1
)
SELECT ok FROM ok
"""
_INPUT_COLUMNS = (
    *("i_table", "i_hand", "i_idx", "i_at", "i_seat", "i_text", "i_arrival", "i_credited"),
)


def claim(engine: Engine, table_id: str, node: str, token: int) -> bool:
    """Make ``node`` the table's writer with ``token`` (unless a larger token already
    holds it: a node that acquired later got there first); True if it did."""
    return table_id in claim_many(engine, node, {table_id: token})


def claim_many(engine: Engine, node: str, tokens: dict[str, int]) -> set[str]:
    """``claim`` for several tables in one statement (rows in order of id, as the
    writers lock them); the ids claimed."""
    if not tokens:
        return set()
    insert = postgresql.insert(table_owners_t).values(
        [{"table_id": t, "node": node, "token": tokens[t]} for t in sorted(tokens)]
    )
    upsert = insert.on_conflict_do_update(
        index_elements=[table_owners_t.c.table_id],
        set_={"node": insert.excluded.node, "token": insert.excluded.token},
        where=table_owners_t.c.token < insert.excluded.token,
    ).returning(table_owners_t.c.table_id)
    with engine.begin() as conn:
        return {row.table_id for row in conn.execute(upsert)}


class OwnerGuard:
    """The tokens this node holds, checked against the database on every write."""

    def __init__(self) -> None:
        self.tokens: dict[str, int] = {}
        """Table id to the token this node claimed it with."""

    def __call__(self, conn: Connection, table_ids: set[str]) -> set[str]:
        rows = conn.execute(
            select(table_owners_t.c.table_id, table_owners_t.c.token)
            .where(table_owners_t.c.table_id.in_(sorted(table_ids)))
            .with_for_update(read=True)
        )
        stored = {row.table_id: row.token for row in rows}
        refused = set()
        for table_id in table_ids:
            mine = self.tokens.get(table_id)  # one read: the loop may drop it meanwhile
            if mine is None or stored.get(table_id) != mine:
                refused.add(table_id)
        return refused


class FencedPlays:
    """The store's ``fast`` path on PostgreSQL (the module's docstring)."""

    def __init__(self, engine: Engine, guard: OwnerGuard) -> None:
        self.engine = engine
        self.guard = guard
        self._raw: PoolProxiedConnection | None = None
        self.batches = 0
        """Batches written this way (``GET /``)."""

    def __call__(self, work: Sequence[tuple[str, Sequence[object], float, object]]) -> bool:
        """Write ``work`` if it is plays only and every token holds; False (nothing
        written) to let the ordinary path write it, or refuse it."""
        tokens: dict[str, int] = {}
        inputs: list[tuple[Any, ...]] = []
        e_table: list[str] = []
        e_version: list[int] = []
        e_body: list[bytes] = []
        for table_id, records, _, _ in work:
            mine = self.guard.tokens.get(table_id)
            if mine is None:
                return False
            tokens[table_id] = mine
            for r in records:
                if type(r) is InputRecord:
                    at = (r.at_ms, r.seat, r.text, r.arrival_ms, r.credited_ms)
                    inputs.append((table_id, r.hand, r.index, *at))
                elif type(r) is EventRecord:
                    e_table.append(table_id)
                    e_version.append(r.version)
                    e_body.append(r.body)
                else:
                    return False
        ids = sorted(tokens)
        params: dict[str, Any] = {"ids": ids, "n": len(ids), "tokens": [tokens[t] for t in ids]}
        columns = list(zip(*inputs, strict=True)) if inputs else [()] * len(_INPUT_COLUMNS)
        params.update((name, list(c)) for name, c in zip(_INPUT_COLUMNS, columns, strict=True))
        params.update(e_table=e_table, e_version=e_version, e_body=e_body)
        try:
            self._connection().execute(_PLAYS, params, prepare=True)
        except psycopg.Error as error:
            self._failed(error)
            return False
        self.batches += 1
        return True

    def _connection(self) -> psycopg.Connection[Any]:
        fresh = self._raw is None
        if self._raw is None:
            self._raw = self.engine.raw_connection()
        driver = self._raw.driver_connection
        assert isinstance(driver, psycopg.Connection)
        if fresh:
            driver.autocommit = True  # each batch is one statement: its own transaction
        return driver

    def _failed(self, error: psycopg.Error) -> None:
        """Back to a clean connection (or none: the next batch opens one)."""
        raw, self._raw = self._raw, None
        if raw is None:
            return
        if isinstance(error, psycopg.errors.DivisionByZero):
            self._raw = raw  # a refused token: the statement failed, the connection is fine
            return
        log.warning("store: the fenced fast path failed (%r); the batch goes the usual way", error)
        raw.invalidate()
