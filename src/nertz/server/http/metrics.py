"""``GET /metrics``: the server's figures in Prometheus text format (prometheus-client).

Counters move as things happen (``refused``, ``closed``); gauges are read from the
running server each time it is scraped (``Figures``): open connections, tables by
stage, commands queued at tables, bytes queued for clients, the store's commit lag.
Each app has its own registry, so several servers in one process (the tests) never
mix their figures.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sized
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from prometheus_client import CollectorRegistry, Counter, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from nertz.server.door.line import DoorLine
from nertz.server.table.commands import Stage

if TYPE_CHECKING:
    from nertz.server.lobby.lobby import Entry
    from nertz.server.store.store import Store

__all__ = ["CONTENT_TYPE", "Figures", "Metrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@dataclass(frozen=True, slots=True)
class Figures:
    """What the running server is holding at one moment."""

    connections: int
    tables_by_stage: dict[str, int]
    queued_commands: int
    longest_queue: int
    outbox_bytes: int
    outbox_messages: int
    commit_lag_ms: float
    max_commit_lag_ms_10s: float

    @classmethod
    def of(
        cls,
        tables: Iterable[Entry],
        store: Store,
        connections: int,
        outboxes: Collection[Backlog],
    ) -> Figures:
        """The figures of a running server: its tables, store, open WebSockets and
        their outboxes."""
        by_stage = {stage.value: 0 for stage in Stage}
        depths = []
        for entry in tables:
            by_stage[entry.table.stage.value] += 1
            depths.append(len(entry.actor.queue))
        return cls(
            connections=connections,
            tables_by_stage=by_stage,
            queued_commands=sum(depths),
            longest_queue=max(depths, default=0),
            outbox_bytes=sum(box.backlog_bytes for box in outboxes),
            outbox_messages=sum(len(box.backlog) for box in outboxes),
            commit_lag_ms=store.commit_lag_ms,
            max_commit_lag_ms_10s=store.recent_lag_ms(10),
        )


class Backlog(Protocol):
    """A connection's queue of messages the peer has not taken yet."""

    @property
    def backlog(self) -> Sized: ...

    @property
    def backlog_bytes(self) -> int: ...


class _Gauges(Collector):
    def __init__(self, figures: Callable[[], Figures | None]) -> None:
        self.figures = figures

    def collect(self) -> Iterator[Metric]:
        now = self.figures()
        if now is None:  # not started yet
            return
        yield GaugeMetricFamily("nertz_connections", "Open WebSockets.", value=now.connections)
        tables = GaugeMetricFamily("nertz_tables", "Tables in memory, by stage.", labels=["stage"])
        for stage, count in sorted(now.tables_by_stage.items()):
            tables.add_metric([stage], count)
        yield tables
        yield GaugeMetricFamily(
            "nertz_table_queue_commands",
            "Commands waiting on every table's queue.",
            value=now.queued_commands,
        )
        yield GaugeMetricFamily(
            "nertz_table_queue_longest",
            "Commands waiting on the longest table queue.",
            value=now.longest_queue,
        )
        yield GaugeMetricFamily(
            "nertz_outbox_bytes",
            "Bytes queued for clients that have not taken them yet.",
            value=now.outbox_bytes,
        )
        yield GaugeMetricFamily(
            "nertz_outbox_messages",
            "Messages queued for clients that have not taken them yet.",
            value=now.outbox_messages,
        )
        yield GaugeMetricFamily(
            "nertz_commit_lag_seconds",
            "Wait from queueing to commit of the oldest record of the last batch.",
            value=now.commit_lag_ms / 1000,
        )
        yield GaugeMetricFamily(
            "nertz_commit_lag_max_10s_seconds",
            "Longest wait from queueing to commit over the last 10 s.",
            value=now.max_commit_lag_ms_10s / 1000,
        )


class _Line(Collector):
    """The door's line (``door/line.py``), read when scraped."""

    def __init__(self, line: DoorLine) -> None:
        self.line = line

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(
            "nertz_door_line",
            "HTTP connections waiting unread at the door for the event loop to catch up.",
            value=self.line.waiting,
        )
        yield CounterMetricFamily(
            "nertz_door_waits",
            "HTTP requests that waited at the door for the event loop to catch up.",
            value=self.line.waited,
        )


class Metrics:
    """One server's registry: the counters, and the gauges ``figures()`` reads."""

    def __init__(self, figures: Callable[[], Figures | None], line: DoorLine | None = None) -> None:
        self.registry = CollectorRegistry()
        self._refusals = Counter(
            "nertz_refusals",
            "Requests, connections and messages refused by a limit, by code.",
            ["code"],
            registry=self.registry,
        )
        self._early = Counter(
            "nertz_refusals_early",
            "Of those, HTTP requests refused at the door again while an earlier refusal "
            "of the same kind to the same address held (its Retry-After), by code.",
            ["code"],
            registry=self.registry,
        )
        self._early_by_code: dict[str, tuple[Any, Any]] = {}
        self._closes = Counter(
            "nertz_closes",
            "Connections closed, by reason.",
            ["reason"],
            registry=self.registry,
        )
        self.registry.register(_Gauges(figures))
        if line is not None:
            self.registry.register(_Line(line))

    def refused(self, code: str) -> None:
        self._refusals.labels(code).inc()

    def refused_early(self, code: str) -> None:
        """A refusal answered again at the door (counted among the refusals too)."""
        counters = self._early_by_code.get(code)
        if counters is None:  # labels() once per code: a flood asks this many times
            counters = self._early_by_code[code] = (
                self._refusals.labels(code),
                self._early.labels(code),
            )
        for counter in counters:
            counter.inc()

    def closed(self, reason: str) -> None:
        self._closes.labels(reason).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
