"""The HTTP side of a player's own history: the device a join brings, ``GET /api/me``,
one match hand by hand, and the pages ``/me`` and ``/matches/{id}/{number}``.

* ``GET /api/me`` (the ``X-Nertz-Device`` header required): the device's name,
  figures and finished matches by series (``history.device_history``); an unknown
  device has none. ``401 no_device`` without the header, ``400 bad_device`` for a
  malformed secret. Signed in to an account (``accounts_api.signed_in``), the
  account's: its name and the history of every device linked to it, header or not;
  ``account`` says which (``{"id", "name"}``; absent without one).
* ``GET /api/matches/{id}/{number}``: match ``number`` of table ``id``'s series, hand by
  hand (``history.match_breakdown``); with the header, ``you`` names the asker's seat.
  ``404 unknown_match`` if there is no such finished match.

Both are a quota of the client's address (``Limits.histories_per_minute``, ``429
too_many_histories``).

A join (``POST /api/tables/{code}/join``) with the header records the place the device
took (``joining_device`` before the seat is taken, ``took_place`` after); the first join
of a device makes it, and a new device's secret must look random (``400 weak_device``).
"""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nertz.server.cluster.quotas import shared_rate
from nertz.server.door.edge import client_address
from nertz.server.door.limits import Refusal
from nertz.server.door.requests import RequestError, error_response
from nertz.server.http.accounts_api import signed_in
from nertz.server.http.services import Services
from nertz.server.http.web import page
from nertz.server.lobby.devices import DEVICE_HEADER, DevicePlace, device_hash, weak_secret
from nertz.server.lobby.history import device_history, match_breakdown
from nertz.server.lobby.lobby import Entry, check_name
from nertz.server.table.commands import Stage

__all__ = ["history_refusal", "joining_device", "me_routes", "took_place"]


async def history_refusal(services: Services, request: Request) -> Response | None:
    """The answer refusing a read of people's histories (``/api/me``, a match hand by
    hand, the ratings and players' pages) when the address is past
    ``Limits.histories_per_minute``, on this node or across a cluster; None to go on."""
    quotas = services.quotas
    address = client_address(request.scope)
    refusal = quotas.history(address) or await shared_rate(
        services.cluster, quotas, "histories", address
    )
    if refusal is None:
        return None
    services.metrics.refused(refusal.code)
    return refusal.response()


async def joining_device(
    services: Services, request: Request, address: str
) -> tuple[str | None, Refusal | None]:
    """The hash of the device a join brings (None: it brings none) or the quota that
    refuses a new one (``Limits.devices_per_hour``); a malformed secret, or a new one
    that does not look random (``weak_secret``: 400 ``weak_device``), raises
    ``RequestError``. A device already known is never checked again."""
    device = device_hash(request, required=False)
    if device is None or await asyncio.to_thread(services.devices.known, device):
        return device, None
    weak = weak_secret(request.headers[DEVICE_HEADER])
    if weak is not None:
        raise RequestError("weak_device", f"{weak}; make it with a secure random generator")
    quotas = services.quotas
    return device, quotas.device(address) or await shared_rate(
        services.cluster, quotas, "devices", address
    )


async def took_place(
    services: Services,
    device: str,
    entry: Entry,
    seat: int,
    partner: int,
    name: str,
    account: str | None = None,
) -> None:
    """Record that ``device`` took this place: from the hand being played, or the next;
    with the ``account`` its person was signed in to (whose rating it counts for)."""
    table = entry.table
    playing = table.stage in (Stage.COUNTDOWN, Stage.PLAYING)
    since = table.hand_no if playing else table.hand_no + 1
    place = DevicePlace(device, entry.id, seat, partner, since, check_name(name), account=account)
    await asyncio.to_thread(services.devices.took, place)


def me_routes(services: Services) -> list[BaseRoute]:
    """The routes above."""

    async def me(request: Request) -> Response:
        if (refusal := await history_refusal(services, request)) is not None:
            return refusal
        account = await signed_in(services, request)
        try:
            device = device_hash(request, required=account is None)
        except RequestError as error:
            return error.response()
        engine = services.store.engine
        if account is not None:  # every device the account played on
            linked = await asyncio.to_thread(services.accounts.devices, account.id)
            first, *others = linked or [""]  # "": no device, no places
            body = await asyncio.to_thread(
                device_history, engine, services.devices, first, tuple(others)
            )
            body["name"] = account.name
            body["account"] = {"id": account.id, "name": account.name}
            return JSONResponse(body)
        assert device is not None
        body = await asyncio.to_thread(device_history, engine, services.devices, device)
        return JSONResponse(body)

    async def one_match(request: Request) -> Response:
        if (refusal := await history_refusal(services, request)) is not None:
            return refusal
        try:
            device = device_hash(request, required=False)
        except RequestError as error:
            return error.response()
        table_id, number = request.path_params["match"], request.path_params["number"]
        body = await asyncio.to_thread(
            match_breakdown, services.store.engine, services.devices, table_id, number, device
        )
        if body is None:
            return error_response("unknown_match", f"no finished match {number} at that table", 404)
        return JSONResponse(body)

    async def html(request: Request) -> Response:
        return page(request)

    return [
        Route("/me", html),
        Route("/matches/{match}/{number:int}", html),
        Route("/api/me", me, methods=["GET"]),
        Route("/api/matches/{match}/{number:int}", one_match, methods=["GET"]),
    ]
