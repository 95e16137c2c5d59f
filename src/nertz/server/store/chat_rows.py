"""The table chat's rows in the database (the ``chat`` table, ``schema.py``): a line
written as it is said, and the recent ones read back for a restored table. The store
calls these; ``chat.py`` is the chat itself."""

from __future__ import annotations

import dataclasses
import time

from sqlalchemy import Connection, select

from nertz.server.store.schema import chat_t
from nertz.server.table.chat import RECENT_LINES
from nertz.server.table.records import ChatRecord

__all__ = ["recent_chat", "write_chat"]


def write_chat(conn: Connection, table_id: str, record: ChatRecord) -> None:
    """One line, with when it was stored (lines are few: a rate limit holds them)."""
    row = {"table_id": table_id, **dataclasses.asdict(record), "said": time.time()}
    conn.execute(chat_t.insert(), [row])


def recent_chat(conn: Connection, table_id: str) -> list[ChatRecord]:
    """The table's last ``RECENT_LINES`` lines, oldest first."""
    latest = select(chat_t).where(chat_t.c.table_id == table_id).order_by(chat_t.c.n.desc())
    rows = conn.execute(latest.limit(RECENT_LINES)).all()
    return [ChatRecord(c.n, c.match, c.seat, c.partner, c.name, c.text) for c in reversed(rows)]
