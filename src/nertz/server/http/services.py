"""Every service of one server in one typed object, ``Services``: what ``create_app``
builds (the limits and quotas, the site, the metrics, the door, the open connections)
and what the server starts in its lifespan (``Running``: the store, the lobby, the
cluster node, the score sheets, the devices), each read by attribute.

A route module is given the ``Services`` as it is mounted (``tables_routes(services)``
and the like); anything else that holds the app or a request reaches it through
``services_of``, the one way in (never ``app.state`` by hand)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from starlette.applications import Starlette
from starlette.requests import HTTPConnection

from nertz.server.cluster.live import LiveCounts
from nertz.server.cluster.node import ClusterNode
from nertz.server.door.edge import Door
from nertz.server.door.limits import Limits, Quotas
from nertz.server.door.line import DoorLine
from nertz.server.door.pace import RefusalPace
from nertz.server.door.site import Site
from nertz.server.http.kept import Makers
from nertz.server.http.metrics import Figures, Metrics
from nertz.server.http.sheets import SheetStore
from nertz.server.lobby.accounts import Accounts
from nertz.server.lobby.daily import DailyDeals
from nertz.server.lobby.devices import Devices
from nertz.server.lobby.lobby import Lobby
from nertz.server.lobby.passkeys import Ceremonies, RelyingParty
from nertz.server.lobby.quickmatch import QuickMatch
from nertz.server.store.store import Store
from nertz.server.wire.connection import Connection

__all__ = ["Running", "Services", "services_of"]


@dataclass(frozen=True, slots=True)
class Running:
    """What the server starts (``startup.lifespan``) and stops again."""

    store: Store
    lobby: Lobby
    cluster: ClusterNode | None
    """This server as a cluster node (``--redis``); None when it runs alone."""
    sheets: SheetStore
    devices: Devices
    accounts: Accounts
    daily: DailyDeals
    """The daily deal: its secret, the server's day, its tries (``lobby/daily.py``)."""


class Services:
    """One server's services. The fixed ones are made here and never replaced; the
    running ones (``lobby``, ``store``, ``cluster``, ``sheets``, ``devices``,
    ``accounts``, ``daily``) are there
    from ``start`` on: asked for before, they raise ``RuntimeError``."""

    def __init__(self, limits: Limits, site: Site) -> None:
        self.limits: Final = limits
        self.quotas: Final = Quotas(limits)
        self.site: Final = site
        self.connections: Final[set[Connection]] = set()
        """The open play sockets (``/ws``), for the metrics' backlogs."""
        self.line: Final = DoorLine()
        """New HTTP requests waiting unread while the event loop is behind (also the
        HTTP protocol's, ``cli.uvicorn_config``)."""
        self.metrics: Final = Metrics(self.figures, self.line)
        self.door: Final = Door(  # also the HTTP protocol's (``cli.uvicorn_config``)
            self.quotas.memory,
            self.metrics.refused_early,
            self.quotas.request,
            limits.ipv6_prefix,
            RefusalPace(
                limits.refusals_per_s,
                limits.refusal_burst,
                limits.refusal_wait_s,
                self.quotas.clock,
            ),
        )
        self.makers: Final = Makers()
        """Where answers that cost milliseconds are made (``kept.Makers``): one making of
        each at a time, and a few at once in all."""
        self.ceremonies: Final = Ceremonies(RelyingParty.of(site.urls), limits.max_ceremonies)
        """The passkey ceremonies under way (``passkeys.py``), in this process's memory."""
        self.quick: Final = QuickMatch(
            max_entries=limits.max_quick, per_address=limits.quick_per_address
        )
        """Quick match's queue of this node's people (``quickmatch.py``), in this process's
        memory; in a cluster shared with the other nodes' (``cluster/quickshare.py``)."""
        self._running: Running | None = None

    def start(self, running: Running) -> None:
        """The lifespan has started ``running``; once only."""
        if self._running is not None:
            raise RuntimeError("the server's services were started twice")
        self._running = running

    @property
    def running(self) -> Running:
        if self._running is None:
            raise RuntimeError("the server has not started: its store and lobby open at startup")
        return self._running

    @property
    def lobby(self) -> Lobby:
        return self.running.lobby

    @property
    def store(self) -> Store:
        return self.running.store

    @property
    def cluster(self) -> ClusterNode | None:
        return self.running.cluster

    @property
    def live(self) -> LiveCounts | None:
        """The cluster's live counts (``cluster/live.py``); None when the server runs alone."""
        cluster = self.running.cluster
        return None if cluster is None else cluster.live

    @property
    def sheets(self) -> SheetStore:
        return self.running.sheets

    @property
    def devices(self) -> Devices:
        return self.running.devices

    @property
    def accounts(self) -> Accounts:
        return self.running.accounts

    @property
    def daily(self) -> DailyDeals:
        return self.running.daily

    def figures(self) -> Figures | None:
        """The metrics' figures of the moment (None: not started yet)."""
        if self._running is None:
            return None
        lobby, store = self._running.lobby, self._running.store
        return Figures.of(lobby.tables.values(), store, self.quotas.open, self.connections)


def services_of(where: Starlette | HTTPConnection) -> Services:
    """The ``Services`` of an app made by ``create_app``, or of the app a request or
    WebSocket came to."""
    app = where.app if isinstance(where, HTTPConnection) else where
    found = app.state.services
    if not isinstance(found, Services):
        raise TypeError(f"not an app of create_app's: its services are {found!r}")
    return found
