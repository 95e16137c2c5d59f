"""The HTTP side of accounts (``lobby/accounts.py``, ``lobby/passkeys.py``;
docs/protocol.md, "Accounts"). Playing needs no account: every other route works as
before without one.

* ``POST /api/account/new`` ``{"name"}``: begin making an account holding ``name``
  (a person's name, not held by an account or bot: ``409 name_held``). Answer
  ``{"ceremony", "publicKey"}``, the options for ``navigator.credentials.create``.
* ``POST /api/account`` ``{"ceremony", "credential"}``: the browser's answer; the
  account is made with that passkey and signed in. Answer ``201`` ``{"account",
  "recovery_code"}``: the code is shown this once (``Limits.accounts_per_day``).
* ``POST /api/account/signin/begin``, then ``POST /api/account/signin``
  ``{"ceremony", "credential"}``: sign in with a passkey of any account (discoverable:
  no name asked). Answer ``{"account"}``.
* ``POST /api/account/recover`` ``{"name", "code"}``: sign in with the recovery code,
  which is used up: the answer ``{"account", "recovery_code"}`` carries its
  replacement, shown once. Wrong: ``401 bad_recovery``; tries are a quota of the
  address and of the account (``Limits.recoveries_per_hour``).
* ``GET /api/account``: ``{"account"}``, the signed-in account with its passkeys and
  how many sessions it has, or null.
* Signed in (``401 not_signed_in`` without a session): ``PUT /api/account/name`` ``{"name"}`` rename
  (the old name is released); ``POST /api/account/passkeys/begin`` then ``POST
  /api/account/passkeys`` ``{"ceremony", "credential"}`` add a passkey; ``DELETE
  /api/account/passkeys/{id}`` remove one (never the last: ``409 last_passkey``);
  ``POST /api/account/recovery`` a new recovery code (shown once); ``POST
  /api/account/signout``.

A sign-in (making the account, a passkey, the recovery code) sets the session cookie
``nertz_session``: ``HttpOnly``, ``SameSite=Lax``, ``Path=/``, ``Secure`` when the
first public URL is https, for ``accounts.SESSION_DAYS``; a new session every time,
and the one the browser carried ends. Every change is a POST, PUT or DELETE, so the
site's ``Origin`` check (``site.py``) refuses another site's page. A request that
brings the device header (``X-Nertz-Device``) links that device to the account
(``Accounts.link_device``), as a signed-in join does.

``signed_in`` is the one way to the account of a request or a WebSocket: the ratings
key by its ``Account.id``.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgspec
from starlette.requests import HTTPConnection, Request, cookie_parser
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from nertz.server.cluster.ceremonies import shared_keep, shared_take
from nertz.server.cluster.quotas import shared_rate
from nertz.server.door.edge import client_address
from nertz.server.door.limits import Refusal
from nertz.server.door.requests import RequestError, decode_body
from nertz.server.http.services import Services
from nertz.server.http.web import page
from nertz.server.lobby.accounts import SESSION_DAYS, Account, Accounts, name_held
from nertz.server.lobby.devices import device_hash
from nertz.server.lobby.lobby import player_name
from nertz.server.lobby.passkeys import credential_id_of

__all__ = [
    "SESSION_COOKIE",
    "Answer",
    "NameIn",
    "RecoverIn",
    "accounts_routes",
    "session_cookie",
    "signed_in",
]

SESSION_COOKIE = "nertz_session"
_TOKEN_MAX = 64


class NameIn(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/account/new``, ``PUT /api/account/name``: a name."""

    name: str


class Answer(msgspec.Struct, forbid_unknown_fields=True):
    """A ceremony's answer: its id and the browser's ``PublicKeyCredential`` as JSON."""

    ceremony: str
    credential: dict[str, Any]


class RecoverIn(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/account/recover``: the account's name and its recovery code."""

    name: str
    code: str


def session_cookie(scope: Mapping[str, Any]) -> str | None:
    """The session cookie an ASGI scope (a request's, a WebSocket's) carries, if any."""
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            token = cookie_parser(value.decode("latin-1")).get(SESSION_COOKIE)
            if token and len(token) <= _TOKEN_MAX:
                return token
    return None


async def signed_in(services: Services, conn: HTTPConnection) -> Account | None:
    """The account a request or WebSocket is signed in to (its session cookie), or
    None: playing without an account is as before."""
    token = session_cookie(conn.scope)
    if token is None:
        return None
    return await asyncio.to_thread(services.accounts.session, token)


def _address_hash(address: str) -> str:
    """What the store keeps of a maker's address: its SHA-256, never the address."""
    return hashlib.sha256(f"nertz address|{address}".encode()).hexdigest()


def _not_signed_in() -> RequestError:
    return RequestError("not_signed_in", "sign in to your account first", 401)


def accounts_routes(services: Services) -> list[BaseRoute]:
    """The routes above."""
    secure = services.site.base.startswith("https://")

    def accounts() -> Accounts:
        return services.accounts

    def refused(refusal: Refusal) -> Response:
        services.metrics.refused(refusal.code)
        return refusal.response()

    def signing_in(answer: Response, token: str) -> Response:
        answer.set_cookie(
            SESSION_COOKIE,
            token,
            max_age=SESSION_DAYS * 86_400,
            path="/",
            secure=secure,
            httponly=True,
            samesite="lax",
        )
        return answer

    async def sign_in(
        request: Request, account: Account, body: dict[str, Any], status: int = 200
    ) -> Response:
        """Answer ``body`` with a new session for ``account`` (the old one ends), and
        link the device the request brings, if any."""
        token = await asyncio.to_thread(
            accounts().start_session, account.id, session_cookie(request.scope)
        )
        device = device_hash(request, required=False)
        if device is not None:
            await asyncio.to_thread(accounts().link_device, device, account.id)
        return signing_in(JSONResponse(body, status_code=status), token)

    async def me(request: Request) -> Account:
        account = await signed_in(services, request)
        if account is None:
            raise _not_signed_in()
        return account

    def shown(account: Account) -> dict[str, Any]:
        return {"id": account.id, "name": account.name, "created": account.created}

    def guarded(
        handler: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestError as error:
                return error.response()

        return run

    async def ceremony_refused(request: Request) -> Response | None:
        address = client_address(request.scope)
        quotas = services.quotas
        refusal = quotas.ceremony(address) or await shared_rate(
            services.cluster, quotas, "ceremonies", address
        )
        return None if refusal is None else refused(refusal)

    @guarded
    async def begin_new(request: Request) -> Response:
        if (answer := await ceremony_refused(request)) is not None:
            return answer
        name = player_name((await decode_body(request, NameIn, "account")).name)
        if await asyncio.to_thread(accounts().holder, name) is not None:
            raise name_held(name)
        # Refused now, not after the browser made a passkey that no account would hold.
        if (refusal := services.quotas.account(client_address(request.scope), False)) is not None:
            return refused(refusal)
        ceremony, options = services.ceremonies.register("register", secrets.token_hex(8), name, [])
        await shared_keep(services.cluster, services.ceremonies, ceremony)
        return JSONResponse({"ceremony": ceremony, "publicKey": options})

    @guarded
    async def create(request: Request) -> Response:
        answer = await decode_body(request, Answer, "account")
        ceremony = await shared_take(
            services.cluster, services.ceremonies, answer.ceremony, "register"
        )
        passkey = services.ceremonies.verify_registration(ceremony, answer.credential)
        address = client_address(request.scope)
        quotas = services.quotas
        refusal = quotas.account(address) or await shared_rate(
            services.cluster, quotas, "accounts", address
        )
        if refusal is not None:
            return refused(refusal)
        assert ceremony.account is not None and ceremony.name is not None
        code = await asyncio.to_thread(
            accounts().create, ceremony.name, ceremony.account, passkey, _address_hash(address)
        )
        account = await asyncio.to_thread(accounts().by_id, ceremony.account)
        assert account is not None
        body = {"account": shown(account), "recovery_code": code}
        return await sign_in(request, account, body, 201)

    @guarded
    async def begin_signin(request: Request) -> Response:
        if (refusal := await ceremony_refused(request)) is not None:
            return refusal
        ceremony, options = services.ceremonies.signin()
        await shared_keep(services.cluster, services.ceremonies, ceremony)
        return JSONResponse({"ceremony": ceremony, "publicKey": options})

    @guarded
    async def signin(request: Request) -> Response:
        answer = await decode_body(request, Answer, "sign-in")
        ceremony = await shared_take(
            services.cluster, services.ceremonies, answer.ceremony, "signin"
        )
        found = await asyncio.to_thread(accounts().passkey, credential_id_of(answer.credential))
        if found is None:
            raise RequestError(
                "unknown_passkey", "this passkey is no account's here (was it removed?)", 401
            )
        count = services.ceremonies.verify_signin(ceremony, answer.credential, found)
        if not await asyncio.to_thread(accounts().signed_with, found, count):
            raise RequestError("bad_passkey", "that passkey signed in meanwhile; try again")
        account = await asyncio.to_thread(accounts().by_id, found.account)
        if account is None:
            raise RequestError("unknown_passkey", "this passkey's account no longer exists", 401)
        return await sign_in(request, account, {"account": shown(account)})

    @guarded
    async def recover(request: Request) -> Response:
        body = await decode_body(request, RecoverIn, "recovery")
        if len(body.code) > 64 or len(body.name) > 64:
            raise RequestError("bad_field", "a name or recovery code that long is no account's")
        account_id = await asyncio.to_thread(accounts().recovery_account, body.name)
        address, quotas, cluster = client_address(request.scope), services.quotas, services.cluster
        refusal = quotas.recovery(address, account_id) or await shared_rate(
            cluster, quotas, "recoveries", address
        )
        if refusal is None and account_id is not None:
            refusal = await shared_rate(cluster, quotas, "recoveries", f"account:{account_id}")
        if refusal is not None:
            return refused(refusal)
        fresh = account = None
        if account_id is not None:
            fresh = await asyncio.to_thread(accounts().recover, account_id, body.code)
            if fresh is not None:
                account = await asyncio.to_thread(accounts().by_id, account_id)
        if fresh is None or account is None:
            raise RequestError(
                "bad_recovery", "that is not the recovery code of an account of that name", 401
            )
        return await sign_in(request, account, {"account": shown(account), "recovery_code": fresh})

    @guarded
    async def show(request: Request) -> Response:
        account = await signed_in(services, request)
        if account is None:
            return JSONResponse({"account": None})
        keys = await asyncio.to_thread(accounts().passkeys, account.id)
        sessions = await asyncio.to_thread(accounts().sessions, account.id)
        out = shown(account)
        out["passkeys"] = [{"id": k.id, "created": k.created, "used": k.used} for k in keys]
        out["sessions"] = sessions
        return JSONResponse({"account": out})

    @guarded
    async def rename(request: Request) -> Response:
        account = await me(request)
        name = player_name((await decode_body(request, NameIn, "name")).name)
        held = await asyncio.to_thread(accounts().holder, name)
        if held is not None and held[1] != account.id:
            raise name_held(name)
        renamed = await asyncio.to_thread(accounts().rename, account.id, name)
        return JSONResponse({"account": shown(renamed)})

    @guarded
    async def begin_passkey(request: Request) -> Response:
        account = await me(request)
        if (refusal := await ceremony_refused(request)) is not None:
            return refusal
        keys = await asyncio.to_thread(accounts().passkeys, account.id)
        ceremony, options = services.ceremonies.register(
            "add", account.id, account.name, [k.credential_id for k in keys]
        )
        await shared_keep(services.cluster, services.ceremonies, ceremony)
        return JSONResponse({"ceremony": ceremony, "publicKey": options})

    @guarded
    async def add_passkey(request: Request) -> Response:
        account = await me(request)
        answer = await decode_body(request, Answer, "passkey")
        ceremony = await shared_take(services.cluster, services.ceremonies, answer.ceremony, "add")
        if ceremony.account != account.id:
            raise RequestError(
                "unknown_ceremony", "that passkey request was another account's; start again"
            )
        passkey = services.ceremonies.verify_registration(ceremony, answer.credential)
        handle = await asyncio.to_thread(accounts().add_passkey, account.id, passkey)
        return JSONResponse({"id": handle}, status_code=201)

    @guarded
    async def remove_passkey(request: Request) -> Response:
        account = await me(request)
        await asyncio.to_thread(accounts().remove_passkey, account.id, request.path_params["id"])
        return JSONResponse({"removed": request.path_params["id"]})

    @guarded
    async def new_recovery(request: Request) -> Response:
        account = await me(request)
        code = await asyncio.to_thread(accounts().new_recovery, account.id)
        return JSONResponse({"recovery_code": code})

    @guarded
    async def signout(request: Request) -> Response:
        token = session_cookie(request.scope)
        if token is not None:
            await asyncio.to_thread(accounts().end_session, token)
        answer = JSONResponse({"signed_out": True})
        answer.delete_cookie(SESSION_COOKIE, path="/", secure=secure, httponly=True, samesite="lax")
        return answer

    async def html(request: Request) -> Response:
        return page(request)

    return [
        Route("/account", html),
        Route("/api/account", show, methods=["GET"]),
        Route("/api/account", create, methods=["POST"]),
        Route("/api/account/new", begin_new, methods=["POST"]),
        Route("/api/account/signin/begin", begin_signin, methods=["POST"]),
        Route("/api/account/signin", signin, methods=["POST"]),
        Route("/api/account/recover", recover, methods=["POST"]),
        Route("/api/account/recovery", new_recovery, methods=["POST"]),
        Route("/api/account/name", rename, methods=["PUT"]),
        Route("/api/account/passkeys/begin", begin_passkey, methods=["POST"]),
        Route("/api/account/passkeys", add_passkey, methods=["POST"]),
        Route("/api/account/passkeys/{id}", remove_passkey, methods=["DELETE"]),
        Route("/api/account/signout", signout, methods=["POST"]),
    ]
