"""The daily deal over HTTP (``lobby/daily.py``; docs/protocol.md, "The daily deal").

* ``POST /api/daily`` ``{"name", "practice", "date"?}`` (the ``X-Nertz-Device``
  header required): today's deal at a table of its own, the person at seat 0 against
  the day's bots, answered as ``POST /api/practice`` is (the seat's token and the link)
  plus ``date`` and ``counted``. Without ``practice`` it is the day's one counted try:
  refused ``409 daily_played`` once one was started from this device or this address
  today, or, signed in to an account, by that account from any browser. With
  ``practice: true`` a replay that counts for nothing, refused ``409
  daily_not_played`` before the counted try. ``date``, if given, must be today's (``409
  not_today``): a page left open over midnight does not start the next day's try
  unawares. A table made and a join, like a practice table (``limits.Quotas``).
* ``GET /api/daily`` today's board, ``GET /api/daily/{date}`` any kept day's (the last
  ``DAYS_KEPT``): the day's table, its counted tries ranked (the best ``BOARD_ROWS``),
  the distribution of every score, the asker's own try (``you``, by the device header
  and the address), the seed's ``commitment``, and once the day is over its ``seed``
  and ``layouts``. The best hand's replay (``best``) once the day is over, or once the
  asker's own counted try is on the board. Each day's board is read from the store at
  most every ``TODAY_FRESH_S`` while the day runs, then once (``Boards``).
* ``/daily`` and ``/daily/{date}``: the client's pages of the same.

Nothing a client sends is a result: ``POST /api/daily`` takes no score or time (an
unknown field is ``400 bad_field``), and a write to a board (``POST`` ``PUT`` ``PATCH``
``DELETE /api/daily/{date}``) is ``405 read_only``.
"""

from __future__ import annotations

import asyncio
import collections
import datetime as dt
import logging
import time
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nertz.bots import choice
from nertz.engine import deal
from nertz.server.door.edge import client_address
from nertz.server.door.requests import RequestError, decode_body, error_response
from nertz.server.http.accounts_api import signed_in
from nertz.server.http.me import joining_device, took_place
from nertz.server.http.practice_api import Alone, seat_alone
from nertz.server.http.services import Services
from nertz.server.http.web import page
from nertz.server.lobby.daily import (
    BOARD_ROWS,
    DAILY_BOTS,
    DAILY_PACE,
    DAILY_SEATS,
    DAYS_KEPT,
    Attempt,
    BoardEntry,
    DailyDeals,
    commitment,
    daily_rules,
    daily_settings,
    histogram,
    parse_day,
)
from nertz.server.lobby.devices import device_hash
from nertz.server.lobby.lobby import player_name

__all__ = [
    "BOARDS_KEPT",
    "TODAY_FRESH_S",
    "Boards",
    "DailyStart",
    "daily_refusal",
    "daily_routes",
    "prune_daily",
]


async def daily_refusal(services: Services, request: Request, table_id: str) -> Response | None:
    """``409 daily_withheld`` when ``table_id`` was a try at a daily deal whose day is not
    over and the asker (their device, their address) has not played that deal to its
    end (``DailyDeals.shown_to``): the replay and the analysis of such a try show its
    cards face up. None when they may be shown."""
    deals = services.daily
    try:
        device = device_hash(request, required=False)
    except RequestError as error:
        return error.response()
    keyed = deals.address_key(client_address(request.scope))
    if await asyncio.to_thread(deals.shown_to, table_id, device, keyed):
        return None
    return error_response(
        "daily_withheld",
        "this match was a try at today's daily deal: its cards are shown to those who have "
        "played that deal, and to everyone once the day is over (midnight UTC)",
        409,
    )


log = logging.getLogger("nertz.daily")

TODAY_FRESH_S = 5.0
"""A running day's board is read from the store again after this long."""
BOARDS_KEPT = 64
"""Days' boards kept in memory (the most recently asked)."""
PRUNE_S = 3600
"""The kept days are pruned this often."""


class DailyStart(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/daily``."""

    name: Annotated[str, msgspec.Meta(max_length=64)] = "You"
    practice: bool = False
    date: Annotated[str, msgspec.Meta(max_length=10)] | None = None


@dataclass(frozen=True, slots=True)
class Board:
    """One day's board as read from the store: its tries ranked, and what every asker
    is shown of it (``public``: no replay link, nobody's own try)."""

    day: dt.date
    entries: list[BoardEntry]
    public: dict[str, Any]
    final: bool
    """Read once the day was over: it never changes again."""
    made: float


class Boards:
    """The boards asked for, ``BOARDS_KEPT`` of them, each read once while another
    read of it is under way."""

    def __init__(self, daily: DailyDeals) -> None:
        self.daily = daily
        self._kept: collections.OrderedDict[dt.date, Board] = collections.OrderedDict()
        self._making: dict[dt.date, asyncio.Future[Board]] = {}

    async def get(self, day: dt.date, again: bool = False) -> Board:
        """The board of ``day``: the one kept if final or fresh (and not read ``again``),
        else read again."""
        board = self._kept.get(day)
        # Read while the day ran and the day is over since: its seed is published now.
        fresh = board is not None and time.monotonic() - board.made < TODAY_FRESH_S
        fresh = fresh and not self.daily.published(day)
        if board is not None and (board.final or (fresh and not again)):
            self._kept.move_to_end(day)
            return board
        making = self._making.get(day)
        if making is None:
            making = self._making[day] = asyncio.ensure_future(self._make(day))
            making.add_done_callback(lambda _: self._making.pop(day, None))
        return await asyncio.shield(making)

    async def _make(self, day: dt.date) -> Board:
        daily = self.daily
        final = daily.published(day)  # before the read: tries may still end meanwhile
        entries = await asyncio.to_thread(daily.board, day)
        board = Board(day, entries, board_public(daily, day, entries), final, time.monotonic())
        self._kept[day] = board
        self._kept.move_to_end(day)
        while len(self._kept) > BOARDS_KEPT:
            self._kept.popitem(last=False)
        return board


def board_public(daily: DailyDeals, day: dt.date, entries: list[BoardEntry]) -> dict[str, Any]:
    """What everyone is shown of a day's board; the seed and the deal only once the day
    is over."""
    published = daily.published(day)
    seed = daily.seed(day)
    rules = daily_rules()
    bots = choice(DAILY_BOTS)
    return {
        "date": day.isoformat(),
        "today": day == daily.today(),
        "closes": daily.closes(day),
        "published": published,
        "commitment": commitment(day, seed),
        # As text: 63 bits are more than a JavaScript number holds exactly.
        "seed": str(seed) if published else None,
        "layouts": list(deal(DAILY_SEATS, rules, seed).layouts) if published else None,
        "table": {
            "seats": DAILY_SEATS,
            "bots": bots.label,
            "specs": [bots.spec_for(n) for n in range(DAILY_SEATS - 1)],
            "pace": DAILY_PACE,
            "rules": rules.changed(),
        },
        "players": len(entries),
        "rows": [e.public(n) for n, e in enumerate(entries[:BOARD_ROWS], start=1)],
        "histogram": histogram([e.score for e in entries]),
    }


def _yours(
    board: Board, mine: Attempt | None, device: str | None, account: str | None
) -> dict[str, Any]:
    """The asker's try of the day: whether one was counted (from this device, by the
    account signed in, or only from this address), and its own place on the board."""
    if mine is None:
        return {"counted": False, "by": None, "done": False, "entry": None}
    by = (
        "device"
        if mine.device == device
        else "account"
        if account is not None and mine.account == account
        else "address"
    )
    own = by != "address"
    rank, found = next(
        ((n, e) for n, e in enumerate(board.entries, start=1) if e.table_id == mine.table_id),
        (0, None),
    )
    return {
        "counted": True,
        "by": by,
        "done": found is not None,
        "entry": found.public(rank) if found is not None and own else None,
    }


def daily_routes(services: Services) -> list[BaseRoute]:
    """The routes above."""
    starting = asyncio.Lock()  # a try's check and its record, one start at a time
    boards: Boards | None = None

    def daily() -> DailyDeals:
        return services.daily

    def kept_boards() -> Boards:
        nonlocal boards
        if boards is None:
            boards = Boards(daily())
        return boards

    async def start(request: Request) -> Response:
        try:
            body = await decode_body(request, DailyStart, "daily start")
            deals = daily()
            today = deals.today()
            if body.date is not None and parse_day(body.date) != today:
                raise RequestError(
                    "not_today",
                    f"the daily deal of {body.date} is not the one being played: today's "
                    f"(UTC) is {today.isoformat()}",
                    409,
                )
            name = player_name(body.name)
            device = device_hash(request, required=True)
            assert device is not None
            address = client_address(request.scope)
            _, refusal = await joining_device(services, request, address)
            if refusal is not None:
                services.metrics.refused(refusal.code)
                return refusal.response()
            keyed = deals.address_key(address)
            signed = await signed_in(services, request)
            account = None if signed is None else signed.id
            async with starting:
                played = await asyncio.to_thread(deals.counted_by, today, device, keyed, account)
                if played is not None and not body.practice:
                    where = (
                        "this browser"
                        if played.device == device
                        else "your account"
                        if account is not None and played.account == account
                        else "this address"
                    )
                    raise RequestError(
                        "daily_played",
                        f"today's deal has had its counted try from {where}: one a day per "
                        "player. Practise it as often as you like (practice: true); that "
                        "counts for nothing",
                        409,
                    )
                if played is None and body.practice:
                    raise RequestError(
                        "daily_not_played",
                        "play today's counted try first: practice replays come after it",
                        409,
                    )
                settings = daily_settings(today, body.practice)
                made = await seat_alone(services, request, daily_rules(), settings, name, account)
                if not isinstance(made, Alone):
                    return made
                attempt = Attempt(
                    today.isoformat(),
                    made.entry.id,
                    not body.practice,
                    name,
                    device,
                    keyed,
                    time.time(),
                    account,
                )
                await asyncio.to_thread(deals.record, attempt)
            if not body.practice:  # in "My games", as any match; practice never is
                await took_place(services, device, made.entry, made.seat, 0, name, account)
            answer = {**made.body(), "date": today.isoformat(), "counted": not body.practice}
            return JSONResponse(answer, status_code=201)
        except RequestError as error:
            return error.response()

    async def board(request: Request) -> Response:
        try:
            deals = daily()
            today = deals.today()
            asked = request.path_params.get("date")
            day = today if asked is None else parse_day(asked)
            if day > today:
                raise RequestError(
                    "daily_not_yet",
                    f"the deal of {day.isoformat()} is not dealt yet: today (UTC) is "
                    f"{today.isoformat()}",
                    404,
                )
            if day < today - dt.timedelta(days=DAYS_KEPT):
                raise RequestError(
                    "daily_gone",
                    f"the boards of the last {DAYS_KEPT} days are kept, not older",
                    404,
                )
            device = device_hash(request, required=False)
        except RequestError as error:
            return error.response()
        found = await kept_boards().get(day)
        keyed = deals.address_key(client_address(request.scope))
        signed = await signed_in(services, request)
        account = None if signed is None else signed.id
        mine = await asyncio.to_thread(deals.counted_by, day, device, keyed, account)
        if (
            mine is not None
            and not found.final
            and all(e.table_id != mine.table_id for e in found.entries)
            and await asyncio.to_thread(deals.over, mine.table_id)
        ):  # the asker's own try has just ended: the board they come to shows it
            found = await kept_boards().get(day, again=True)
        you = _yours(found, mine, device, account)
        best = None
        if found.entries and (found.public["published"] or you["done"]):
            top = found.entries[0]
            best = {
                "match": top.table_id,
                "hand": 1,
                "name": top.name,
                "score": top.score,
                "link": f"/replay/{top.table_id}?hand=1",
            }
        return JSONResponse({**found.public, "you": you, "best": best})

    async def read_only(request: Request) -> Response:
        return error_response(
            "read_only",
            "a day's board is written by the server alone, from the hands it dealt and saw "
            "played; no score or time is taken from a client",
            405,
        )

    async def html(request: Request) -> Response:
        return page(request)

    return [
        Route("/daily", html),
        Route("/daily/{date}", html),
        Route("/api/daily", board, methods=["GET"]),
        Route("/api/daily", start, methods=["POST"]),
        Route("/api/daily/{date}", board, methods=["GET"]),
        Route("/api/daily/{date}", read_only, methods=["POST", "PUT", "PATCH", "DELETE"]),
    ]


async def prune_daily(daily: DailyDeals) -> None:
    """Forget the tries of days no longer kept (``DailyDeals.prune``), now and hourly."""
    while True:
        try:
            gone = await asyncio.to_thread(daily.prune)
        except Exception:  # a busy database: try again next time
            log.exception("the daily deal's old tries could not be pruned")
        else:
            if gone:
                log.info("forgot %d daily tries older than %d days", gone, DAYS_KEPT)
        await asyncio.sleep(PRUNE_S)
