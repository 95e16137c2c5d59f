"""The table routes (docs/protocol.md): ``POST /api/tables`` create,
``GET /api/tables`` the open public tables, ``GET /api/tables/{code}`` one table (a
finished one from the store), ``POST /api/tables/{code}/join`` take a seat.

Each is a quota of the client's address (``limits.Quotas``), counted across a cluster
too (``cluster/``); a lookup that misses counts against the address, and a private
table answers as an unused code does (its code cannot be probed). A join signed in to
an account (``accounts_api.signed_in``) may sit under the account's name, and links the
device it brings to the account. A rated table (``Settings.rated``) seats only a join
signed in to an account that brings its device (``Lobby.join``; ``401
account_required``, ``401 no_device``): the place is stored with the account, whose
rating it counts for (``lobby/ratings.py``)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nertz.server.cluster.live import shared_table
from nertz.server.cluster.quotas import shared_lookup, shared_missed, shared_rate
from nertz.server.cluster.routing import new_table
from nertz.server.door.edge import client_address
from nertz.server.door.limits import Refusal
from nertz.server.door.requests import RequestError, decode_body
from nertz.server.http.accounts_api import signed_in
from nertz.server.http.kept import Listing
from nertz.server.http.me import joining_device, took_place
from nertz.server.http.services import Services
from nertz.server.http.sharing import links
from nertz.server.lobby.devices import DEVICE_HEADER, person_id
from nertz.server.lobby.lobby import (
    CreateTable,
    LobbyError,
    table_request,
    unknown_table,
)

__all__ = ["JoinTable", "tables_routes"]


class JoinTable(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    seat: int | None = None
    key: str | None = None
    partner: int | None = None
    """At a partnership table (R40): which place of ``seat``, i.e. sit with whom."""
    host_token: str | None = None
    """The creator's host token, from the create answer: the host sits (``host.py``)."""


def tables_routes(services: Services) -> list[BaseRoute]:
    """The routes above."""
    quotas, metrics = services.quotas, services.metrics

    def refused(refusal: Refusal) -> Response:
        metrics.refused(refusal.code)
        return refusal.response()

    def held(code: str) -> bool:
        return code in services.lobby.tables  # an address's table counts until it is gone

    async def create_table(request: Request) -> Response:
        address = client_address(request.scope)
        refusal = quotas.create_table(address, held)
        refusal = refusal or await shared_rate(services.cluster, quotas, "creates", address)
        refusal = refusal or await shared_table(services.live, quotas, services.lobby, address)
        if refusal is not None:
            return refused(refusal)
        try:
            rules, settings = table_request(await decode_body(request, CreateTable, "table"))
            bots_only = len(settings.bots) >= settings.seats  # no seat for a person
            if bots_only and (refusal := quotas.bot_table(address, held)) is not None:
                return refused(refusal)
            entry, key = await new_table(services.cluster, services.lobby, rules, settings)
        except RequestError as error:
            if error.code == "too_many_tables":  # the server-wide cap
                metrics.refused(error.code)
                return Refusal(error.code, error.reason, 60, error.status).response()
            return error.response()
        quotas.table_created(address, entry.code, held, bots_only)
        host_token = services.lobby.keep_for_creator(entry, address)
        out: dict[str, Any] = {
            "code": entry.code,
            "id": entry.id,
            "ws": "/ws",
            "host_token": host_token,
        }
        if key is not None:
            out["key"] = key
        shared = links(entry, key)
        out.update(link=shared["link"], invite=shared["invite"], watch=shared["watch"])
        return JSONResponse(out, status_code=201)

    listing = Listing()

    async def list_tables(request: Request) -> Response:
        async def made() -> bytes:
            cluster, lobby = services.cluster, services.lobby
            found = lobby.open_tables() if cluster is None else await cluster.open_tables()
            return msgspec.json.encode({"tables": found})

        body = await listing.get(len(services.lobby.tables), made)
        return Response(body, media_type="application/json")

    async def show_table(request: Request) -> Response:
        code, key = request.path_params["code"], request.query_params.get("key")
        address = client_address(request.scope)
        refusal = await shared_lookup(services.cluster, quotas, address)
        if refusal is not None:
            return refused(refusal)
        lobby = services.lobby
        try:
            if code.strip().upper() not in lobby.tables:  # over and gone: from the store
                return JSONResponse((await lobby.archived(code, key)).info)
            entry = lobby.find(code)
            if not entry.watch_ok(key):
                raise unknown_table(code)  # the same answer: private codes cannot be probed
        except LobbyError as error:
            await shared_missed(services.cluster, quotas, address)
            return error.response()
        info = entry.table.info()
        if info["stage"] == "over":
            # As once the table is archived: the match's id, for its replay (end panel).
            info["match"] = entry.id
        return JSONResponse(info)

    async def join_table(request: Request) -> Response:
        address = client_address(request.scope)
        refusal = quotas.join(address) or await shared_lookup(services.cluster, quotas, address)
        if refusal is not None:
            return refused(refusal)
        code, lobby = request.path_params["code"], services.lobby
        if (refusal := await shared_rate(services.cluster, quotas, "joins", address)) is not None:
            return refused(refusal)
        try:
            body = await decode_body(request, JoinTable, "join")
            device, refusal = await joining_device(services, request, address)  # me.py
            if refusal is not None:
                return refused(refusal)
            found = lobby.find(code)
            person = None if device is None else person_id(found.id, device)
            account = await signed_in(services, request)  # None: played as before
            rated = found.table.settings.rated and found.key_ok(body.key)
            if rated and account is not None and device is None:
                raise RequestError(
                    "no_device",
                    "a rated place is stored with the browser that took it: send its "
                    f"device secret in the {DEVICE_HEADER} header",
                    401,
                )
            entry, seat, partner, token = await lobby.join(
                code,
                body.name,
                body.seat,
                body.key,
                body.partner,
                body.host_token,
                address,
                person,
                account=None if account is None else account.id,
                new_account=account is not None and account.is_new(time.time()),
            )
            if device is not None:
                await took_place(
                    services,
                    device,
                    entry,
                    seat,
                    partner,
                    body.name,
                    None if account is None else account.id,
                )
                if account is not None:  # its history is the account's from now on
                    await asyncio.to_thread(services.accounts.link_device, device, account.id)
        except RequestError as error:
            if error.code in ("private_table", "unknown_table"):  # the same answer for both
                await shared_missed(services.cluster, quotas, address)
                return unknown_table(code).response()
            return error.response()
        answer: dict[str, Any] = {"code": entry.code, "seat": seat, "token": token, "ws": "/ws"}
        if entry.table.per_seat > 1:
            answer["partner"] = partner
        return JSONResponse(answer)

    return [
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/tables", list_tables, methods=["GET"]),
        Route("/api/tables/{code}", show_table, methods=["GET"]),
        Route("/api/tables/{code}/join", join_table, methods=["POST"]),
    ]
