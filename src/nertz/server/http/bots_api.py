"""The HTTP side of outside bots (docs/bots.md, "Outside bots"; ``lobby/outside.py``).

* ``POST /api/bots`` ``{"name"}``: register a bot under a name (checked as a person's
  name is, and held for good: ``409 name_held``). Answer ``201`` ``{"name", "token"}``:
  the token is shown this once; the server keeps only its SHA-256. A quota of the
  client's address (``Limits.bots_per_day``, ``429 too_many_bots``). With the header
  ``X-Nertz-Device`` the device's hash is kept as the bot's owner beside the address's.
* ``DELETE /api/bots/{name}`` with the bot's token (``Authorization: Bearer TOKEN``):
  revoke it; the token is refused from then on, the name stays held, and every place it
  holds at a table is given up at once (its connection gets error ``bot_revoked``).
* ``POST /api/tables/{code}/bot`` ``{"seat"?, "partner"?, "key"?}`` with the bot's
  token (under the table's path, so a cluster routes it to the table's node): the bot
  takes a place under its name, as a person's join does (the same quotas, the same
  answer ``{"code", "seat", "token", "ws"}`` plus ``"name"``). Only at a table that
  allows outside bots (``outside_bots``) or in a place the host invited it
  to by name (``409 no_outside_bots``). Then it plays like any client: ``/ws``, hello
  with the seat token, every limit of a connection.

A bot's token travels in the ``Authorization`` header, never in a URL: it reaches no
access log, history or shared link. A wrong or revoked token is ``401 bad_bot_token``.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nertz.server.cluster.quotas import shared_lookup, shared_missed, shared_rate
from nertz.server.door.edge import client_address
from nertz.server.door.limits import Quotas, Refusal
from nertz.server.door.requests import RequestError, decode_body
from nertz.server.http.services import Services
from nertz.server.lobby.devices import device_hash
from nertz.server.lobby.lobby import Lobby, player_name, unknown_table
from nertz.server.lobby.outside import OutsideBot, OutsideBots, bad_bot_token

__all__ = ["BotJoin", "Register", "bot_token", "bots_routes"]

_BEARER = "bearer "


class Register(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/bots``: the name the bot plays under."""

    name: str


class BotJoin(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/tables/{code}/bot``: optionally the place, and a private table's
    invite as ``key``, as a person's join."""

    seat: int | None = None
    partner: int | None = None
    key: str | None = None


def bot_token(request: Request) -> str:
    """The bot's token from ``Authorization: Bearer TOKEN`` (``401 no_bot_token``
    without it)."""
    given = request.headers.get("authorization", "")
    if not given.lower().startswith(_BEARER) or not given[len(_BEARER) :].strip():
        raise RequestError(
            "no_bot_token", "send the bot's token in the header Authorization: Bearer TOKEN", 401
        )
    token = given[len(_BEARER) :].strip()
    if len(token) > 128:
        raise bad_bot_token()
    return token


def _address_hash(address: str) -> str:
    """What the store keeps of an owner's address: its SHA-256, never the address."""
    return hashlib.sha256(f"nertz address|{address}".encode()).hexdigest()


def bots_routes(services: Services) -> list[BaseRoute]:
    """The routes above, on the server's ``services`` (its lobby once started)."""

    def registry() -> OutsideBots:
        lobby: Lobby = services.lobby
        assert lobby.outside is not None  # a served lobby always has its store
        return lobby.outside

    def refused(refusal: Refusal) -> Response:
        services.metrics.refused(refusal.code)
        return refusal.response()

    async def register(request: Request) -> Response:
        address = client_address(request.scope)
        quotas: Quotas = services.quotas
        try:
            body = await decode_body(request, Register, "bot")
            name = player_name(body.name)
            device = device_hash(request, required=False)
            refusal = quotas.bot(address) or await shared_rate(
                services.cluster, quotas, "bots", address
            )
            if refusal is not None:
                return refused(refusal)
            token = await asyncio.to_thread(
                registry().register, name, _address_hash(address), device
            )
        except RequestError as error:
            return error.response()
        return JSONResponse({"name": name, "token": token}, status_code=201)

    async def revoke(request: Request) -> Response:
        try:
            name = await asyncio.to_thread(
                registry().revoke, request.path_params["name"], bot_token(request)
            )
        except RequestError as error:
            return error.response()
        services.lobby.revoked(name)  # its places, wherever it sits, are given up at once
        return JSONResponse({"name": name, "revoked": True})

    async def join(request: Request) -> Response:
        address = client_address(request.scope)
        quotas: Quotas = services.quotas
        refusal = quotas.join(address) or await shared_lookup(services.cluster, quotas, address)
        refusal = refusal or await shared_rate(services.cluster, quotas, "joins", address)
        if refusal is not None:
            return refused(refusal)
        code = request.path_params["code"]
        try:
            body = await decode_body(request, BotJoin, "join")
            bot: OutsideBot = await asyncio.to_thread(registry().by_token, bot_token(request))
            entry, seat, partner, token = await services.lobby.join(
                code, bot.name, body.seat, body.key, body.partner, address=address, outside=True
            )
        except RequestError as error:
            if error.code in ("private_table", "unknown_table"):  # the same answer for both
                await shared_missed(services.cluster, quotas, address)
                return unknown_table(code).response()
            return error.response()
        answer: dict[str, Any] = {
            "code": entry.code,
            "seat": seat,
            "token": token,
            "ws": "/ws",
            "name": bot.name,
        }
        if entry.table.per_seat > 1:
            answer["partner"] = partner
        return JSONResponse(answer)

    return [
        Route("/api/bots", register, methods=["POST"]),
        Route("/api/tables/{code}/bot", join, methods=["POST"]),
        Route("/api/bots/{name}", revoke, methods=["DELETE"]),
    ]
