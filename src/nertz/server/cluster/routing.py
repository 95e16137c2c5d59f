"""Getting a client to the node that runs its table, through the load balancer.

A request for a table another node runs is answered with that node's id; the client
asks again through the load balancer with ``?node=ID``, on which the balancer picks
that node (docs/cluster.md has the HAProxy rule). Over HTTP that is a ``307`` to the
same path with the parameter (``fetch`` follows it, method and body too); over the
WebSocket a ``route`` message, then the socket closes and the client reconnects at once
(docs/protocol.md, version 7). Never a node's own address: every connection goes
through the balancer, its TLS and its Origin check. If the named node is down the
balancer ignores the hint and any node answers, taking the table over once its lease
lapses.
"""

from __future__ import annotations

import re
import socket
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from nertz.engine import Rules

from ..invites import invite_form
from ..limits import Quotas
from ..lobby import Entry, Lobby, hash_secret
from ..settings import Settings
from ..store import Store
from .live import mirror
from .node import ClusterNode

__all__ = [
    "ROUTE_PARAM",
    "ClusterRouting",
    "RouteMsg",
    "elsewhere",
    "new_table",
    "redirect",
    "start_node",
]

ROUTE_PARAM = "node"
"""The query parameter the load balancer routes on."""


class RouteMsg(msgspec.Struct, tag_field="type", tag="route"):
    """The server message (protocol 7): the table runs on another node of a cluster;
    connect again through the load balancer with ``/ws?node=NODE``; this socket closes."""

    node: str


async def start_node(
    redis_url: str | None,
    node_id: str | None,
    port: int,
    lobby: Lobby,
    store: Store,
    quotas: Quotas,
) -> ClusterNode | None:
    """This server as a cluster node (``--redis``), started; None without Redis."""
    if redis_url is None:
        return None
    node = ClusterNode(
        node_id or f"{socket.gethostname()}-{port}",
        redis_url,
        lobby,
        store,
        counts=lambda: mirror(quotas, lobby),
    )
    await node.start()
    return node


async def new_table(
    state: dict[str, Any], rules: Rules, settings: Settings
) -> tuple[Entry, str | None]:
    """A new table: ``Lobby.create``, or on a cluster node one it owns (its lease and
    fencing row first)."""
    node: ClusterNode | None = state.get("cluster")
    if node is None:
        lobby: Lobby = state["lobby"]
        return lobby.create(rules, settings)
    return await node.create(rules, settings)


async def elsewhere(state: dict[str, Any], code: str) -> str | None:
    """The node that runs table ``code`` if it is not this one (a table nobody runs is
    taken over here first); None on a single node, or when this node runs it or there
    is no such table (the lobby answers those as before)."""
    node: ClusterNode | None = state.get("cluster")
    if node is None:
        return None
    where = await node.locate(code)
    # Its own id: a lease this node still holds for a table it has just given up, until
    # the lease lapses; the lobby answers meanwhile, never a redirect to itself.
    return where if isinstance(where, str) and where != node.id else None


_TABLE_PATH = re.compile(r"^/api/tables/([^/]+)(/.*)?$")
_INVITE_PATH = re.compile(r"^/api/invites/([^/]+)$")


class ClusterRouting:
    """ASGI middleware: on a cluster node, every HTTP request about one table
    (``/api/tables/{code}...``, ``/api/invites/{invite}``) that another node runs is
    answered with a ``307`` to that node, whatever route handles it; on a single
    server it passes everything through."""

    def __init__(self, app: ASGIApp, state: dict[str, Any]) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.state.get("cluster") is not None:
            node = await self._elsewhere(scope["path"])
            if node is not None:
                await redirect(Request(scope), node)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _elsewhere(self, path: str) -> str | None:
        found = _TABLE_PATH.match(path)
        if found:
            return await elsewhere(self.state, found.group(1))
        found = _INVITE_PATH.match(path)
        invite = invite_form(found.group(1)) if found else None
        if invite is None:
            return None
        cluster: ClusterNode = self.state["cluster"]
        code = await cluster.invite_code(hash_secret(invite))
        return None if code is None else await elsewhere(self.state, code)


def redirect(request: Request, node: str) -> Response:
    """The same request again, through the balancer, to ``node``."""
    return RedirectResponse(
        str(request.url.include_query_params(**{ROUTE_PARAM: node})), status_code=307
    )
