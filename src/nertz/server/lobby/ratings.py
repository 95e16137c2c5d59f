"""Ratings from stored results (issue 26, points 2 and 5): the server's side of
``nertz.rating``.

A rated table (``Settings.rated``) is made by the server, never asked for by a client,
and is one rated match (``RATED_MATCH``). When it ends, the store writes the result
(``series``: totals, winners, who held each place at the end and whose place a bot
played for them) and, in the same transaction, calls ``rate_ended``
(``Store.after_match``), which reads that result back from the database, with the
places each device took (``device_places``), and folds it into the ratings
(``nertz.rating.rate``): the new ratings (``ratings``) and each change with the match
that explains it (``rating_changes``). Nothing a client sends takes part: only what
the table stored.

* **Who is rated**: each person (``player_key``: the account they were signed in to,
  stored with the place in ``device_places``) who took a place before or during the
  first hand. One who still held it at the last hand, with no bot playing for them at
  the end, gets their seat's place; one who had lost it (left, or released after
  ``reconnect_s``, even before the deal: a dodged match) or whose place a bot played at
  the end (a takeover, a stand-in) is a leaver and ranks last. Someone who took a place
  later is not rated by it. A bot seat counts at its level's fixed rating and is never
  updated; a seat a bot played out after its person left is left out of the order.
* **Rebuilt from the store**: ``rebuild_ratings`` folds every stored rated result in
  the order they finished and writes the ratings again; it gives the numbers the
  matches gave one by one (a test), so every rating is explained by stored matches.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert, select

from nertz.bots import parse_places
from nertz.rating import (
    BOT_RATINGS,
    Change,
    MatchResult,
    Rating,
    Side,
    fold,
    mode_of,
    places,
    rate,
)
from nertz.server.store.schema import (
    device_places_t,
    hand_races_t,
    hands_t,
    rating_changes_t,
    ratings_t,
    series_t,
    tables_t,
)
from nertz.server.store.store import Store

__all__ = [
    "RATED_MATCH",
    "install",
    "player_key",
    "rate_ended",
    "ratings_of",
    "rebuild_ratings",
    "stored_result",
    "stored_results",
]


RATED_MATCH = 1
"""The match of a rated table's series that is rated: its first. Quick match seats
people for one match; playing again is queueing again. (Rating a later match of a
series would need who sat at its first deal, which the store does not keep: a person
who left after the match before and one who left during its first hand look alike.)"""


def player_key(device: str, account: str | None) -> str:
    """The key a person's ratings are kept under: the id of the account they were
    signed in to when they took the place (rated play needs one, ``Lobby.join``), so
    every device of the account plays for one rating. A place stored before rated play
    needed an account has none: its device's hash then (64 hex digits, never an
    account's 16), so a rebuild keys those as they were."""
    return device if account is None else account


@dataclass(frozen=True, slots=True)
class _Held:
    device: str
    since: int
    until: int | None
    account: str | None


def _match_hands(conn: Connection, table_id: str, number: int, first: int) -> list[int]:
    """The scored hands of match ``number``: as ``hand_races`` says, or from its first
    hand to the next match's."""
    said = conn.execute(
        select(hand_races_t.c.hand)
        .where(hand_races_t.c.table_id == table_id, hand_races_t.c.match == number)
        .distinct()
    ).all()
    if said:
        return sorted(r.hand for r in said)
    upto = conn.execute(
        select(series_t.c.first_hand).where(
            series_t.c.table_id == table_id, series_t.c.number == number + 1
        )
    ).first()
    rows = conn.execute(
        select(hands_t.c.number).where(
            hands_t.c.table_id == table_id,
            hands_t.c.scores.is_not(None),
            hands_t.c.number >= first,
        )
    ).all()
    return sorted(r.number for r in rows if upto is None or r.number < upto.first_hand)


def stored_result(conn: Connection, table_id: str, number: int) -> MatchResult | None:
    """Match ``number`` of a rated table as the store keeps it, ready for
    ``nertz.rating.rate``; None if the table is not rated or the match not finished."""
    table = conn.execute(
        select(tables_t.c.rules, tables_t.c.settings).where(tables_t.c.id == table_id)
    ).first()
    if table is None:
        return None
    settings: dict[str, Any] = json.loads(table.settings)
    if not settings.get("rated"):
        return None
    rules: dict[str, Any] = json.loads(table.rules)
    row = conn.execute(
        select(series_t).where(series_t.c.table_id == table_id, series_t.c.number == number)
    ).first()
    if row is None:
        return None
    if number != RATED_MATCH or row.first_hand != 1:
        return None  # a rated table is one rated match (the module's docstring)
    hands = _match_hands(conn, table_id, number, row.first_hand)
    if not hands:
        return None
    last = hands[-1]
    held: dict[tuple[int, int], list[_Held]] = {}
    for p in conn.execute(
        select(device_places_t)
        .where(device_places_t.c.table_id == table_id, device_places_t.c.since_hand <= 1)
        .order_by(device_places_t.c.id)
    ):
        held.setdefault((p.seat, p.partner), []).append(
            _Held(p.device, p.since_hand, p.until_hand, p.account)
        )
    away = {(p["seat"], p["partner"]) for p in json.loads(row.players or "[]") if p.get("away")}
    partnerships = bool(rules.get("partnerships"))
    bots: dict[str, str] = settings.get("bots", {})
    totals, winners = json.loads(row.totals), json.loads(row.winners)
    if not winners:  # the table ended it with nobody there (lifetimes.py): no result
        return None
    order = places(totals, winners)
    seen: set[str] = set()
    sides: list[Side] = []
    left: list[str] = []
    for seat in range(len(totals)):
        spec = bots.get(str(seat))
        bot_places = parse_places(spec, partnerships) if spec else ()
        people: list[str] = []
        levels: list[str] = []
        for partner in range(2 if partnerships else 1):
            rows = held.get((seat, partner), [])
            for one in rows:
                key = player_key(one.device, one.account)
                if key in seen:  # one person, two places: rated once, at the first
                    continue
                seen.add(key)
                stayed = one.until is None or one.until >= last
                (people if stayed and (seat, partner) not in away else left).append(key)
            if not rows and partner < len(bot_places):
                bot = bot_places[partner]
                if bot is not None and bot.level in BOT_RATINGS:
                    levels.append(bot.level)
        sides.append(Side(order[seat], tuple(people), tuple(levels)))
    return MatchResult(
        f"{table_id}/{number}", mode_of(partnerships), row.finished, tuple(sides), tuple(left)
    )


def _read(conn: Connection, mode: str, keys: Iterable[str]) -> dict[str, Rating]:
    wanted = list(dict.fromkeys(keys))
    rows = conn.execute(
        select(ratings_t).where(ratings_t.c.mode == mode, ratings_t.c.key.in_(wanted))
    )
    return {r.key: Rating(r.mu, r.sigma, r.matches, r.last) for r in rows}


def _write(conn: Connection, changes: list[Change], finished: dict[str, float]) -> None:
    """Store ``changes``: each one's row, and each person's rating after their last."""
    if not changes:
        return
    latest: dict[tuple[str, str], Rating] = {}
    for c in changes:
        latest[(c.mode, c.key)] = c.after
    for mode in {m for m, _ in latest}:
        keys = [k for m, k in latest if m == mode]
        conn.execute(delete(ratings_t).where(ratings_t.c.mode == mode, ratings_t.c.key.in_(keys)))
    conn.execute(
        insert(ratings_t),
        [
            {
                "key": k,
                "mode": m,
                "mu": r.mu,
                "sigma": r.sigma,
                "matches": r.matches,
                "last": r.last,
            }
            for (m, k), r in latest.items()
        ],
    )
    conn.execute(
        insert(rating_changes_t),
        [
            {
                "table_id": c.match.rsplit("/", 1)[0],
                "number": int(c.match.rsplit("/", 1)[1]),
                "key": c.key,
                "mode": c.mode,
                "place": c.place,
                "finished": finished[c.match],
                "mu_before": c.before.mu,
                "sigma_before": c.before.sigma,
                "mu_after": c.after.mu,
                "sigma_after": c.after.sigma,
                "matches": c.after.matches,
            }
            for c in changes
        ],
    )


def rate_ended(conn: Connection, ended: list[tuple[str, int]]) -> list[Change]:
    """Rate the matches just ended (``Store.after_match``), in order, inside the store's
    transaction: each rated one once (a match already rated is left as it is)."""
    out: list[Change] = []
    for table_id, number in ended:
        done = conn.execute(
            select(rating_changes_t.c.key)
            .where(rating_changes_t.c.table_id == table_id, rating_changes_t.c.number == number)
            .limit(1)
        ).first()
        if done is not None:
            continue
        result = stored_result(conn, table_id, number)
        if result is None:
            continue
        keys = [k for s in result.sides for k in s.people] + list(result.left)
        rated = rate(_read(conn, result.mode, keys), result)
        _write(conn, list(rated.changes), {result.match: result.finished})
        out.extend(rated.changes)
    return out


def install(store: Store) -> None:
    """Have ``store`` rate every rated match as its end is written."""

    def after_match(conn: Connection, ended: list[tuple[str, int]]) -> None:
        rate_ended(conn, ended)

    store.after_match = after_match


def stored_results(conn: Connection) -> list[MatchResult]:
    """Every stored rated match's result, in the order they finished."""
    rated = [
        r.id
        for r in conn.execute(
            select(tables_t.c.id, tables_t.c.settings).where(
                tables_t.c.settings.like('%"rated": true%')
            )
        )
        if json.loads(r.settings).get("rated")
    ]
    if not rated:
        return []
    rows = conn.execute(
        select(series_t.c.table_id, series_t.c.number)
        .where(series_t.c.table_id.in_(rated))
        .order_by(series_t.c.finished, series_t.c.table_id, series_t.c.number)
    ).all()
    out = []
    for row in rows:
        result = stored_result(conn, row.table_id, row.number)
        if result is not None:
            out.append(result)
    return out


def rebuild_ratings(engine: Engine) -> dict[tuple[str, str], Rating]:
    """Every rating again from the stored rated results, folded in the order they
    finished: the ratings and changes tables are written anew; returns the ratings by
    ``(mode, key)``. The same numbers the matches gave one by one."""
    with engine.begin() as conn:
        results = stored_results(conn)
        ratings, changes = fold(results)
        conn.execute(delete(rating_changes_t))
        conn.execute(delete(ratings_t))
        _write(conn, changes, {r.match: r.finished for r in results})
    return ratings


def ratings_of(engine: Engine, mode: str | None = None) -> dict[tuple[str, str], Rating]:
    """The stored ratings by ``(mode, key)`` (of one mode, or all), as of each person's
    last rated match (``nertz.rating.absent`` gives them as of now)."""
    query = select(ratings_t)
    if mode is not None:
        query = query.where(ratings_t.c.mode == mode)
    with engine.connect() as conn:
        return {
            (r.mode, r.key): Rating(r.mu, r.sigma, r.matches, r.last) for r in conn.execute(query)
        }
