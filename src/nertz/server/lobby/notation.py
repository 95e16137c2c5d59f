"""A finished match read back from the store in the match notation (``GET
/api/matches/{id}/notation``; ``engine/match_text.py``, docs/notation.md): its rules,
who played each seat, and each hand's deal and inputs, which the engine replays to the
stored scores.

Only a finished match of a table's series: while a match is played its seeds and its
face-down cards stay on the server (``409 match_in_progress``). The hands are those
``history.match_breakdown`` says the match had; the rules, those the match was dealt
under (the host may change options between matches, ``host.rules_from``); the players,
who held each place at its end (``series.players``; for a match stored before that,
the seats as stored, as ``history.finished_match`` names them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, select

from nertz.engine import HandText, LogEntry, MatchText, Player, Rules
from nertz.server.lobby.devices import Devices
from nertz.server.lobby.history import match_breakdown
from nertz.server.lobby.lobby import LobbyError
from nertz.server.store.schema import (
    events_t,
    hands_t,
    inputs_t,
    matches_t,
    seats_t,
    series_t,
    tables_t,
)
from nertz.server.table.host import rules_from
from nertz.server.table.records import DealRecord, rebuild_deal

__all__ = ["StoredMatch", "StoredNotation", "match_notation", "stored_match", "stored_table"]


@dataclass(frozen=True, slots=True)
class StoredNotation:
    """A finished match in the notation: which of its table's series, the table's code
    and the text."""

    number: int
    code: str
    text: str


@dataclass(frozen=True, slots=True)
class StoredMatch:
    """A finished match read back from the store: which of its table's series, the
    table's code and the match itself (rules, players, each hand's deal and inputs)."""

    number: int
    code: str
    match: MatchText


def match_notation(engine: Engine, table_id: str, number: int | None) -> StoredNotation:
    """Match ``number`` of table ``table_id``'s series (None: its last finished one)
    in the notation; see ``stored_match`` for what it refuses."""
    found = stored_match(engine, table_id, number)
    return StoredNotation(found.number, found.code, str(found.match))


def stored_match(engine: Engine, table_id: str, number: int | None) -> StoredMatch:
    """Match ``number`` of table ``table_id``'s series (None: its last finished one).
    ``LobbyError``: ``unknown_match`` (404) for a
    table or match there is not, ``match_in_progress`` (409) for one still played,
    ``match_too_large`` (413) for one beyond the notation's bounds. Reads the disk:
    call it off the event loop."""
    with engine.connect() as conn:
        table = stored_table(conn, table_id)
        series = {
            row.number: row
            for row in conn.execute(select(series_t).where(series_t.c.table_id == table_id))
        }
        number = _finished(number, series, playing=table.finished is None)
        bodies = conn.execute(
            select(events_t.c.body)
            .where(events_t.c.table_id == table_id)
            .order_by(events_t.c.version)
        )
        dealt_under, _ = rules_from(Rules(**json.loads(table.rules)), [e.body for e in bodies])
        breakdown = match_breakdown(engine, Devices(engine), table_id, number, None)
        if breakdown is None:  # a finished match with no scored hand: nothing to replay
            raise LobbyError("unknown_match", f"match {number} at that table has no hands", 404)
        numbers = [h["hand"] for h in breakdown["hands"]]
        rules = dealt_under.get(numbers[0], Rules(**json.loads(table.rules)))
        deals = {
            h.number: DealRecord(
                h.number, tuple(json.loads(h.layouts)), h.seed, tuple(json.loads(h.middle or "[]"))
            )
            for h in conn.execute(
                select(hands_t).where(hands_t.c.table_id == table_id, hands_t.c.number.in_(numbers))
            )
        }
        inputs: dict[int, list[LogEntry]] = {n: [] for n in numbers}
        for i in conn.execute(
            select(inputs_t.c.hand, inputs_t.c.at_ms, inputs_t.c.seat, inputs_t.c.text)
            .where(inputs_t.c.table_id == table_id, inputs_t.c.hand.in_(numbers))
            .order_by(inputs_t.c.hand, inputs_t.c.idx)
        ):
            inputs[i.hand].append((i.at_ms, i.seat, i.text))
        places = _places(conn, table_id, series[number].players)
    seats = int(json.loads(table.settings).get("seats", len(deals[numbers[0]].layouts)))
    per_seat = 2 if rules.partnerships else 1
    players = tuple(
        tuple(places.get((seat, partner), Player()) for partner in range(per_seat))
        for seat in range(seats)
    )
    hands = tuple(HandText(n, rebuild_deal(deals[n], rules), tuple(inputs[n])) for n in numbers)
    try:
        match = MatchText(rules, players, hands, f"Table {table.code}, match {number}")
    except ValueError as error:
        raise LobbyError(
            "match_too_large", f"this match does not fit the notation: {error}", 413
        ) from None
    return StoredMatch(number, table.code, match)


def stored_table(conn: Connection, table_id: str) -> Any:
    """Table ``table_id``'s stored row with its match's ``finished`` (None while it is
    played); ``LobbyError`` ``unknown_match`` (404) if the store has no such table."""
    table = conn.execute(
        select(tables_t, matches_t.c.finished)
        .join(matches_t, matches_t.c.table_id == tables_t.c.id)
        .where(tables_t.c.id == table_id)
    ).first()
    if table is None:
        raise LobbyError("unknown_match", "no match with that id", 404)
    return table


def _finished(number: int | None, series: dict[int, Any], playing: bool) -> int:
    """The finished match asked for (None: the last), or why there is none to give."""
    if number is None and series:
        return max(series)
    if number in series:
        return number
    current = max(series, default=0) + 1  # the match being played, if one is
    if playing and number in (None, current):
        raise LobbyError(
            "match_in_progress",
            "that match is still being played: its deals stay hidden until it is over",
            409,
        )
    if number is None:
        raise LobbyError("unknown_match", "that table has no finished match", 404)
    raise LobbyError("unknown_match", f"no finished match {number} at that table", 404)


def _places(conn: Any, table_id: str, stored: str | None) -> dict[tuple[int, int], Player]:
    """Who held each place (seat, partner) at the match's end."""
    if stored:
        rows = json.loads(stored)
    else:  # a match stored before its players were: the seats as stored
        rows = [
            {"seat": s.seat, "partner": s.partner, "name": s.name, "bot": s.bot}
            for s in conn.execute(select(seats_t).where(seats_t.c.table_id == table_id))
        ]
    return {(row["seat"], row["partner"]): _player(row["name"], row["bot"]) for row in rows}


def _player(name: str | None, bot: str | None) -> Player:
    """A place's holder; what the notation cannot hold (a bot spec or a name of an
    older form) is left out rather than refusing the whole match."""
    for held in ((name or None, bot or None), (name or None, None), (None, None)):
        try:
            return Player(*held)
        except ValueError:
            continue
    return Player()
