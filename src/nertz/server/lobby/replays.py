"""The replay viewer's hands (``/replay/{id}``, docs/protocol.md "Replays"): one hand of
a finished match read back from the store, or every hand of a match notation file a
person opens (docs/notation.md), each as a timeline (``timeline.py``).

From the store (``GET /api/matches/{id}/replay?hand=N``): the hand's deal and inputs
as stored, replayed with the engine under the rules it was dealt under
(``host.rules_from``); only a hand of a finished match of the table's series
(``history.match_hands``), with the access rule of the match's notation: whoever holds
the match's id. A hand of the match still being played is refused (``409
match_in_progress``): its face-down cards never leave the server before it is over.
The deck seeds are never read: the stored layouts are the deal.

From a file (``POST /api/replays``): the text is read with ``MatchText.parse``, which
replays every hand and names the line of any fault; it is bounded by the caller
(``replay_api.FILE_BYTES``).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Engine, func, select

from nertz.engine import Deal, LogEntry, MatchText, Rules
from nertz.engine.match_text import MAX_HAND_INPUTS
from nertz.server.lobby.devices import Devices
from nertz.server.lobby.history import match_breakdown, match_hands
from nertz.server.lobby.lobby import LobbyError
from nertz.server.lobby.notation import stored_table
from nertz.server.lobby.timeline import hand_timeline
from nertz.server.store.schema import events_t, hands_t, inputs_t
from nertz.server.table.host import rules_from

__all__ = ["file_replay", "finished_hand", "in_progress", "stored_replay"]


def stored_replay(engine: Engine, table_id: str, hand: int | None) -> dict[str, Any]:
    """Hand ``hand`` (the table's own number, as stored; None: the first of its last
    finished match) of table ``table_id`` for the viewer: its timeline, the match it
    belongs to (``number``, its ``hands``, the ``names`` of who played each seat), the
    table's ``code`` and the ``rules``. ``LobbyError``: ``unknown_match`` (404) for no
    such table or no finished match, ``match_in_progress`` (409) for a hand of the
    match still played, ``bad_hand`` (400) for no hand of a finished match,
    ``hand_too_large`` (413) beyond the notation's bounds. Reads the disk and replays:
    call it off the event loop."""
    devices = Devices(engine)
    table, number, hands = finished_hand(engine, devices, table_id, hand)
    hand = hands[0] if hand is None else hand
    with engine.connect() as conn:
        stored = conn.execute(
            select(hands_t.c.layouts, hands_t.c.middle).where(
                hands_t.c.table_id == table_id, hands_t.c.number == hand
            )
        ).first()
        count = conn.execute(
            select(func.count())
            .select_from(inputs_t)
            .where(inputs_t.c.table_id == table_id, inputs_t.c.hand == hand)
        ).scalar_one()
        if stored is None:
            raise LobbyError("unknown_match", f"hand {hand} of that match is not stored", 404)
        if count > MAX_HAND_INPUTS:
            raise LobbyError(
                "hand_too_large",
                f"hand {hand} has {count} inputs; the viewer shows at most {MAX_HAND_INPUTS}",
                413,
            )
        log: list[LogEntry] = [
            (row.at_ms, row.seat, row.text)
            for row in conn.execute(
                select(inputs_t.c.at_ms, inputs_t.c.seat, inputs_t.c.text)
                .where(inputs_t.c.table_id == table_id, inputs_t.c.hand == hand)
                .order_by(inputs_t.c.idx)
            )
        ]
        bodies = [
            e.body
            for e in conn.execute(
                select(events_t.c.body)
                .where(events_t.c.table_id == table_id)
                .order_by(events_t.c.version)
            )
        ]
    base = Rules(**json.loads(table.rules))
    dealt_under, _ = rules_from(base, bodies)
    rules = dealt_under.get(hand, dealt_under.get(hands[0], base))
    layouts, middle = json.loads(stored.layouts), json.loads(stored.middle or "[]")
    deal = Deal.from_layouts(tuple(layouts), tuple(middle))
    breakdown = match_breakdown(engine, devices, table_id, number, None)
    names = breakdown["names"] if breakdown else [f"Seat {n + 1}" for n in range(len(deal.starts))]
    return {
        "match": table_id,
        "code": table.code,
        "number": number,
        "hand": hand,
        "hands": hands,
        "names": names,
        "rules": rules.as_dict(),
        **hand_timeline(deal, rules, log),
    }


def finished_hand(
    engine: Engine, devices: Devices, table_id: str, hand: int | None
) -> tuple[Any, int, list[int]]:
    """The table's row, and the number and hands of the finished match hand ``hand``
    (the table's own number; None: its last finished match) belongs to. ``LobbyError``
    as ``stored_replay``'s: no such table or match, a hand still played, no such hand."""
    with engine.connect() as conn:
        table = stored_table(conn, table_id)
    matches = match_hands(engine, devices, table_id)
    number = _match_of(matches, hand, table.finished is None)
    return table, number, matches[number]


def in_progress() -> LobbyError:
    """The answer for a hand of a match still being played."""
    return LobbyError(
        "match_in_progress",
        "that match is still being played: its cards stay hidden until it is over",
        409,
    )


def _match_of(matches: dict[int, list[int]], hand: int | None, playing: bool) -> int:
    """The finished match hand ``hand`` belongs to (None: the last), or why none."""
    if hand is None:
        if matches:
            return max(matches)
    else:
        for number, hands in matches.items():
            if hand in hands:
                return number
    played = [n for hands in matches.values() for n in hands]
    if playing and (hand is None or hand > max(played, default=0)):
        raise in_progress()
    if hand is None or not played:
        raise LobbyError("unknown_match", "that table has no finished match", 404)
    spans = ", ".join(f"{hands[0]}-{hands[-1]}" for _, hands in sorted(matches.items()))
    raise LobbyError(
        "bad_hand",
        f"hand {hand} is no hand of a finished match at that table (its hands: {spans})",
    )


def file_replay(text: str) -> dict[str, Any]:
    """Every hand of the match notation ``text`` for the viewer: its ``title``, the
    ``names`` of each seat, the ``rules`` and each hand's timeline (with its ``hand``
    number). ``LobbyError`` ``bad_notation`` (400) naming the line and what is wrong
    with it (``NotationError``)."""
    try:
        match = MatchText.parse(text)
    except ValueError as error:  # NotationError, or a value the notation refuses
        raise LobbyError("bad_notation", f"not a match in the notation: {error}") from None
    names = [_seat_name(seat, n) for n, seat in enumerate(match.seats)]
    numbers = [hand.number for hand in match.hands]
    return {
        "title": match.title,
        "names": names,
        "rules": match.rules.as_dict(),
        "hands": numbers,
        "timelines": [
            {"hand": hand.number, **hand_timeline(hand.deal, match.rules, hand.inputs)}
            for hand in match.hands
        ],
    }


def _seat_name(players: tuple[Any, ...], seat: int) -> str:
    """A seat's name in a file: its players' names, or its bots', or its number."""
    parts = [p.name or (f"{p.bot} bot" if p.bot else "") for p in players]
    return " & ".join(p for p in parts if p) or f"Seat {seat + 1}"
