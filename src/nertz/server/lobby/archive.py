"""A finished table that has left the server's memory (docs/server.md, "Lifetimes"): what
its link shows, rebuilt from the store. ``Lobby.archived`` keeps the last few."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from nertz.engine import Rules
from nertz.server.store.schema import matches_t, tables_t
from nertz.server.store.store import Store
from nertz.server.table.records import EventRecord
from nertz.server.table.settings import Settings
from nertz.server.table.table import restore_from_records

__all__ = ["Archived", "finished_table"]


@dataclass(frozen=True, slots=True)
class Archived:
    """A finished table: its keys' hashes, ``info()`` as its last state showed it
    (``stage`` over, ``match`` its id for ``/api/matches/{id}``) and the version of its
    last event."""

    key_hash: str | None
    watch_hash: str | None
    info: dict[str, Any]
    version: int


def finished_table(store: Store, code: str) -> Archived | None:
    """The table ``code`` if its match is over (or it ended without a result); None for
    any other code (a table never dealt is forgotten). Reads the disk: call it off the
    event loop."""
    with store.engine.connect() as conn:
        row = conn.execute(
            select(tables_t)
            .join(matches_t, matches_t.c.table_id == tables_t.c.id)
            .where(tables_t.c.code == code, matches_t.c.finished.is_not(None))
        ).first()
    if row is None:
        return None
    records = store.records_of(row.id)
    rules, settings = Rules(**json.loads(row.rules)), Settings.from_dict(json.loads(row.settings))
    table = restore_from_records(row.code, rules, settings, records)
    events = [r.body for r in records if type(r) is EventRecord]
    info = table.info()
    info.update(stage="over", ready_by_ms=None, closed=_closed_reason(events), match=row.id)
    played = info["series"]["names"]
    for seat in info["seats"]:
        seat["connected"] = seat["bot"] is not None
        if played and played[-1][seat["seat"]]:  # who played its last match, not who sat after
            seat["name"] = played[-1][seat["seat"]]
    return Archived(row.key_hash, row.watch_hash, info, len(events))


def _closed_reason(events: list[bytes]) -> str | None:
    """Why the table ended without a result (its ``closed`` event, among its last), if
    it did."""
    for body in reversed(events[-3:]):
        event = json.loads(body)["e"]
        if event["k"] == "closed":
            return str(event["reason"])
    return None
