"""Quick match over HTTP (issue 26, point 3; docs/protocol.md, "Quick match"): rated
play with strangers, paired by rating (``nertz.rating.pair``), on this node's queue
(``lobby/quickmatch.py``).

Every route needs a signed-in account (``accounts_api.signed_in``; ``401
not_signed_in`` without one): rated play is an account's.

* ``POST /api/quick`` ``{"mode", "low", "high"}`` (``solo`` or ``partners``; the table
  size range in people, 2-4 by default; at ``partners`` at least 4, two seats of two,
  R40) and the device header (``401 no_device``: a rated place is stored with the
  browser that took it): enter the queue, under the account's name;
  a second entry for the same account replaces the first; one seated at a rated table
  whose match is being played is ``409 in_rated_match``. Answers ``201`` with the
  state below. A quota of the address (a join: ``Limits.joins_per_minute``) and of
  the queue (``Limits.quick_per_address``, ``Limits.max_quick``).
* ``GET /api/quick``: the state, polled about once a second by the waiting page:
  ``{"state": "waiting", "mode", "low", "high", "waited_s", "bots_in"}`` (``bots_in``:
  seconds until bots fill the seats nobody took), then once ``{"state": "seated",
  "code", "key", "seat", "partner", "token", "link"}`` (the page opens the link), or
  once ``{"state": "refused", "error", "reason"}`` (the table's seat refused them), or
  ``{"state": "none"}``; each with ``ratings``, the account's shown rating per mode.
* ``DELETE /api/quick``: leave the queue at once; ``{"state": "none", "left"}``.

The pairing runs on a timer (``run_quick``, every ``TICK_S``): each table it makes is a
private rated table (``Settings.rated``: the rated preset, no hints, no pause, the bots
at their own pace) with the bots the pairing names, the people seated in order and
each device's place recorded, as a join records it (the ratings read it). On a cluster
the nodes' queues are one, in Redis (``cluster/quickshare.py``): one node pairs them
all and makes each table on itself, and each seat goes home to its page's node.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Annotated

import msgspec
from redis.exceptions import RedisError
from sqlalchemy import Engine, select
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nertz.rating import MODES, Pairing, Rating, absent, rated_rules, shown
from nertz.server.cluster.quickshare import SharedQueue
from nertz.server.cluster.quotas import shared_rate
from nertz.server.cluster.routing import new_table
from nertz.server.door.edge import client_address
from nertz.server.door.requests import RequestError, decode_body
from nertz.server.http.accounts_api import signed_in
from nertz.server.http.me import joining_device, took_place
from nertz.server.http.services import Services
from nertz.server.lobby.devices import DEVICE_HEADER, person_id
from nertz.server.lobby.quickmatch import Player, Refused, Seat, Waiting
from nertz.server.store.schema import ratings_t
from nertz.server.table.commands import Stage
from nertz.server.table.settings import Settings

__all__ = ["TICK_S", "QuickIn", "Tell", "quick_routes", "run_quick", "seat_pairing", "tell_here"]

log = logging.getLogger("nertz.quick")

TICK_S = 0.5
"""How often the queue is paired: a full table sits down within half a second."""


class QuickIn(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/quick``."""

    mode: str = "solo"
    low: Annotated[int, msgspec.Meta(ge=2, le=8)] = 2
    high: Annotated[int, msgspec.Meta(ge=2, le=8)] = 4


def _rating(engine: Engine, mode: str, account: str) -> Rating:
    """The account's stored rating in ``mode`` (a new player's if none; ratings are
    kept by account, ``ratings.player_key``), as it stands now (absence widens it)."""
    with engine.connect() as conn:
        row = conn.execute(
            select(ratings_t).where(ratings_t.c.mode == mode, ratings_t.c.key == account)
        ).first()
    found = Rating() if row is None else Rating(row.mu, row.sigma, row.matches, row.last)
    return absent(found, time.time())


async def _ratings(services: Services, account: str) -> dict[str, str]:
    engine = services.store.engine
    return {mode: shown(await asyncio.to_thread(_rating, engine, mode, account)) for mode in MODES}


def _not_signed_in() -> RequestError:
    return RequestError(
        "not_signed_in",
        "quick match is rated play: sign in to your account (or make one) first",
        401,
    )


def quick_routes(services: Services) -> list[BaseRoute]:
    """The routes above."""
    quotas = services.quotas

    async def enter(request: Request) -> Response:
        address = client_address(request.scope)
        refusal = quotas.join(address) or await shared_rate(
            services.cluster, quotas, "joins", address
        )
        if refusal is not None:
            services.metrics.refused(refusal.code)
            return refusal.response()
        try:
            account = await signed_in(services, request)
            if account is None:
                raise _not_signed_in()
            body = await decode_body(request, QuickIn, "quick")
            device, refusal = await joining_device(services, request, address)
            if refusal is not None:
                services.metrics.refused(refusal.code)
                return refusal.response()
            if device is None:  # as a rated join (tables_api.py)
                raise RequestError(
                    "no_device",
                    "a rated place is stored with the browser that took it: send its "
                    f"device secret in the {DEVICE_HEADER} header",
                    401,
                )
            engine = services.store.engine
            mu = (await asyncio.to_thread(_rating, engine, body.mode, account.id)).mu
            quick = services.quick
            quick.enter(
                Player(account.id, account.name, device, address, account.is_new(time.time())),
                body.mode,
                body.low,
                body.high,
                mu,
            )
            state = quick.status(account.id)
        except RequestError as error:
            return error.response()
        answer = {**state, "ratings": await _ratings(services, account.id)}
        return JSONResponse(answer, status_code=201)

    async def state(request: Request) -> Response:
        account = await signed_in(services, request)
        if account is None:
            return _not_signed_in().response()
        found = services.quick.status(account.id)
        if found["state"] != "waiting":  # the page shows the rating; no read while waiting
            found["ratings"] = await _ratings(services, account.id)
        return JSONResponse(found)

    async def leave(request: Request) -> Response:
        account = await signed_in(services, request)
        if account is None:
            return _not_signed_in().response()
        return JSONResponse({"state": "none", "left": services.quick.leave(account.id)})

    return [
        Route("/api/quick", enter, methods=["POST"]),
        Route("/api/quick", state, methods=["GET"]),
        Route("/api/quick", leave, methods=["DELETE"]),
    ]


def table_for(pairing: Pairing, people: int) -> Settings:
    """The rated table of ``pairing``: ``people`` seated first, then its bots; at
    partnerships two places a seat (R40), a bot completing a person's seat (``+level``)."""
    per = 2 if pairing.mode == "partners" else 1
    places: list[str | None] = [None] * people + list(pairing.bots)
    bots: dict[int, str] = {}
    for seat in range(len(places) // per):
        mine = places[seat * per : (seat + 1) * per]
        if all(p is None for p in mine):
            continue
        bots[seat] = "+".join(p or "" for p in mine)
    return Settings(seats=len(places) // per, bots=bots, public=False, rated=True).check()


Tell = Callable[[str, Seat | Refused], Awaitable[None]]
"""Where a person's seat (or why they have none) goes: the local queue, or in a
cluster the shared one, for their page's node (``cluster/quickshare.py``)."""


async def tell_here(services: Services, account: str, seat: Seat | Refused) -> None:
    """A single node's ``Tell``: the local queue keeps it for the page."""
    if isinstance(seat, Seat):
        services.quick.seated(account, seat)
    else:
        services.quick.refused(account, seat.code, seat.reason)


async def seat_pairing(
    services: Services, pairing: Pairing, people: tuple[Waiting, ...], tell: Tell | None = None
) -> None:
    """Make ``pairing``'s rated table on this node and seat its people in order; each is
    told their seat (``tell``, by default ``tell_here``). One who cannot sit (their name
    taken meanwhile...) is told why; the others still play."""
    lobby, quick = services.lobby, services.quick
    told: Tell = tell or partial(tell_here, services)
    partners = pairing.mode == "partners"
    settings = table_for(pairing, len(people))
    entry, key = await new_table(services.cluster, lobby, rated_rules(partners), settings)
    per = 2 if partners else 1
    for number, person in enumerate(people):
        seat, partner = divmod(number, per)
        device, account = person.player.device, person.player.account
        try:
            _, seat, partner, token = await lobby.join(
                entry.code,
                person.player.name,
                seat,
                key,
                partner if partners else None,
                address=person.player.address,
                person=person_id(entry.id, device),
                account=account,
                new_account=person.player.new_account,
            )
        except RequestError as error:  # new_account: a second newcomer from one address
            log.warning("quick match could not seat %s: %s", account, error.reason)
            await told(account, Refused(error.code, error.reason, quick.clock()))
            continue
        # The ratings read the place the device took, with its account (as a join).
        await took_place(services, device, entry, seat, partner, person.player.name, account)
        await asyncio.to_thread(services.accounts.link_device, device, account)
        await told(account, Seat(entry.code, key, seat, partner, token, quick.clock()))


async def run_quick(services: Services, tick_s: float = TICK_S) -> None:
    """Pair the queue every ``tick_s`` and seat each table it makes, until cancelled. In
    a cluster the queue is the nodes' together (``cluster/quickshare.py``)."""
    lobby = services.lobby

    def playing(code: str) -> bool:
        entry = lobby.tables.get(code)
        return entry is not None and entry.table.stage is not Stage.OVER

    cluster = services.cluster
    if cluster is not None:
        if services.quick.clock is time.monotonic:
            # The entries' times meet other nodes': the wall clock is the one they share.
            services.quick.clock = time.time
        shared = SharedQueue(cluster.redis, cluster.id, services.quick)

        async def seating(pairing: Pairing, people: tuple[Waiting, ...]) -> None:
            await seat_pairing(services, pairing, people, shared.tell)

        while True:
            await asyncio.sleep(tick_s)
            try:
                await shared.tick(seating, playing)
            except RedisError as error:  # Redis away: the pages wait on, as entries do
                log.warning("quick match: the shared queue is unreachable: %s", error)
    while True:
        await asyncio.sleep(tick_s)
        services.quick.forget_played(playing)
        for pairing, people in services.quick.due():
            try:
                await seat_pairing(services, pairing, people)
            except Exception:  # a table that could not be made: they wait on
                log.exception("quick match could not make a table for %s", pairing.keys)
