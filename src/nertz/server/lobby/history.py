"""Finished matches read back for people: a table's match with its event log (``GET
/api/matches/{id}``), and a player's own history: the finished matches a device played,
its figures, and one match hand by hand (``GET /api/me``, ``GET
/api/matches/{id}/{number}``).

Read from what the store keeps (``schema.py``): each finished match of a table's
series (``series``), each hand's scores and caller (``hands``, R29-R31, R27), each
seat's races won and lost and the match each hand belonged to (``hand_races``), and
the places each device took (``device_places``, ``devices.py``). A device held a place
from the hand it took it until it lost it (left, released, removed: through the last
scored hand then) or another device took the same place; a match is the
device's when it held a seat at the match's last hand, and its figures count the hands
it held that seat. A practice table (``Settings.practice``, marked in ``tables``) is
left out.

Figures, over those matches: ``matches``, ``wins`` (a shared win counts, R32),
``hands``, ``points`` and ``points_per_hand`` (the hand scores, R30), ``best_hand``,
``calls`` (hands it called Nertz, R27), ``races_won`` and ``races_lost`` (a play
beaten by another seat's played earlier, R16; docs/fairness.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, select

from nertz.bots import bot_name, parse_places
from nertz.engine import duplicate_scores, duplicate_totals
from nertz.server.lobby.devices import DevicePlace, Devices
from nertz.server.protocol import OUTSIDE_BOT
from nertz.server.store.schema import (
    events_t,
    hand_races_t,
    hands_t,
    matches_t,
    seats_t,
    series_t,
    tables_t,
)
from nertz.server.table.duplicate import points

__all__ = ["device_history", "finished_match", "match_breakdown", "match_hands"]


@dataclass(slots=True)
class _Hand:
    scores: list[dict[str, int]]
    caller: int | None
    end: str | None
    won: dict[int, int] = field(default_factory=dict)
    lost: dict[int, int] = field(default_factory=dict)
    match: int | None = None


@dataclass(slots=True)
class _Match:
    number: int
    first_hand: int
    finished: float
    totals: list[int]
    winners: list[int]
    hands: list[int] = field(default_factory=list)
    players: list[dict[str, Any]] | None = None
    """Who held each place at its end (``series.players``; None: stored before it)."""


@dataclass(slots=True)
class _Table:
    """One table as stored, with who held each place when."""

    id: str
    code: str
    created: float
    rules: dict[str, Any]
    settings: dict[str, Any]
    practice: bool
    seat_rows: dict[tuple[int, int], Any] = field(default_factory=dict)
    hands: dict[int, _Hand] = field(default_factory=dict)
    matches: list[_Match] = field(default_factory=list)
    places: dict[tuple[int, int], list[DevicePlace]] = field(default_factory=dict)

    @property
    def per_seat(self) -> int:
        return 2 if self.rules.get("partnerships") else 1  # R40

    def holder(self, seat: int, partner: int, hand: int) -> DevicePlace | None:
        """The device that held this place at ``hand``, if any did."""
        found = None
        for place in self.places.get((seat, partner), ()):
            if place.since_hand <= hand:
                found = place
        if found is not None and found.until_hand is not None and hand > found.until_hand:
            return None  # it had left (the hand was a bot's, or nobody's)
        return found

    def seat_of(self, device: str | frozenset[str], hand: int) -> int | None:
        """The seat ``device`` (or one of these devices: an account's) held at ``hand``."""
        mine = frozenset((device,)) if isinstance(device, str) else device
        for seat, partner in self.places:
            held = self.holder(seat, partner, hand)
            if held is not None and held.device in mine:
                return seat
        return None

    def played(self, match: _Match) -> list[str]:
        """Each seat's name in a finished match: who held it at its end, as stored with
        it (a person a bot stood in for, not the bot); for a match stored before
        that, as ``names`` reads the seats."""
        if not match.players:
            return self.names(match.hands[-1])
        out: dict[int, list[str]] = {}
        for place in sorted(match.players, key=lambda p: (p["seat"], p["partner"])):
            out.setdefault(place["seat"], [])
            if place["name"]:  # an outside bot is marked: its name says nothing
                mark = " (bot)" if place.get("bot") == OUTSIDE_BOT else ""
                out[place["seat"]].append(place["name"] + mark)
        before = self.names(match.hands[-1])  # a seat nobody held at the end
        return [" & ".join(out.get(seat, [])) or name for seat, name in enumerate(before)]

    def names(self, hand: int) -> list[str]:
        """Each seat's name at ``hand``: the person who held it, else its bot's name
        (both partners of a partnership seat, R40)."""
        bots: dict[str, str] = self.settings.get("bots", {})
        out = []
        for seat in range(int(self.settings.get("seats", 4))):
            spec = bots.get(str(seat))
            bot_places = parse_places(spec, self.per_seat > 1) if spec else ()
            parts = []
            for partner in range(self.per_seat):
                held = self.holder(seat, partner, hand)
                row = self.seat_rows.get((seat, partner))
                if held is not None:
                    parts.append(held.name)
                elif row is not None and row.name:
                    parts.append(row.name)
                elif partner < len(bot_places) and bot_places[partner] is not None:
                    parts.append(bot_name(seat, partner))
            out.append(" & ".join(parts) or f"Seat {seat + 1}")
        return out


def _tables(engine: Engine, devices: Devices, ids: list[str]) -> dict[str, _Table]:
    """The stored tables ``ids`` with their finished matches and scored hands."""
    out: dict[str, _Table] = {}
    with engine.connect() as conn:
        for row in conn.execute(select(tables_t).where(tables_t.c.id.in_(ids))):
            out[row.id] = _Table(
                row.id,
                row.code,
                row.created,
                json.loads(row.rules),
                json.loads(row.settings),
                bool(row.practice),
            )
        for row in conn.execute(select(seats_t).where(seats_t.c.table_id.in_(ids))):
            out[row.table_id].seat_rows[(row.seat, row.partner)] = row
        h = hands_t.c  # not the deals: the biggest column, and not needed here
        scored = select(h.table_id, h.number, h.scores, h.caller, h.end_reason).where(
            h.table_id.in_(ids), h.scores.is_not(None)
        )
        for row in conn.execute(scored):
            out[row.table_id].hands[row.number] = _Hand(
                json.loads(row.scores), row.caller, row.end_reason
            )
        for row in conn.execute(select(hand_races_t).where(hand_races_t.c.table_id.in_(ids))):
            hand = out[row.table_id].hands.get(row.hand)
            if hand is not None:
                hand.match = row.match
                hand.won[row.seat], hand.lost[row.seat] = row.won, row.lost
        for row in conn.execute(
            select(series_t).where(series_t.c.table_id.in_(ids)).order_by(series_t.c.number)
        ):
            out[row.table_id].matches.append(
                _Match(
                    row.number,
                    row.first_hand,
                    row.finished,
                    json.loads(row.totals),
                    json.loads(row.winners),
                    players=json.loads(row.players) if row.players else None,
                )
            )
    for place in devices.places_at(ids):
        if place.table_id in out:
            out[place.table_id].places.setdefault((place.seat, place.partner), []).append(place)
    for table in out.values():
        _hands_of_matches(table)
    return out


def _hands_of_matches(table: _Table) -> None:
    """Which scored hands each finished match had: as ``hand_races`` says, or (a hand
    stored before it) from the match's first hand to the next match's."""
    for i, match in enumerate(table.matches):
        said = [n for n, h in sorted(table.hands.items()) if h.match == match.number]
        if said:
            match.hands = said
            continue
        upto = table.matches[i + 1].first_hand if i + 1 < len(table.matches) else None
        match.hands = [
            n
            for n, h in sorted(table.hands.items())
            if n >= match.first_hand and (upto is None or n < upto) and h.match is None
        ]


def _empty_figures() -> dict[str, Any]:
    return {
        "matches": 0,
        "wins": 0,
        "hands": 0,
        "points": 0,
        "points_per_hand": None,
        "best_hand": None,
        "calls": 0,
        "races_won": 0,
        "races_lost": 0,
    }


def device_history(
    engine: Engine, devices: Devices, device: str, others: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The body of ``GET /api/me``: the device's ``name``, its ``figures`` and its
    ``series`` (each table it played at, newest first, with its finished matches).
    With ``others``, the devices played on besides (an account's, ``accounts.py``):
    the history of them all."""
    every = frozenset((device, *others))
    mine = [place for one in (device, *others) for place in devices.places_of(one)]
    ids = list(dict.fromkeys(p.table_id for p in mine))
    tables = _tables(engine, devices, ids) if ids else {}
    figures = _empty_figures()
    best: int | None = None
    series: list[tuple[float, dict[str, Any]]] = []
    for table in tables.values():
        if table.practice:  # unscored, never in anyone's history
            continue
        wins = [0] * int(table.settings.get("seats", 4))
        for match in table.matches:
            for winner in match.winners:
                wins[winner] += 1
        played = []
        for match in table.matches:
            if not match.hands:
                continue
            seat = table.seat_of(every, match.hands[-1])
            if seat is None:
                continue
            held = [n for n in match.hands if table.seat_of(every, n) == seat]
            scores = [table.hands[n].scores[seat]["score"] for n in held]
            figures["matches"] += 1
            figures["wins"] += seat in match.winners
            figures["hands"] += len(held)
            figures["points"] += sum(scores)
            figures["calls"] += sum(table.hands[n].caller == seat for n in held)
            figures["races_won"] += sum(table.hands[n].won.get(seat, 0) for n in held)
            figures["races_lost"] += sum(table.hands[n].lost.get(seat, 0) for n in held)
            if scores:
                best = max(scores) if best is None else max(best, *scores)
            played.append(
                {
                    "number": match.number,
                    "finished": match.finished,
                    "seat": seat,
                    "names": table.played(match),
                    "hands": len(match.hands),
                    "totals": match.totals,
                    "winners": match.winners,
                    "won": seat in match.winners,
                    "link": f"/matches/{table.id}/{match.number}",
                    "replay": f"/replay/{table.id}?hand={match.hands[0]}",
                }
            )
        if played:
            latest = max(m.finished for m in table.matches)
            series.append(
                (
                    latest,
                    {
                        "table": table.id,
                        "code": table.code,
                        "started": table.created,
                        "wins": wins,
                        "matches": played[::-1],
                    },
                )
            )
    series.sort(key=lambda s: -s[0])
    if figures["hands"]:
        figures["points_per_hand"] = round(figures["points"] / figures["hands"], 1)
    figures["best_hand"] = best
    return {
        "name": devices.name(device),
        "figures": figures,
        "series": [body for _, body in series],
    }


def finished_match(engine: Engine, match_id: str) -> dict[str, Any] | None:
    """The body of ``GET /api/matches/{id}``: a finished table's seats, each hand's
    scores and the full public event log (None while its match goes on)."""
    with engine.connect() as conn:
        row = conn.execute(
            select(tables_t, matches_t.c.finished, matches_t.c.totals, matches_t.c.winners)
            .join(matches_t, matches_t.c.table_id == tables_t.c.id)
            .where(tables_t.c.id == match_id)
        ).first()
        if row is None or row.finished is None:
            return None
        last = conn.execute(
            select(series_t.c.players)
            .where(series_t.c.table_id == match_id)
            .order_by(series_t.c.number.desc())
            .limit(1)
        ).first()
        if last is not None and last.players:  # who played it, not who sits there now
            seats = sorted(json.loads(last.players), key=lambda p: (p["seat"], p["partner"]))
        else:  # a match stored before its players were
            seats = [
                {"seat": s.seat, "partner": s.partner, "name": s.name, "bot": s.bot}
                for s in conn.execute(
                    select(seats_t)
                    .where(seats_t.c.table_id == match_id)
                    .order_by(seats_t.c.seat, seats_t.c.partner)
                )
            ]
        hands = [
            {
                "hand": h.number,
                "scores": json.loads(h.scores) if h.scores else None,
                "caller": h.caller,
                "end": h.end_reason,
            }
            for h in conn.execute(
                select(hands_t.c.number, hands_t.c.scores, hands_t.c.caller, hands_t.c.end_reason)
                .where(hands_t.c.table_id == match_id)
                .order_by(hands_t.c.number)
            )
        ]
        events = [
            json.loads(e.body)
            for e in conn.execute(
                select(events_t.c.body)
                .where(events_t.c.table_id == match_id)
                .order_by(events_t.c.version)
            )
        ]
        return {
            "match": match_id,
            "code": row.code,
            "rules": json.loads(row.rules),
            "seats": seats,
            "hands": hands,
            "totals": json.loads(row.totals),
            "winners": json.loads(row.winners),
            "events": events,
        }


def match_hands(engine: Engine, devices: Devices, table_id: str) -> dict[int, list[int]]:
    """Each finished match of table ``table_id``'s series (by its number) with its scored
    hands, as ``match_breakdown`` counts them (the replay viewer's, ``replays.py``)."""
    table = _tables(engine, devices, [table_id]).get(table_id)
    if table is None:
        return {}
    return {m.number: m.hands for m in table.matches if m.hands}


def match_breakdown(
    engine: Engine, devices: Devices, table_id: str, number: int, device: str | None
) -> dict[str, Any] | None:
    """The body of ``GET /api/matches/{id}/{number}``: one finished match of a table's
    series hand by hand (None if there is no such match); ``you`` is the seat of the
    asking device, if it played it."""
    table = _tables(engine, devices, [table_id]).get(table_id)
    match = next((m for m in table.matches if m.number == number), None) if table else None
    if table is None or match is None or not match.hands:
        return None
    last = match.hands[-1]
    hands: list[dict[str, Any]] = []
    for n in match.hands:
        hand = table.hands[n]
        seats = range(len(hand.scores))
        hands.append(
            {
                "hand": n,
                "scores": hand.scores,
                "caller": hand.caller,
                "end": hand.end,
                "races_won": [hand.won.get(s, 0) for s in seats],
                "races_lost": [hand.lost.get(s, 0) for s in seats],
            }
        )
    duplicate: dict[str, Any] = {}
    if table.rules.get("duplicate"):  # R43, R44: both scores on the match's sheet
        played = [[s["score"] for s in table.hands[k].scores] for k in match.hands]
        count = len(played[0])
        for row, scores in zip(hands, duplicate_scores(played, count), strict=True):
            row["duplicate"] = [None if v is None else points(v) for v in scores]
        duplicate["duplicate_totals"] = [points(t) for t in duplicate_totals(played, count)]
    return {
        **duplicate,
        "match": table.id,
        "code": table.code,
        "number": number,
        "of": len(table.matches),
        "rules": table.rules,
        "names": table.played(match),
        "hands": hands,
        "totals": match.totals,
        "winners": match.winners,
        "finished": match.finished,
        "you": None if device is None else table.seat_of(device, last),
    }
