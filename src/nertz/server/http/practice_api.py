"""Starting practice: ``POST /api/practice`` and ``POST /api/learn`` (docs/protocol.md).

Both make a private practice table (``Settings.practice``: unscored, never in anyone's
history; ``practice.py``), seat the person at seat 0 and answer with the seat's token
and the link that opens it (``/t/CODE?key=KEY#seat=TOKEN``):

* ``POST /api/practice`` ``{"name", "bots", "count", "pace"}``: one person against
  ``count`` (1-3) bots of the plain choice ``bots`` (``relaxed`` ...), at ``pace``
  percent of their speed;
* ``POST /api/learn`` ``{"name"}``: the guided first hand (``lessons.FIRST_HAND``)
  against one slow bot, who then plays the practice hands that follow.

Each counts as a table created and a join by the client's address (``limits.Quotas``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nertz.bots import choice
from nertz.engine import Rules, preset
from nertz.server.cluster.live import shared_table
from nertz.server.cluster.quotas import shared_rate
from nertz.server.cluster.routing import new_table
from nertz.server.door.edge import client_address
from nertz.server.door.requests import RequestError, decode_body
from nertz.server.http.services import Services
from nertz.server.lobby.lobby import Entry
from nertz.server.table.lessons import FIRST_HAND
from nertz.server.table.settings import Settings

__all__ = [
    "LESSON_PACE",
    "Alone",
    "LearnRequest",
    "PracticeRequest",
    "practice_routes",
    "seat_alone",
]

LESSON_PACE = 40
"""The teacher bot's pace after the lesson: a beginner at 40% is a deliberate hand."""


class PracticeRequest(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/practice``."""

    name: Annotated[str, msgspec.Meta(max_length=64)] = "You"
    bots: str = "relaxed"
    count: Annotated[int, msgspec.Meta(ge=1, le=3)] = 1
    pace: Annotated[int, msgspec.Meta(ge=10, le=100)] = 60


class LearnRequest(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/learn``."""

    name: Annotated[str, msgspec.Meta(max_length=64)] = "You"


def practice_settings(body: PracticeRequest) -> Settings:
    """A practice table's settings: the person at seat 0, the bots after."""
    try:
        picked = choice(body.bots)
    except ValueError as error:
        raise RequestError("bad_bots", str(error)) from None
    bots = {seat: picked.spec_for(seat - 1) for seat in range(1, 1 + body.count)}
    return Settings(
        seats=1 + body.count, bots=bots, public=False, practice=True, bot_pace=body.pace
    )


def lesson_table() -> tuple[Rules, Settings]:
    """The guided hand's table: the learner and one beginner bot (the teacher); the
    breakdown stays up until the learner is ready (``next_hand_s``)."""
    # Races need no settling with one person at the table; a move goes in as it comes.
    rules = preset("standard").with_options(fair_races=False)
    settings = Settings(
        seats=2,
        bots={1: "beginner"},
        public=False,
        practice=True,
        lesson=FIRST_HAND.name,
        bot_pace=LESSON_PACE,
        countdown_ms=1000,
        next_hand_s=600,
    )
    return rules, settings


@dataclass(frozen=True, slots=True)
class Alone:
    """A private table made for one person, who sits at seat 0 of it."""

    entry: Entry
    key: str | None
    seat: int
    token: str

    def body(self) -> dict[str, Any]:
        """The answer's body: the seat's token and the link that opens it."""
        code, key, token = self.entry.code, self.key, self.token
        link = f"/t/{code}?key={key}#seat={token}"
        return {"code": code, "key": key, "seat": self.seat, "token": token, "link": link}


async def seat_alone(
    services: Services,
    request: Request,
    rules: Rules,
    settings: Settings,
    name: str,
    account: str | None = None,
) -> Alone | Response:
    """Make a private table for the person asking and seat them at seat 0: a table
    created and a join by the client's address (``limits.Quotas``), or the quota's
    refusal as the answer. ``account``: the id of the account they are signed in to,
    under whose name they may sit (``Lobby.join``)."""
    quotas, cluster, lobby = services.quotas, services.cluster, services.lobby

    def held(code: str) -> bool:
        return code in lobby.tables  # counts until the table is gone

    address = client_address(request.scope)
    refusal = quotas.create_table(address, held) or quotas.join(address)
    refusal = refusal or await shared_rate(cluster, quotas, "creates", address)
    refusal = refusal or await shared_rate(cluster, quotas, "joins", address)
    refusal = refusal or await shared_table(services.live, quotas, lobby, address)
    if refusal is not None:
        services.metrics.refused(refusal.code)
        return refusal.response()
    entry, key = await new_table(cluster, lobby, rules, settings)
    quotas.table_created(address, entry.code, held)
    _, seat, _, token = await lobby.join(entry.code, name, 0, key, account=account)
    return Alone(entry, key, seat, token)


def answer(made: Alone | Response) -> Response:
    """``seat_alone``'s table as the answer (201), or its refusal."""
    return made if isinstance(made, Response) else JSONResponse(made.body(), status_code=201)


def practice_routes(services: Services) -> list[BaseRoute]:
    """The two routes."""

    async def practice(request: Request) -> Response:
        try:
            body = await decode_body(request, PracticeRequest, "practice")
            rules, settings = preset("standard"), practice_settings(body)
            return answer(await seat_alone(services, request, rules, settings, body.name))
        except RequestError as error:
            return error.response()

    async def learn(request: Request) -> Response:
        try:
            body = await decode_body(request, LearnRequest, "learn")
            rules, settings = lesson_table()
            return answer(await seat_alone(services, request, rules, settings, body.name))
        except RequestError as error:
            return error.response()

    return [
        Route("/api/practice", practice, methods=["POST"]),
        Route("/api/learn", learn, methods=["POST"]),
    ]
