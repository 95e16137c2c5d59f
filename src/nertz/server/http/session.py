"""One play socket's session (``/ws``), apart from the web framework: the Origin check,
the connection quotas, the hello (cluster routing, the table's lookup, a finished
table's end from the archive, the spectator quota), then each message to its table.

``PlaySession.run`` drives a ``Channel``: anything with an ASGI WebSocket scope,
``accept``, ``receive`` (ASGI messages), ``send_text`` and ``close``. Starlette's
``WebSocket`` is one (``sockets.py`` is the thin adapter); a test's stand-in is another
(``tests/server/test_session.py``), so the session is tested without a server."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Mapping, MutableMapping
from typing import Any, Protocol

from nertz.server.cluster.live import (
    LiveCounts,
    connection_closed,
    shared_connection,
    shared_spectator,
)
from nertz.server.cluster.node import ClusterNode
from nertz.server.cluster.quotas import shared_lookup, shared_missed
from nertz.server.cluster.routing import RouteMsg, Unavailable, elsewhere
from nertz.server.door.edge import client_address
from nertz.server.door.limits import Limits, Quotas
from nertz.server.door.site import Site
from nertz.server.http.metrics import Metrics
from nertz.server.lobby.hashing import hash_secret
from nertz.server.lobby.lobby import Entry, Lobby, LobbyError, unknown_table
from nertz.server.protocol import (
    ClientMessage,
    ErrorMsg,
    Hello,
    ProtocolError,
    Resync,
    StateMsg,
    decode_client,
    encode,
)
from nertz.server.table.commands import Connect, Disconnect, Inbound
from nertz.server.wire.connection import CLOSE_GRACE_S, Connection, RateLimit, StateAsks

__all__ = ["Channel", "PlaySession", "SessionServices"]

_RATE_LIMITED = encode(ErrorMsg("rate_limited", "too many messages: at most 20 a second"))
"""The answer to a message over the connection's rate, encoded once: a flood asks it
hundreds of times a second."""
_NOT_JOINED = encode(
    ErrorMsg("not_joined", 'say hello first: {"type": "hello", "table": CODE, "token": TOKEN}')
)


class Channel(Protocol):
    """A WebSocket as the session uses it (Starlette's ``WebSocket`` is one). ``receive``
    gives ASGI messages (``websocket.receive`` with ``text`` or ``bytes``, then
    ``websocket.disconnect``); ``accept``, ``send_text`` and ``close`` may raise
    ``OSError`` or ``RuntimeError`` once the peer is gone."""

    @property
    def scope(self) -> MutableMapping[str, Any]: ...

    async def accept(self) -> None: ...

    async def receive(self) -> Mapping[str, Any]: ...

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class SessionServices(Protocol):
    """What a session reads of the server's services (``services.Services`` is one; a
    test's stand-in another): the lobby, quotas and limits, metrics, the site (for
    Origin), the open connections, and the cluster node and its live counts (None on a
    single server) that the shared quotas and routing use (``cluster/``)."""

    @property
    def lobby(self) -> Lobby: ...

    @property
    def quotas(self) -> Quotas: ...

    @property
    def limits(self) -> Limits: ...

    @property
    def metrics(self) -> Metrics: ...

    @property
    def site(self) -> Site: ...

    @property
    def connections(self) -> set[Connection]: ...

    @property
    def cluster(self) -> ClusterNode | None: ...

    @property
    def live(self) -> LiveCounts | None: ...


class PlaySession:
    """One ``/ws`` connection from its opening to its end (``run``)."""

    def __init__(self, services: SessionServices, channel: Channel) -> None:
        self.services = services
        self.channel = channel
        self.address = client_address(channel.scope)
        self.entry: Entry | None = None
        """The table this connection said hello to (None: not yet)."""
        self.spectator = False
        self.limit = RateLimit()
        self.asks = StateAsks()
        self.states = services.quotas.connection_states()
        self.conn: Connection | None = None

    def origin_ok(self) -> bool:
        """A browser's ``Origin`` must be the site's (``site.py``); a program sends none
        (tokens still guard every seat)."""
        headers = {
            name.decode("latin-1"): value.decode("latin-1")
            for name, value in self.channel.scope.get("headers", [])
        }
        origin = headers.get("origin")
        if origin is None:
            return True
        return self.services.site.origin_ok(origin, headers.get("host"))

    async def run(self) -> None:
        """Open (or refuse), read until the connection ends, and clean up."""
        services, channel, address = self.services, self.channel, self.address
        quotas, metrics, live = services.quotas, services.metrics, services.live
        if not self.origin_ok():
            await channel.close(code=1008, reason="origin not allowed")
            return
        refusal = quotas.open_connection(address) or await shared_connection(live, quotas, address)
        try:
            await channel.accept()
        except BaseException as error:  # the peer left before the accept: uncount it
            if refusal is None:
                quotas.close_connection(address, False)
                connection_closed(live, quotas, address, False)
            if isinstance(error, Exception):
                return
            raise
        if refusal is not None:
            metrics.refused(refusal.code)
            metrics.closed("quota")
            await channel.send_text(encode(ErrorMsg(refusal.code, refusal.reason)).decode())
            await channel.close(1013, refusal.code)  # 1013: try again later
            return
        conn = self.conn = Connection(channel)
        services.connections.add(conn)
        try:
            await self._read(conn)
        except TimeoutError:  # (an OSError: first)
            conn.close("no hello")
        except (OSError, RuntimeError):
            pass  # the peer went away
        finally:
            await self._end(conn)

    async def _read(self, conn: Connection) -> None:
        channel = self.channel
        # Counted from the opening, not from each message: a connection that talks on
        # without ever getting to a table (its hello refused, or never sent) is closed.
        hello_by = time.monotonic() + self.services.limits.hello_timeout_s
        direct = False
        while True:
            if self.entry is None:
                left = max(0.0, hello_by - time.monotonic())
                message = await asyncio.wait_for(channel.receive(), left)
            else:
                message = await channel.receive()  # no wait_for: it costs a task
            if message["type"] == "websocket.disconnect":
                return
            data = message.get("text")
            if data is None:
                data = message.get("bytes") or b""
            decoded = self.screened(data)
            if decoded is None:
                if conn.closing is not None:
                    return
                continue
            if type(decoded) is Hello and self.entry is None:
                if not await self.hello(conn, decoded):
                    return
            elif self.entry is None:
                conn.send(_NOT_JOINED)
            else:
                self.at_table(self.entry, decoded)
            if conn.closing is not None:
                return
            if self.entry is not None and not direct:  # at the table: read straight to it
                direct = conn.take_text(functools.partial(self.read_at_table, self.entry))

    def screened(self, data: str | bytes) -> ClientMessage | None:
        """The message, or None when it is answered here: over the rate (a client that
        goes on is closed: ``conn.closing``), or malformed."""
        conn, metrics = self.conn, self.services.metrics
        assert conn is not None
        if not self.limit.allow():
            metrics.refused("rate_limited")
            if self.limit.abusive:
                conn.close("rate limit: too many messages")
            else:
                conn.send(_RATE_LIMITED)
            return None
        decoded = decode_client(data)
        if type(decoded) is ProtocolError:
            conn.send(encode(ErrorMsg(decoded.code, decoded.reason)))
            return None
        return decoded  # type: ignore[return-value]

    def at_table(self, entry: Entry, decoded: ClientMessage) -> None:
        """A message from a connection that said hello: to the table, unless it asks
        for a full state over its quota (asking on and on is closed)."""
        conn = self.conn
        assert conn is not None
        if type(decoded) is Resync:
            refusal = self.services.quotas.state(self.address, self.states)
            if refusal is not None:
                self.services.metrics.refused(refusal.code)
                verdict = self.asks.refuse()
                if verdict == "close":
                    conn.close("rate limit: too many full states")
                elif verdict == "answer":
                    conn.send(encode(ErrorMsg(refusal.code, refusal.reason)))
                return
        entry.actor.submit(Inbound(conn.id, decoded))

    def read_at_table(self, entry: Entry, text: str) -> None:
        decoded = self.screened(text)
        if decoded is not None:
            self.at_table(entry, decoded)

    async def hello(self, conn: Connection, hello: Hello) -> bool:
        """The first hello that finds its table seats the connection there; False when
        the connection is to end (routed elsewhere, unavailable, a finished table's
        end sent, or over the spectator quota)."""
        services, address, cluster = self.services, self.address, self.services.cluster
        metrics, quotas, lobby = services.metrics, services.quotas, services.lobby
        refusal = await shared_lookup(cluster, quotas, address)
        try:
            node = None if refusal else await elsewhere(cluster, hello.table)
        except Unavailable as error:  # Redis or the database away a moment
            metrics.refused(error.code)
            conn.send(encode(ErrorMsg(error.code, error.reason)))
            conn.close("unavailable")
            return False
        if node is not None:
            conn.send(encode(RouteMsg(node)))
            conn.close("moved")
            return False
        try:
            if refusal is not None:
                metrics.refused(refusal.code)
                raise LobbyError(refusal.code, refusal.reason)
            found = lobby.find(hello.table)
            if not (hello.token or found.watch_ok(hello.key)):
                raise unknown_table(hello.table)  # private: the same answer
            if (
                hello.token
                and found.key_hash is not None
                and not found.key_ok(hello.key)
                and not found.holds_token(hello.token)
            ):
                # A made-up token at a private table, without its key: the answer (and
                # the miss) of an unused code, not bad_token, which would tell that a
                # table has this code. (With the key, the table answers bad_token: the
                # page offers a seat.)
                raise unknown_table(hello.table)
        except LobbyError as error:
            if refusal is None:
                with contextlib.suppress(LobbyError):  # a finished table: its end
                    gone = await lobby.archived(hello.table, hello.key)
                    conn.send(encode(StateMsg(gone.version, gone.info)))
                    conn.close("match over")
                    return False
                await shared_missed(cluster, quotas, address)
            conn.send(encode(ErrorMsg(error.code, error.reason)))
            return True
        refusal = None
        if not (hello.token or self.spectator):  # counted once, however many hellos
            refusal = quotas.spectate(address) or await shared_spectator(
                services.live, quotas, address
            )
        if refusal is not None:
            metrics.refused(refusal.code)
            conn.send(encode(ErrorMsg(refusal.code, refusal.reason)))
            conn.close("quota")
            return False
        self.spectator = self.spectator or not hello.token
        refusal = quotas.state(address, self.states)
        if refusal is not None:
            metrics.refused(refusal.code)
            conn.send(encode(ErrorMsg(refusal.code, refusal.reason)))
            return True
        entry = self.entry = found
        entry.actor.outboxes[conn.id] = conn
        entry.actor.submit(
            Connect(
                conn.id,
                hash_secret(hello.token) if hello.token else None,
                hello.last_version,
                entry.watch_ok(hello.key) and hello.key is not None,
                hello.protocol,
                hello.epoch,
            )
        )
        return True

    async def _end(self, conn: Connection) -> None:
        services, address = self.services, self.address
        if self.entry is not None:
            self.entry.actor.submit(Disconnect(conn.id))
            self.entry.actor.outboxes.pop(conn.id, None)
        conn.close(conn.closing or "gone")
        services.quotas.close_connection(address, self.spectator)
        connection_closed(services.live, services.quotas, address, self.spectator)
        services.connections.discard(conn)
        services.metrics.closed((conn.closing or "gone").split(":")[0])
        try:
            await asyncio.wait_for(conn.idle.wait(), CLOSE_GRACE_S)
        except TimeoutError:  # the peer does not read: do not wait for it
            conn.abort(conn.closing or "close did not flush")
