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

A node that cannot tell where a table runs (Redis or the database not answering) says
so: ``503`` with ``Retry-After`` (over the WebSocket an error and a close), never a
``500`` and never ``unknown_table`` for a table that exists.
"""

from __future__ import annotations

import logging
import re
import socket
from collections.abc import Callable

import msgspec
import redis
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from nertz.engine import Rules
from nertz.server.cluster.live import mirror
from nertz.server.cluster.node import ClusterNode
from nertz.server.door.limits import Quotas, Refusal
from nertz.server.lobby.hashing import hash_secret
from nertz.server.lobby.invites import invite_form
from nertz.server.lobby.lobby import Entry, Lobby, LobbyError
from nertz.server.store.store import Store
from nertz.server.table.settings import Settings

__all__ = [
    "ROUTE_PARAM",
    "ClusterRouting",
    "RouteMsg",
    "Unavailable",
    "elsewhere",
    "new_table",
    "redirect",
    "start_node",
]

log = logging.getLogger("nertz.cluster")

ROUTE_PARAM = "node"
"""The query parameter the load balancer routes on."""
UNREACHABLE = (redis.RedisError, SQLAlchemyError, OSError)
"""What Redis or the database raise when they do not answer (a restart, a network)."""


class Unavailable(LobbyError):
    """Redis or the database did not answer: try again in a moment."""

    def __init__(self, what: str = "tell where this table runs") -> None:
        self.refusal = Refusal(
            "cluster_unavailable",
            f"the servers cannot {what} just now; try again in a second",
            1,
            503,
        )
        super().__init__(self.refusal.code, self.refusal.reason, self.refusal.status)

    def response(self) -> JSONResponse:
        return self.refusal.response()  # with its Retry-After


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
    node: ClusterNode | None, lobby: Lobby, rules: Rules, settings: Settings
) -> tuple[Entry, str | None]:
    """A new table: ``Lobby.create``, or on a cluster node one it owns (its lease and
    fencing row first)."""
    invite = await lobby.invited(settings)  # its slow secret off the event loop
    if node is None:
        return lobby.create(rules, settings, invite=invite)
    try:
        return await node.create(rules, settings, invite)
    except UNREACHABLE as error:
        log.warning("node %s could not make a table: %r", node.id, error)
        raise Unavailable("make a table") from error


async def elsewhere(node: ClusterNode | None, code: str) -> str | None:
    """The node that runs table ``code`` if it is not ``node`` (a table nobody runs is
    taken over here first); None on a single node, or when this node runs it or there
    is no such table (the lobby answers those as before). Raises ``Unavailable`` when
    Redis or the database does not answer."""
    if node is None:
        return None
    try:
        where = await node.locate(code)
    except UNREACHABLE as error:
        log.warning("node %s could not locate table %s: %r", node.id, code, error)
        raise Unavailable from error
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

    def __init__(self, app: ASGIApp, node: Callable[[], ClusterNode | None]) -> None:
        self.app = app
        self.node = node
        """This server's cluster node, once started (None: it runs alone)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        cluster = self.node() if scope["type"] == "http" else None
        if cluster is not None:
            try:
                node = await self._elsewhere(cluster, scope["path"])
            except Unavailable as error:
                await error.response()(scope, receive, send)
                return
            if node is not None:
                await redirect(Request(scope), node)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _elsewhere(self, cluster: ClusterNode, path: str) -> str | None:
        found = _TABLE_PATH.match(path)
        if found:
            return await elsewhere(cluster, found.group(1))
        found = _INVITE_PATH.match(path)
        invite = invite_form(found.group(1)) if found else None
        if invite is None:
            return None
        try:
            code = await cluster.invite_code(hash_secret(invite))
        except UNREACHABLE as error:
            log.warning("node %s could not find an invite: %r", cluster.id, error)
            raise Unavailable from error
        return None if code is None else await elsewhere(cluster, code)


def redirect(request: Request, node: str) -> Response:
    """The same request again, through the balancer, to ``node``."""
    return RedirectResponse(
        str(request.url.include_query_params(**{ROUTE_PARAM: node})), status_code=307
    )
