"""Fencing in the database: a node writes a table's records only while the table's
``table_owners`` row holds that node's token (``leases.py`` hands the tokens out).

``claim`` raises the row to a new token, and only ever upwards. ``OwnerGuard`` is the
store's ``guard``: inside every batch's transaction it reads the rows of the batch's
tables ``FOR SHARE`` and refuses the tables whose token is not the node's. The share
lock holds until the batch commits, so a claim by another node (an UPDATE of that row)
waits for the batch and every later batch sees the new token: a write is either
committed before the takeover, and so read by the new owner's restore, or refused.
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, select
from sqlalchemy.dialects import postgresql

from ..schema import table_owners_t

__all__ = ["OwnerGuard", "claim"]


def claim(engine: Engine, table_id: str, node: str, token: int) -> bool:
    """Make ``node`` the table's writer with ``token`` (unless a larger token already
    holds it: a node that acquired later got there first); True if it did."""
    insert = postgresql.insert(table_owners_t).values(table_id=table_id, node=node, token=token)
    upsert = insert.on_conflict_do_update(
        index_elements=[table_owners_t.c.table_id],
        set_={"node": node, "token": token},
        where=table_owners_t.c.token < token,
    ).returning(table_owners_t.c.token)
    with engine.begin() as conn:
        return conn.execute(upsert).first() is not None


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
