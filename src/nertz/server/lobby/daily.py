"""The daily deal: one deal a day for everyone, who has played it, and its board.

* **The deal.** Day ``D`` (a UTC date) is dealt from the seed HMAC-SHA256(secret,
  ``"nertz-daily:D"``), its first 63 bits (``daily_seed``), with the engine's own ``deal``
  (R33): every table of the day deals the same cards to the same seats, every hand. The
  secret is the server's (``--daily-secret``, ``NERTZ_DAILY_SECRET``), or else one made
  once and kept in the store (``server_secrets``), so a restart deals the same. Until
  the day is over the seed stays on the server (a table's dealer holds it, its store
  records keep it); from the next day on ``GET /api/daily/D`` publishes it with the
  deal, and anyone may deal it again with ``nertz.engine.deal(4, rules, seed)``. Before
  then the day's board shows ``commitment``, the SHA-256 of the day and its seed, which
  the published seed must match: the deal was fixed before anyone played it.
* **The table** is the same for everyone (``daily_rules``, ``daily_settings``): one
  person at seat 0 against the plain choice ``DAILY_BOTS`` of bots at ``DAILY_PACE``, by
  the standard rules, one hand (``match`` ``single``, R32). A bot never plays a
  counted try for its person (no takeover while they are away).
* **Tries.** One counted try a day per player: per device *and* per address, so
  neither a new device secret nor another address buys a second one, and for a player
  signed in to an account per account too, so neither does another browser signed in
  to it (``counted_by``). After it, any number of practice replays of the same deal (a
  practice table: unscored, not in any history). A try counts from its start; only one
  whose table was never dealt is forgotten with its table (``schema.forget_table``).
  An address is kept only keyed with the secret (``address_key``), never as it is.
* **The board** of a day is read from the store's own records of each counted try's
  finished hand (``board_entries``): seat 0's score (R29-R31) and the hand's time, from
  Go to the call of Nertz (R27) or to the end of a hand nobody called (R26). Nothing a
  client sends is a result. A try counts on the board if its hand ended before the
  day's end (midnight UTC), when the seed is published.

Every function here that reads or writes the store blocks: call it off the event loop.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, and_, delete, func, insert, or_, select
from sqlalchemy.exc import IntegrityError

from nertz.bots import choice
from nertz.engine import Deal, Rules, deal, preset
from nertz.server.door.requests import RequestError
from nertz.server.store.schema import (
    daily_attempts_t,
    hands_t,
    inputs_t,
    series_t,
    server_secrets_t,
    tables_t,
)
from nertz.server.table.settings import Settings

__all__ = [
    "BIN_POINTS",
    "BOARD_ROWS",
    "DAILY_BOTS",
    "DAILY_PACE",
    "DAILY_SEATS",
    "DAYS_KEPT",
    "Attempt",
    "BoardEntry",
    "DailyDeals",
    "board_entries",
    "commitment",
    "daily_rules",
    "daily_seed",
    "daily_settings",
    "histogram",
    "kept_secret",
    "parse_day",
]

DAILY_SEATS = 4
"""The player and three bots."""
DAILY_BOTS = "even"
"""The plain choice of bots (``nertz.bots.CHOICES``): people who know the game."""
DAILY_PACE = 100
"""The bots' pace, in percent of their level's speed: their own."""
DAYS_KEPT = 60
"""Days whose tries and board are kept (``prune``); an older day's board is gone."""
BOARD_ROWS = 100
"""The board's rows: the best this many tries of the day (every try is in the
distribution, and the asker's own is given beside them)."""
BIN_POINTS = 5
"""The distribution's bars: this many points each."""
SECRET_NAME = "daily"
"""The daily secret's row in ``server_secrets``."""
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def daily_rules() -> Rules:
    """The daily deal's rules: the standard ones, one hand to the match (R32)."""
    return preset("standard").with_options(match="single")


def daily_settings(day: dt.date, practice: bool) -> Settings:
    """A daily table: the person at seat 0, ``DAILY_BOTS`` in seats 1 to 3 at
    ``DAILY_PACE``; private. No bot ever plays the person's cards: none takes over a
    dropped connection (``bot_takeover_s`` 0), the seat is never given up to one
    (``reconnect_s``: the table ends first, ``unattended_s``), and none plays for a
    person not ready (``ready_s``: the table ends first, ``idle_s``)."""
    picked = choice(DAILY_BOTS)
    bots = {seat: picked.spec_for(seat - 1) for seat in range(1, DAILY_SEATS)}
    return Settings(
        seats=DAILY_SEATS,
        bots=bots,
        public=False,
        practice=practice,
        bot_pace=DAILY_PACE,
        bot_takeover_s=0,
        reconnect_s=86_400,
        ready_s=3600,
        daily=day.isoformat(),
    )


def daily_seed(secret: bytes, day: dt.date) -> int:
    """Day ``day``'s seed: the first 63 bits of HMAC-SHA256(``secret``, ``nertz-daily:D``),
    a seed like every table's (``Table.deal``)."""
    mac = hmac.new(secret, f"nertz-daily:{day.isoformat()}".encode(), hashlib.sha256)
    return int.from_bytes(mac.digest()[:8], "big") >> 1


def commitment(day: dt.date, seed: int) -> str:
    """What the board shows of the seed before it is published: SHA-256 of
    ``nertz-daily:D:SEED`` (decimal), which the published seed must give."""
    return hashlib.sha256(f"nertz-daily:{day.isoformat()}:{seed}".encode()).hexdigest()


def parse_day(text: str) -> dt.date:
    """A day as the routes write it, ``YYYY-MM-DD``; else ``RequestError`` ``bad_date``."""
    if not _DATE.match(text):
        raise RequestError("bad_date", f"a day is written YYYY-MM-DD (UTC), not {text[:32]!r}")
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise RequestError("bad_date", f"{text} is not a day of the calendar") from None


def kept_secret(engine: Engine, configured: str | None) -> bytes:
    """The daily secret: ``configured``, else the one kept in the store, made there
    the first time (by whichever node of a cluster is first)."""
    if configured:
        return configured.encode()
    query = select(server_secrets_t.c.value).where(server_secrets_t.c.name == SECRET_NAME)
    with engine.connect() as conn:
        row = conn.execute(query).first()
    if row is not None:
        return str(row.value).encode()
    try:
        with engine.begin() as conn:
            conn.execute(
                insert(server_secrets_t).values(
                    name=SECRET_NAME, value=secrets.token_hex(32), created=time.time()
                )
            )
    except IntegrityError:
        pass  # another node made it at the same moment: that one is the secret
    with engine.connect() as conn:
        return str(conn.execute(query).scalar_one()).encode()


@dataclass(frozen=True, slots=True)
class Attempt:
    """One start of a daily deal: its table, counted or practice, by whom."""

    day: str
    table_id: str
    counted: bool
    name: str
    device: str
    """The device's hash (``devices.device_hash``)."""
    address: str
    """The address keyed with the secret (``DailyDeals.address_key``)."""
    started: float
    account: str | None = None
    """The id of the account the player was signed in to (None: none)."""


@dataclass(frozen=True, slots=True)
class BoardEntry:
    """A counted try whose hand is over, as the board ranks it."""

    table_id: str
    name: str
    score: int
    ms: int
    """From Go to the call (R27), or to the end of a hand nobody called."""
    called: bool
    """The player called Nertz."""
    started: float
    device: str
    address: str

    def public(self, rank: int) -> dict[str, Any]:
        """The row as the board shows it (no device, address or table)."""
        return {
            "rank": rank,
            "name": self.name,
            "score": self.score,
            "ms": self.ms,
            "called": self.called,
        }


def board_entries(engine: Engine, day: dt.date, closes: float) -> list[BoardEntry]:
    """Every counted try of ``day`` whose hand ended before ``closes`` (a wall-clock
    time) with its person still at seat 0, best first: the higher score, then the
    shorter hand, then the earlier start. Read from the store's records of the hands
    the server dealt and played. A try its person left before the end (a bot played
    the rest of the hand, ``seats.release``) is not on the board."""
    a, s, h, i = daily_attempts_t.c, series_t.c, hands_t.c, inputs_t.c
    query = (
        select(a.table_id, a.name, a.device, a.address, a.started, h.scores, h.caller, s.players)
        .join(series_t, and_(s.table_id == a.table_id, s.number == 1))
        .join(hands_t, and_(h.table_id == a.table_id, h.number == 1))
        .where(a.day == day.isoformat(), a.counted.is_(True), s.finished < closes)
        .where(h.scores.is_not(None))
    )
    with engine.connect() as conn:
        rows = conn.execute(query).all()
        ids = [r.table_id for r in rows]
        go: dict[str, int] = {}
        call: dict[str, int] = {}
        last: dict[str, int] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = (
                select(i.table_id, i.text, func.min(i.at_ms).label("at"))
                .where(i.table_id.in_(chunk), i.hand == 1, i.text.in_(("GO", "NERTZ")))
                .group_by(i.table_id, i.text)
            )
            for mark in conn.execute(marks):
                (go if mark.text == "GO" else call)[mark.table_id] = mark.at
            ends = (
                select(i.table_id, func.max(i.at_ms).label("at"))
                .where(i.table_id.in_(chunk), i.hand == 1)
                .group_by(i.table_id)
            )
            for end in conn.execute(ends):
                last[end.table_id] = end.at
    entries = []
    for row in rows:
        players = json.loads(row.players or "[]")
        if not any(p["seat"] == 0 and p["name"] and not p["bot"] for p in players):
            continue  # nobody's at seat 0 at the end: the person left the hand to a bot
        scores = json.loads(row.scores)
        begun = go.get(row.table_id, 0)
        ended = call.get(row.table_id, last.get(row.table_id, begun))
        entries.append(
            BoardEntry(
                row.table_id,
                row.name,
                int(scores[0]["score"]),
                max(0, ended - begun),
                row.caller == 0,
                row.started,
                row.device,
                row.address,
            )
        )
    entries.sort(key=lambda e: (-e.score, e.ms, e.started))
    return entries


def histogram(scores: list[int]) -> list[dict[str, int]]:
    """The scores in bars of ``BIN_POINTS`` points, from the lowest bar to the highest
    (empty bars between included): ``{"from", "to", "count"}``, both ends included."""
    if not scores:
        return []
    low = min(scores) // BIN_POINTS * BIN_POINTS
    high = max(scores) // BIN_POINTS * BIN_POINTS
    counts = dict.fromkeys(range(low, high + 1, BIN_POINTS), 0)
    for score in scores:
        counts[score // BIN_POINTS * BIN_POINTS] += 1
    return [{"from": k, "to": k + BIN_POINTS - 1, "count": n} for k, n in counts.items()]


class DailyDeals:
    """The daily deal of one server: its secret, the day by ``clock`` (a wall clock in
    seconds; tests give their own), the tries in ``engine``'s store."""

    def __init__(
        self, engine: Engine, secret: bytes, clock: Callable[[], float] = time.time
    ) -> None:
        self.engine = engine
        self._secret = secret
        self.clock = clock

    def today(self) -> dt.date:
        """The day by the server's clock, in UTC."""
        return dt.datetime.fromtimestamp(self.clock(), dt.UTC).date()

    def seed(self, day: dt.date) -> int:
        """Day ``day``'s seed (``daily_seed``): never to be sent before ``published``."""
        return daily_seed(self._secret, day)

    def published(self, day: dt.date) -> bool:
        """Is ``day`` over, and its seed and deal public?"""
        return day < self.today()

    @staticmethod
    def closes(day: dt.date) -> float:
        """The day's end, midnight UTC after it (a wall-clock time)."""
        end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), dt.UTC)
        return end.timestamp()

    def dealer(self, settings: Settings) -> Callable[[int, Rules, int], Deal] | None:
        """The dealer of a table with ``settings`` (``Lobby.dealers``): a daily table
        deals its day's deal, every hand; any other table, None (the usual)."""
        if settings.daily is None:
            return None
        seed = self.seed(dt.date.fromisoformat(settings.daily))

        def daily_deal(seats: int, rules: Rules, _seed: int) -> Deal:
            return deal(seats, rules, seed)

        return daily_deal

    def address_key(self, address: str) -> str:
        """What the store keeps of an address: keyed with the secret, so a stolen
        database does not give the addresses back by trying them all."""
        return hmac.new(self._secret, f"address|{address}".encode(), hashlib.sha256).hexdigest()

    # ------------------------------------------------------------------ the store

    def counted_by(
        self, day: dt.date, device: str | None, address: str, account: str | None = None
    ) -> Attempt | None:
        """The counted try of ``day`` from this device, this (keyed) address or this
        account (its id: the player signed in), if any: the device's own first."""
        a = daily_attempts_t.c
        who = a.address == address
        if device is not None:
            who = or_(a.device == device, who)
        if account is not None:
            who = or_(a.account == account, who)
        query = select(daily_attempts_t).where(a.day == day.isoformat(), a.counted.is_(True), who)
        with self.engine.connect() as conn:
            rows = conn.execute(query.order_by(a.id)).all()
        if not rows:
            return None
        row = next((r for r in rows if r.device == device), rows[0])
        return Attempt(
            row.day,
            row.table_id,
            row.counted,
            row.name,
            row.device,
            row.address,
            row.started,
            row.account,
        )

    def record(self, attempt: Attempt) -> None:
        """Keep a try."""
        with self.engine.begin() as conn:
            conn.execute(
                insert(daily_attempts_t).values(
                    day=attempt.day,
                    table_id=attempt.table_id,
                    counted=attempt.counted,
                    name=attempt.name,
                    device=attempt.device,
                    address=attempt.address,
                    account=attempt.account,
                    started=attempt.started,
                )
            )

    def withheld(self, table_id: str) -> str | None:
        """The day of the daily table ``table_id`` if that day is not over (its deal
        and seed are not to leave the server yet); None for any other table."""
        query = select(tables_t.c.settings).where(tables_t.c.id == table_id)
        with self.engine.connect() as conn:
            found = conn.execute(query).scalar_one_or_none()
        day = None if found is None else json.loads(found).get("daily")
        if not isinstance(day, str) or self.published(dt.date.fromisoformat(day)):
            return None
        return day

    def shown_to(self, table_id: str, device: str | None, address: str) -> bool:
        """May a replay show the cards of ``table_id`` face up to this asker (the device's
        hash, the keyed address)? Any table's but a try at a day not over yet; that one
        only to someone whose own counted try of that day is over: they have played
        the deal. Its seed stays withheld from everyone until the day is over."""
        day = self.withheld(table_id)
        if day is None:
            return True
        mine = self.counted_by(dt.date.fromisoformat(day), device, address)
        return mine is not None and self.over(mine.table_id)

    def over(self, table_id: str) -> bool:
        """Is the first match (the hand) of the try at ``table_id`` over?"""
        s = series_t.c
        query = select(s.number).where(s.table_id == table_id, s.number == 1)
        with self.engine.connect() as conn:
            return conn.execute(query).first() is not None

    def board(self, day: dt.date) -> list[BoardEntry]:
        """The day's counted tries on its board, best first (``board_entries``)."""
        return board_entries(self.engine, day, self.closes(day))

    def prune(self) -> int:
        """Forget the tries of days older than ``DAYS_KEPT`` (their tables stay);
        returns how many."""
        oldest = (self.today() - dt.timedelta(days=DAYS_KEPT)).isoformat()
        with self.engine.begin() as conn:
            gone = conn.execute(delete(daily_attempts_t).where(daily_attempts_t.c.day < oldest))
        return int(gone.rowcount or 0)
