"""The server's settings (``nertz serve``'s options), read by the app as it is built
(``app.create_app``) and as it starts (``startup.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from nertz.bots import DEFAULT_CHOICE
from nertz.server.door.limits import Limits

__all__ = ["Config"]


@dataclass(slots=True)
class Config:
    """Server settings (``nertz serve`` options)."""

    db: str = "nertz.db"
    host: str = "127.0.0.1"
    port: int = 8000
    speed: float = 1.0
    """Test-only: table clocks run this many times faster than real time."""
    limits: Limits = field(default_factory=Limits)
    """What one client may take (``limits.py``; docs/server.md, "Running it in public")."""
    forwarded_allow_ips: str = ""
    """Reverse proxies whose ``X-Forwarded-For`` names the client (comma-separated
    addresses or networks, ``*`` for any); by default none is trusted."""
    log_json: bool = False
    """Logs as JSON lines (one object a record) instead of text."""
    allowed_origins: tuple[str, ...] = ()
    public_urls: tuple[str, ...] = ()
    """The site's own URLs, ``scheme://host[:port]`` (``--public-url``): their hosts
    are accepted in ``Host`` and their origins in ``Origin``, and the first builds the
    links people are given (``site.py``); none: ``http://host:port``."""
    metrics_from: tuple[str, ...] = ("127.0.0.1", "::1")
    """Client addresses ``GET /metrics`` answers (``--metrics-from``); to anyone else it
    is ``404``: by default only the machine itself, so not the public behind a proxy
    that names its clients (``forwarded_allow_ips``)."""
    play: bool = False
    """``make play``: create a table with three bots and print how to join it."""
    play_bots: str = DEFAULT_CHOICE
    """The bots of that table: a choice of ``nertz.bots.choices`` (``--bots``)."""
    test_hooks: bool = False
    """Test-only: ``POST /api/test/tables`` deals explicit layouts (``web.py``)."""
    redis: str | None = None
    """A cluster node (``--redis``): leases, routing and the lobby through this Redis
    (docs/cluster.md); None runs alone, as always."""
    node_id: str | None = None
    """This node's name in the cluster (the load balancer's server name)."""
    daily_secret: str | None = None
    """The daily deal's secret (``NERTZ_DAILY_SECRET``; ``lobby/daily.py``): every node
    of a cluster the same. None: one made once and kept in the store."""
    clock: Callable[[], float] = time.time
    """The wall clock (seconds since the epoch) the server's day is read from (the
    daily deal's, ``lobby/daily.py``); tests give their own, never waiting for a day."""
