"""The server's start and stop (Starlette's lifespan): the store opens, the lobby and
(with ``--redis``) the cluster node start, every unfinished match resumes, the score
sheets' pruner runs; on the way out all of it stops in turn. ``make play``'s table is
made here too (``play_table``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager

from starlette.applications import Starlette

from nertz.bots import bot_name, choice
from nertz.engine import preset
from nertz.server.cluster.routing import start_node
from nertz.server.door.site import Site
from nertz.server.http.config import Config
from nertz.server.http.daily_api import prune_daily
from nertz.server.http.quick_api import run_quick
from nertz.server.http.services import Running, Services
from nertz.server.http.sheets import SheetStore, prune_sheets
from nertz.server.http.status import freeze_survivors
from nertz.server.lobby.accounts import Accounts
from nertz.server.lobby.daily import DailyDeals, kept_secret
from nertz.server.lobby.devices import Devices
from nertz.server.lobby.lobby import Lobby
from nertz.server.store.store import Store
from nertz.server.table.settings import Settings

__all__ = ["lifespan", "play_table"]

log = logging.getLogger("nertz.app")


def lifespan(
    config: Config, services: Services
) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    """The app's lifespan: ``services`` started (``Services.start``) and stopped."""
    limits = config.limits

    @contextlib.asynccontextmanager
    async def run(app: Starlette) -> AsyncIterator[None]:
        store = Store(config.db)
        lobby = Lobby(store, max_tables=limits.max_tables, speed=config.speed)
        secret = await asyncio.to_thread(kept_secret, store.engine, config.daily_secret)
        daily = DailyDeals(store.engine, secret, config.clock)
        lobby.dealers = daily.dealer  # before any table is made or resumed
        cluster = await start_node(
            config.redis, config.node_id, config.port, lobby, store, services.quotas
        )
        resumed = lobby.restore() if cluster is None else 0  # a node's sweep takes them
        sheets = SheetStore(store.engine)
        devices, accounts = Devices(store.engine), Accounts(store.engine)
        services.start(Running(store, lobby, cluster, sheets, devices, accounts, daily))
        pruner = asyncio.get_running_loop().create_task(prune_sheets(sheets, limits.sheet_days))
        daily_pruner = asyncio.get_running_loop().create_task(prune_daily(daily))
        quick = asyncio.get_running_loop().create_task(run_quick(services))
        if resumed:
            log.info("resumed %d unfinished match(es)", resumed)
        if config.play:
            await play_table(lobby, config, services.site)
        freeze_survivors()
        try:
            yield
        finally:
            pruner.cancel()
            daily_pruner.cancel()
            quick.cancel()
            services.line.stop()
            await lobby.stop()
            store.flush()
            if cluster is not None:
                await cluster.stop()
            store.close()

    return run


async def play_table(lobby: Lobby, config: Config, site: Site) -> None:
    """``make play``: one table, seat 0 joined for you, the other seats the bots of
    ``config.play_bots`` (a first-timer's "relaxed" unless ``--bots`` says otherwise)."""
    bots = choice(config.play_bots)
    specs = {seat: spec for seat, spec in enumerate(bots.specs, start=1)}
    settings = Settings(seats=1 + len(specs), bots=specs)
    entry, _ = lobby.create(preset("standard"), settings)
    _, seat, _, token = await lobby.join(entry.code, "you", 0)
    ws = f"ws://{config.host}:{config.port}/ws"
    hello = f'{{"type": "hello", "table": "{entry.code}", "token": "{token}"}}'
    url = f"{site.base}/t/{entry.code}#seat={token}"
    lines = [
        f"Open in your browser: {url}",
        f"Nertz table {entry.code}: you are seat {seat} against {len(specs)} bots"
        f" ({bots.label}: {', '.join(bot_name(n) for n in specs)}).",
        f"WebSocket: {ws}",
        f"Seat token: {token}",
        f"Connect:   {sys.executable} -m websockets {ws}",
        f"then send: {hello}",
        'then:      {"type": "ready"}   and play: {"type": "play", "seq": 1, "move": "T"}',
        "(moves: N>F, W>F3, 3/2>1, W<2, T, NERTZ, STUCK; see docs/protocol.md)",
    ]
    print("\n".join(lines), flush=True)
