"""Cluster benchmark: three nodes on PostgreSQL and Redis behind HAProxy, one killed
mid-run, against one node on SQLite under the same load in the same run.

    python bench/cluster.py --tables 300 --seconds 60

Starts PostgreSQL (fsync on), Redis, three ``nertz serve`` nodes and HAProxy
(``tests/cluster/harness.py``; Debian's packages), creates N four-seat tables spread
evenly over the nodes and four clients a table (``bench/load.py``'s players: about one
play a second each, each table's clients from their own loopback address), all through
the balancer. Halfway through the measured time node ``n2`` is killed with SIGKILL; its
clients reconnect through the balancer until another node has taken their table over
and carry on. Then the same load runs for as long against one node on SQLite.

* ``moved``: tables the surviving nodes took over; ``resume_s_p99``: from a killed
  node's client losing its connection to its first full state from the new owner;
* ``acked_lost``: plays acknowledged (an ``ack`` with its version) whose event is not
  in PostgreSQL after the run (an ack is sent only after its commit);
* ``errors``: lost connections, plays never answered and ``error`` messages, with how
  many were on the killed node's connections (and how many of those clients played on);
* ``ack_p50_ms``/``ack_p99_ms`` over the cluster run, the killed node's unanswered
  plays left out; ``single_ack_p50_ms`` the single node's; ``cpu_pct`` the whole
  machine's busy share during the cluster run (everything shares its 2 cores).

The line before the last, ``cpu_s``, says where the CPU went while measuring, for the
cluster run and the single node's: CPU seconds of each node, PostgreSQL (its
processes summed), Redis, HAProxy and the clients (this process); ``node_ms_per_play``
the nodes' CPU per answered play; ``machine`` the whole machine's busy seconds and
``rest`` what none of these used (other processes, the kernel's own work).

To bisect, ``--node-python-path OLD/src`` starts the nodes (and the single node) from
another tree (a worktree of the older commit, after its ``make install``), while this
script and the harness stay current; ``--node-env KEY=VALUE`` (repeated) sets anything
else in the nodes' environment.

The last line printed is::

    cluster nodes=3 tables=.. clients=.. killed=1 moved=.. resume_s_p99=.. acked_lost=..
            errors=.. ack_p50_ms=.. ack_p99_ms=.. single_ack_p50_ms=.. cpu_pct=..
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import uvloop
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import TRIES, percentile, source  # noqa: E402
from nertz.server.cli import tune_process  # noqa: E402
from tests import services  # noqa: E402
from tests.cluster.harness import Node, node_command, node_env, running, wait_up  # noqa: E402

KILLED = "n2"


@dataclass
class Client:
    code: str
    token: str
    node: str
    address: str
    acked: list[int] = field(default_factory=list)
    errors: int = 0
    lost_at: float | None = None
    resumed_s: float | None = None
    played_after: bool = False


@dataclass
class Run:
    acks: list[float] = field(default_factory=list)
    measuring: bool = False
    samples: list[str] = field(default_factory=list)

    def error(self, client: Client, what: str) -> None:
        if self.measuring:
            client.errors += 1
            if len(self.samples) < 6:
                self.samples.append(f"{client.node}: {what}")


async def setup(http: str, nodes: list[str], tables: int) -> list[Client]:
    """Tables spread evenly over ``nodes`` (the routing hint), four seats joined each."""
    sem = asyncio.Semaphore(10)

    async def one(i: int) -> list[Client]:
        node = nodes[i % len(nodes)]
        hint = f"?node={node}" if len(nodes) > 1 else ""
        transport = httpx.AsyncHTTPTransport(local_address=source(i))
        async with sem, httpx.AsyncClient(base_url=http, transport=transport, timeout=60) as web:
            created = await web.post(
                f"/api/tables{hint}",
                json={
                    "seats": 4,
                    "countdown_ms": 0,
                    "next_hand_s": 2,
                    "bot_takeover_s": 0,
                    "options": {"target": "10000"},
                },
            )
            code = created.json()["code"]
            out = []
            for seat in range(4):
                joined = await web.post(
                    f"/api/tables/{code}/join{hint}",
                    json={"name": f"p{seat}"},
                    follow_redirects=True,
                )
                out.append(Client(code, joined.json()["token"], node, source(i)))
            return out

    return [c for group in await asyncio.gather(*(one(i) for i in range(tables))) for c in group]


async def play(ws_url: str, me: Client, run: Run, stop: asyncio.Event) -> None:
    """Play about once a second until ``stop``; on a lost connection, connect again
    through the balancer (without a hint: the node may be gone) until the table is back."""
    rng = random.Random()
    hint = f"?node={me.node}" if me.node else ""
    seq = 0
    while not stop.is_set():
        pending: dict[int, float] = {}
        try:
            async with connect(
                ws_url + hint, ping_interval=None, compression=None, local_addr=(me.address, 0)
            ) as ws:
                await ws.send(json.dumps({"type": "hello", "table": me.code, "token": me.token}))
                first = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if first["type"] == "route":
                    hint = f"?node={first['node']}"
                    continue
                if me.lost_at is not None and me.resumed_s is None:
                    me.resumed_s = time.perf_counter() - me.lost_at
                await ws.send('{"type": "ready"}')
                reader = asyncio.create_task(_read(ws, me, pending, run))
                await asyncio.sleep(rng.uniform(0, 1.0))
                while not stop.is_set():
                    if reader.done():
                        raise ConnectionError("closed by the server")
                    seq += 1
                    move = "T" if rng.random() < 0.5 else rng.choice(TRIES)
                    pending[seq] = time.perf_counter()
                    await ws.send(json.dumps({"type": "play", "seq": seq, "move": move}))
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), rng.uniform(0.5, 1.5))
                await asyncio.sleep(0.5)  # the last answers
                reader.cancel()
                late = sum(1 for t in pending.values() if time.perf_counter() - t > 2)
                for _ in range(late):
                    run.error(me, "a play never answered")
        except Exception as error:  # the node died (or the route lapsed): try again
            if stop.is_set():
                return
            run.error(me, f"connection lost: {error!r}"[:120])
            for _ in pending:
                run.error(me, "a play lost with its connection")
            if me.lost_at is None:
                me.lost_at = time.perf_counter()
            hint = ""
            await asyncio.sleep(0.25)


async def _read(ws: object, me: Client, pending: dict[int, float], run: Run) -> None:
    """Until the connection ends (the player sees ``done()`` and reconnects)."""
    with contextlib.suppress(Exception):
        await _answers(ws, me, pending, run)


async def _answers(ws: object, me: Client, pending: dict[int, float], run: Run) -> None:
    async for raw in ws:  # type: ignore[attr-defined]
        now = time.perf_counter()
        message = json.loads(raw)
        kind = message["type"]
        if kind in ("ack", "refused"):
            sent = pending.pop(message["seq"], None)
            if sent is not None and run.measuring:
                run.acks.append((now - sent) * 1000)
            if me.resumed_s is not None:
                me.played_after = True  # answered by the table's new node
            if kind == "ack":
                me.acked.append(message["v"])
                if any(e["e"]["k"] == "hand_end" for e in message["events"]):
                    await ws.send('{"type": "ready"}')  # type: ignore[attr-defined]
        elif kind == "event" and message["e"]["k"] == "hand_end":
            await ws.send('{"type": "ready"}')  # type: ignore[attr-defined]
        elif kind == "error" and message["code"] != "not_now":
            run.error(me, f"error message: {message}"[:120])


_TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def _processes() -> dict[int, tuple[int, str, float]]:
    """Every process: pid to (parent, name, CPU seconds so far)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                name = stat[stat.index("(") + 1 : stat.rindex(")")]
                rest = stat[stat.rindex(")") + 2 :].split()
                out[int(entry.name)] = (
                    int(rest[1]),
                    name,
                    (int(rest[11]) + int(rest[12])) * _TICK_S,
                )
    return out


class Cpu:
    """CPU seconds of this process and its descendants, by role, between ``mark``s
    (a process that ends between two marks loses its time since the earlier one: mark
    just before killing a node)."""

    def __init__(self, roles: dict[int, str]) -> None:
        self.roles = roles
        """Pids with a role of their own (the nodes); the others go by name."""
        self.seconds: dict[str, float] = collections.defaultdict(float)
        self._last: dict[int, float] | None = None
        self.machine = 0.0
        """The whole machine's busy CPU seconds (``/proc/stat``) between the marks."""
        self._busy = 0.0

    def _ours(self) -> dict[int, tuple[str, float]]:
        procs, me = _processes(), os.getpid()
        out = {}
        for pid, (_, name, cpu) in procs.items():
            up, seen = pid, set()
            while up not in (0, me) and up in procs and up not in seen:
                seen.add(up)
                up = procs[up][0]
            if up == me:
                out[pid] = (self.roles.get(pid, name), cpu)
        out[me] = ("clients", procs[me][2])
        return out

    def mark(self) -> None:
        now, busy_now = self._ours(), busy()[0] * _TICK_S
        if self._last is not None:
            self.machine += busy_now - self._busy
        self._busy = busy_now
        if self._last is not None:
            for pid, (role, cpu) in now.items():
                self.seconds[role] += cpu - self._last.get(pid, 0.0)
        self._last = {pid: cpu for pid, (_, cpu) in now.items()}

    def line(self, plays: int) -> str:
        nodes = sum(v for k, v in self.seconds.items() if k.startswith("node "))
        parts = " ".join(f"{k.replace(' ', '_')}={v:.1f}" for k, v in sorted(self.seconds.items()))
        ours = sum(self.seconds.values())
        return (
            f"{parts} nodes={nodes:.1f} node_ms_per_play={1000 * nodes / max(1, plays):.2f} "
            f"all_ours={ours:.1f} machine={self.machine:.1f} rest={self.machine - ours:.1f}"
        )


def busy() -> tuple[float, float]:
    """The machine's (busy, total) CPU time so far (``/proc/stat``)."""
    fields = [float(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


async def load(
    http: str,
    ws: str,
    nodes: list[str],
    args: argparse.Namespace,
    cpu: Cpu,
    kill: object = None,
) -> tuple[Run, list[Client], float]:
    clients = await setup(http, nodes, args.tables)
    run, stop = Run(), asyncio.Event()
    tasks = []
    for me in clients:
        tasks.append(asyncio.create_task(play(ws, me, run, stop)))
        await asyncio.sleep(0.001)
    # The instrument must not pause itself (bench/load.py): tuned as a server is, and
    # what setup made kept out of the collector.
    tune_process()
    gc.collect()
    gc.freeze()
    await asyncio.sleep(args.warmup)
    run.measuring = True
    busy0, total0 = busy()
    cpu.mark()
    await asyncio.sleep(args.seconds / 2)
    if kill is not None:
        cpu.mark()
        kill()  # type: ignore[operator]
    await asyncio.sleep(args.seconds / 2)
    busy1, total1 = busy()
    cpu.mark()
    run.measuring = False
    stop.set()
    await asyncio.gather(*tasks)
    return run, clients, 100 * (busy1 - busy0) / max(1.0, total1 - total0)


def acked_lost(pg: str, clients: list[Client]) -> int:
    """Acknowledged versions with no stored event."""
    from sqlalchemy import create_engine, select

    from nertz.server.store.schema import events_t, tables_t

    engine = create_engine(pg)
    with engine.connect() as conn:
        ids = {r.code: r.id for r in conn.execute(select(tables_t.c.code, tables_t.c.id))}
        stored = {(r.table_id, r.version) for r in conn.execute(select(events_t))}
    engine.dispose()
    return sum(1 for me in clients for v in me.acked if (ids.get(me.code), v) not in stored)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument(
        "--node-python-path",
        metavar="DIR",
        help="run the nodes from this tree's sources (put first on their PYTHONPATH)",
    )
    parser.add_argument(
        "--node-env",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="set in the nodes' environment (repeat for more)",
    )
    args = parser.parse_args()
    try:
        args.env = node_env(args.node_python_path, args.node_env)
    except ValueError as error:
        parser.error(f"--node-env {error}")
    logs = Path(tempfile.mkdtemp(prefix="nertz-bench-cluster-"))
    with (
        services.postgres(fsync=True) as pg,
        services.redis() as redis,
        running(pg, redis, 3, logs=logs, env=args.env) as c,
    ):
        names = [n.node_id for n in c.nodes]
        seconds = Cpu({n.process.pid: f"node {n.node_id}" for n in c.nodes})
        run, clients, cpu = uvloop.run(
            load(c.http, c.ws, names, args, seconds, kill=lambda: c.kill(KILLED))
        )
        figures = {n: c.node(n).figures() for n in names if n != KILLED}
        lost = acked_lost(pg, clients)
    moved = sum(f["cluster"]["taken"] for f in figures.values())
    victims = [me for me in clients if me.node == KILLED]
    resumes = [me.resumed_s for me in victims if me.resumed_s is not None]
    errors = sum(me.errors for me in clients)
    on_killed = sum(me.errors for me in victims)
    back = sum(1 for me in victims if me.played_after)
    for sample in run.samples:
        print("error:", sample)
    print(f"survivors: { {n: f['cluster'] for n, f in figures.items()} }")
    writes = {n: f["store"]["writes_10s"] for n, f in figures.items()}
    print(f"their writes over the last 10 s: {writes}")
    print(
        f"killed node's clients: {len(victims)}, resumed {len(resumes)}, answered again {back}; "
        f"errors on them {on_killed} of {errors}; node logs in {logs}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        single, single_cpu = _single(Path(tmp) / "single.db", args)
    print(
        f"cpu_s cluster: {seconds.line(len(run.acks))} plays={len(run.acks)}; "
        f"single: {single_cpu.line(len(single.acks))} plays={len(single.acks)}"
    )
    print(
        f"cluster nodes=3 tables={args.tables} clients={len(clients)} killed=1 moved={moved} "
        f"resume_s_p99={percentile(resumes, 99):.2f} acked_lost={lost} errors={errors} "
        f"ack_p50_ms={percentile(run.acks, 50):.2f} ack_p99_ms={percentile(run.acks, 99):.2f} "
        f"single_ack_p50_ms={percentile(single.acks, 50):.2f} cpu_pct={cpu:.0f}"
    )
    return 0


def _single(db: Path, args: argparse.Namespace) -> tuple[Run, Cpu]:
    """The same load on one node on SQLite."""
    port = services.free_port()
    command = node_command(port, args.env)
    process = subprocess.Popen(
        [*command["args"], "--db", str(db)],
        env=command["env"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    cpu = Cpu({process.pid: "node single"})
    try:
        wait_up(Node("single", port, process))
        run, _, _ = uvloop.run(
            load(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws", [""], args, cpu)
        )
    finally:
        services.stop(process)
    return run, cpu


if __name__ == "__main__":
    sys.exit(main())
