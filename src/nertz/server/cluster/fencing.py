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
token is the node's, the inserts and the commit, sent as one pipeline (one round trip
to PostgreSQL instead of five, prepared statements on a connection the writer keeps).
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

from ..records import EventRecord, InputRecord
from ..schema import table_owners_t

__all__ = ["FencedPlays", "OwnerGuard", "claim", "claim_many"]

log = logging.getLogger("nertz.store")

_LOCK = "SELECT 1 FROM table_owners WHERE table_id = ANY(%s) ORDER BY table_id FOR SHARE"
# Division by zero (the transaction fails, nothing of the batch is written) unless every
# table's row holds the token given; after _LOCK no claim can change them until commit.
_CHECK = (
    "SELECT 1 / (count(*) = %s)::int FROM table_owners o"
    " JOIN unnest(%s::text[], %s::bigint[]) AS m(table_id, token)"
    " ON o.table_id = m.table_id AND o.token = m.token"
)
_INPUTS = (
    "INSERT INTO inputs (table_id, hand, idx, at_ms, seat, text, arrival_ms, credited_ms)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)
_EVENTS = "INSERT INTO events (table_id, version, body) VALUES (%s, %s, %s)"


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
        events: list[tuple[Any, ...]] = []
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
                    events.append((table_id, r.version, r.body))
                else:
                    return False
        ids = sorted(tokens)
        try:
            conn = self._connection()
            with conn.pipeline(), conn.cursor() as cur:
                cur.execute(_LOCK, (ids,), prepare=True)
                cur.execute(_CHECK, (len(ids), ids, [tokens[t] for t in ids]), prepare=True)
                if inputs:
                    cur.executemany(_INPUTS, inputs)
                if events:
                    cur.executemany(_EVENTS, events)
                conn.commit()
        except psycopg.Error as error:
            self._failed(error)
            return False
        self.batches += 1
        return True

    def _connection(self) -> psycopg.Connection[Any]:
        if self._raw is None:
            self._raw = self.engine.raw_connection()
        driver = self._raw.driver_connection
        assert isinstance(driver, psycopg.Connection)
        return driver

    def _failed(self, error: psycopg.Error) -> None:
        """Back to a clean connection (or none: the next batch opens one)."""
        raw, self._raw = self._raw, None
        if raw is None:
            return
        driver = raw.driver_connection
        if isinstance(error, psycopg.errors.DivisionByZero) and isinstance(
            driver, psycopg.Connection
        ):
            try:
                driver.rollback()
                self._raw = raw  # a refused token: the connection is fine
                return
            except psycopg.Error:
                pass
        log.warning("store: the fenced fast path failed (%r); the batch goes the usual way", error)
        raw.invalidate()
