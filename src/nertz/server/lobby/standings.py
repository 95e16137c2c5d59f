"""What players see of the ratings (issue 26, point 4; docs/rating.md, "What people
see"): a leaderboard per mode and a player's ratings, their history and rated matches,
read from the store (``ratings``, ``rating_changes``, ``accounts``, ``names``).

* **Leaderboard** (``leaderboard``): the accounts whose rating in the mode is
  established *as of now* (``nertz.rating.established`` after ``absent``: an absence
  long enough makes a rating provisional again, and it leaves the board until its next
  rated match), best ``mu`` first, ``LEADERBOARD_PAGE`` rows a page, at most
  ``LEADERBOARD_PAGES`` pages. The filter runs in the database, so a page reads its rows
  and a count, never the whole table.
* **A player** (``player``), by the name their account holds (the one registry of
  names: a bot's or an unheld name is no player): each mode's rating as of now (with
  "?" while provisional), its history (each change with the match that explains it,
  the last ``HISTORY_ROWS`` a mode) and their rated matches, newest first.
* **A rated table** (``seated``): each place's rating as its table shows it, at
  seating the person's rating as of now and, once the match is rated, the rating it
  was rated from, the one after and the change; a bot's place its level's fixed one.

Only accounts are listed: rated play needs one (``Lobby.join``). Blocking calls: run
them in a thread.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, func, select

from nertz.rating import (
    ABSENCE_VARIANCE_PER_DAY,
    BOT_RATINGS,
    ESTABLISHED_MATCHES,
    ESTABLISHED_SIGMA,
    MODES,
    Rating,
    absent,
    established,
    points,
    shown,
)
from nertz.server.lobby.accounts import ACCOUNT_KIND
from nertz.server.store.schema import accounts_t, names_t, rating_changes_t, ratings_t
from nertz.server.table.names import name_key

__all__ = [
    "HISTORY_ROWS",
    "LEADERBOARD_PAGE",
    "LEADERBOARD_PAGES",
    "MATCH_ROWS",
    "Seated",
    "leaderboard",
    "player",
    "seated",
]

LEADERBOARD_PAGE = 50
"""Rows on one page of a leaderboard."""
LEADERBOARD_PAGES = 20
"""Pages a leaderboard shows (the best 1,000): deeper pages are not served."""
HISTORY_ROWS = 200
"""A player's rating changes shown per mode, the latest: a chart of a few hundred points."""
MATCH_ROWS = 50
"""A player's rated matches listed, the latest."""
_DAY_S = 86_400.0


def leaderboard(engine: Engine, mode: str, page: int, now: float) -> dict[str, Any]:
    """Page ``page`` (from 1) of ``mode``'s leaderboard at ``now``: ``mode``, ``page``,
    ``pages``, ``players`` (established accounts, up to the shown pages) and ``rows``
    (``rank``, ``name``, ``rating``, ``shown``, ``matches``)."""
    r = ratings_t.c
    # ``absent``'s sigma at now, squared, within the bound: sigma² + c²·days ≤ bound².
    days = (now - r.last) / _DAY_S
    where = (
        r.mode == mode,
        r.matches >= ESTABLISHED_MATCHES,
        r.sigma <= ESTABLISHED_SIGMA,
        r.last.is_not(None),
        r.sigma * r.sigma + ABSENCE_VARIANCE_PER_DAY * days <= ESTABLISHED_SIGMA**2,
    )
    joined = ratings_t.join(accounts_t, accounts_t.c.id == r.key)
    with engine.connect() as conn:
        count = conn.execute(select(func.count()).select_from(joined).where(*where)).scalar()
        players = min(int(count or 0), LEADERBOARD_PAGE * LEADERBOARD_PAGES)
        rows = conn.execute(
            select(accounts_t.c.name, r.mu, r.sigma, r.matches, r.last)
            .select_from(joined)
            .where(*where)
            .order_by(r.mu.desc(), accounts_t.c.name)
            .limit(LEADERBOARD_PAGE)
            .offset((page - 1) * LEADERBOARD_PAGE)
        ).all()
    out = []
    for rank, row in enumerate(rows, start=(page - 1) * LEADERBOARD_PAGE + 1):
        now_rating = absent(Rating(row.mu, row.sigma, row.matches, row.last), now)
        if not established(now_rating):  # the database's float and ours disagreed at the edge
            continue
        out.append(
            {
                "rank": rank,
                "name": row.name,
                "rating": points(now_rating),
                "shown": shown(now_rating),
                "matches": row.matches,
            }
        )
    return {
        "mode": mode,
        "page": page,
        "pages": max(1, math.ceil(players / LEADERBOARD_PAGE)),
        "players": players,
        "rows": out,
    }


def _rating(r: Rating) -> dict[str, Any]:
    return {
        "rating": points(r),
        "shown": shown(r),
        "provisional": not established(r),
        "matches": r.matches,
    }


def player(engine: Engine, name: str, now: float) -> dict[str, Any] | None:
    """The player whose account holds ``name`` (in any form that looks the same) at
    ``now``: ``name``, ``ratings`` by mode (``rating``, ``shown``, ``provisional``,
    ``matches``; a mode never played is a new player's, provisional), ``history`` by
    mode (oldest first: ``match``, ``number``, ``finished``, ``place``, ``before``,
    ``after``, ``change``, ``link``) and ``matches`` (the rated ones, newest first,
    with their ``mode``). None if no account holds it."""
    with engine.connect() as conn:
        held = conn.execute(
            select(names_t.c.owner).where(
                names_t.c.key == name_key(name), names_t.c.kind == ACCOUNT_KIND
            )
        ).first()
        if held is None:
            return None
        account = conn.execute(
            select(accounts_t.c.id, accounts_t.c.name).where(accounts_t.c.id == held.owner)
        ).first()
        if account is None:
            return None
        stored = {
            row.mode: Rating(row.mu, row.sigma, row.matches, row.last)
            for row in conn.execute(select(ratings_t).where(ratings_t.c.key == account.id))
        }
        c = rating_changes_t.c
        history: dict[str, list[dict[str, Any]]] = {}
        for mode in MODES:
            rows = conn.execute(
                select(rating_changes_t)
                .where(c.key == account.id, c.mode == mode)
                .order_by(c.finished.desc(), c.table_id.desc())
                .limit(HISTORY_ROWS)
            ).all()
            history[mode] = [_change(row) for row in reversed(rows)]
    matches = sorted(
        ({**h, "mode": mode} for mode, hs in history.items() for h in hs),
        key=lambda h: -h["finished"],
    )[:MATCH_ROWS]
    return {
        "name": account.name,
        "ratings": {m: _rating(absent(stored.get(m, Rating()), now)) for m in MODES},
        "history": history,
        "matches": matches,
    }


def _change(row: Any) -> dict[str, Any]:
    before = points(Rating(row.mu_before, row.sigma_before))
    after = points(Rating(row.mu_after, row.sigma_after))
    return {
        "match": row.table_id,
        "number": row.number,
        "finished": row.finished,
        "place": row.place,
        "before": before,
        "after": after,
        "change": after - before,
        "link": f"/matches/{row.table_id}/{row.number}",
    }


@dataclass(frozen=True, slots=True)
class Seated:
    """One place of a rated table as the table holds it: the person's account (the key
    of their ratings, ``ratings.player_key``) or the bot's level."""

    seat: int
    partner: int
    name: str
    account: str | None = None
    bot_level: str | None = None


def seated(
    engine: Engine, table_id: str, number: int, mode: str, places: list[Seated], now: float
) -> list[dict[str, Any]]:
    """Each place's rating at the rated match ``number`` of table ``table_id``: ``seat``,
    ``partner``, ``name``, ``bot`` and ``shown`` (``1540?``), and once the match is
    rated (its changes stored, ``ratings.rate_ended``) ``before``, ``after`` and
    ``change`` in shown points. Before, a person's rating as of ``now`` (a new player's
    in a mode never played); a bot's is its level's fixed one, never changed."""
    accounts = [p.account for p in places if p.account is not None]
    with engine.connect() as conn:
        stored = {
            row.key: Rating(row.mu, row.sigma, row.matches, row.last)
            for row in conn.execute(
                select(ratings_t).where(ratings_t.c.mode == mode, ratings_t.c.key.in_(accounts))
            )
        }
        c = rating_changes_t.c
        changes = {
            row.key: row
            for row in conn.execute(
                select(rating_changes_t).where(
                    c.table_id == table_id, c.number == number, c.key.in_(accounts)
                )
            )
        }
    out: list[dict[str, Any]] = []
    for place in places:
        row: dict[str, Any] = {
            "seat": place.seat,
            "partner": place.partner,
            "name": place.name,
            "bot": place.bot_level is not None,
        }
        if place.bot_level is not None:
            mu, sigma = BOT_RATINGS[place.bot_level]
            row["shown"] = str(points(Rating(mu, sigma)))  # fixed: no "?", never changed
        elif place.account is not None:
            change = changes.get(place.account)
            if change is None:
                row["shown"] = shown(absent(stored.get(place.account, Rating()), now))
            else:
                before = Rating(change.mu_before, change.sigma_before, change.matches - 1)
                after = Rating(change.mu_after, change.sigma_after, change.matches)
                row["shown"] = shown(after)
                row["before"] = shown(before)
                row["after"] = shown(after)
                row["change"] = points(after) - points(before)
        else:
            continue  # a free place, or one taken before accounts: nobody rated there
        out.append(row)
    return out
