"""The lobby's HTTP calls an outside bot makes (docs/protocol.md, "The lobby"): register,
revoke, make a table, take a place. Plain ``urllib`` in a thread: no dependency beyond
the package's own. A refusal is a ``ClientError`` with the server's code and sentence."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

__all__ = ["ClientError", "create_table", "join_as_bot", "register_bot", "request", "revoke_bot"]

TIMEOUT_S = 30.0


class ClientError(Exception):
    """The server refused a request: its ``code`` (``bad_bot_token``, ``name_held``...),
    its ``reason`` in a sentence and the HTTP ``status``."""

    def __init__(self, code: str, reason: str, status: int = 0) -> None:
        super().__init__(f"{code}: {reason}")
        self.code, self.reason, self.status = code, reason, status


def _call(
    method: str, url: str, body: dict[str, Any] | None, token: str | None, hops: int = 2
) -> dict[str, Any]:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"  # a header, never the URL
    data = json.dumps(body if body is not None else {}).encode()
    ask = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(ask, timeout=TIMEOUT_S) as answer:
            out: dict[str, Any] = json.loads(answer.read() or b"{}")
            return out
    except urllib.error.HTTPError as error:
        where = error.headers.get("Location")
        if error.code in (307, 308) and where and hops:  # a cluster: the table's node
            return _call(method, urllib.parse.urljoin(url, where), body, token, hops - 1)
        try:
            said = json.loads(error.read())
        except ValueError:
            said = {}
        raise ClientError(
            said.get("error", "http_error"), said.get("reason", str(error)), error.code
        ) from None


async def request(
    method: str, url: str, body: dict[str, Any] | None = None, token: str | None = None
) -> dict[str, Any]:
    """One JSON request (``token``: a bot's, as ``Authorization: Bearer``)."""
    return await asyncio.to_thread(_call, method, url, body, token)


async def register_bot(server: str, name: str) -> str:
    """Register a bot called ``name`` at ``server`` (``http://host:port``): its token,
    shown this once (keep it; the server keeps only its hash)."""
    answer = await request("POST", f"{server}/api/bots", {"name": name})
    return str(answer["token"])


async def revoke_bot(server: str, name: str, token: str) -> None:
    """Revoke the bot ``name``: its token is refused from then on."""
    await request("DELETE", f"{server}/api/bots/{urllib.parse.quote(name, safe='')}", token=token)


async def create_table(server: str, **fields: Any) -> dict[str, Any]:
    """Make a table (``POST /api/tables``, every field as the lobby takes it, e.g.
    ``bots={"1": "expert"}``, ``outside_bots=True``): the create answer."""
    return await request("POST", f"{server}/api/tables", fields)


async def join_as_bot(
    server: str, code: str, token: str, seat: int | None = None, key: str | None = None
) -> dict[str, Any]:
    """Take a place at table ``code`` as the bot whose token this is
    (``POST /api/tables/{code}/bot``): ``{"code", "seat", "token", "ws", "name"}``."""
    body: dict[str, Any] = {}
    if seat is not None:
        body["seat"] = seat
    if key is not None:
        body["key"] = key
    where = urllib.parse.quote(code, safe="")
    return await request("POST", f"{server}/api/tables/{where}/bot", body, token)
