"""Load benchmark: N tables of four WebSocket clients at human pace, plus an echo baseline.

    python bench/load.py --tables 300 --seconds 30

Starts ``nertz serve`` in its own process on a fresh database, creates N four-seat
tables (no bots), joins and connects four clients to each, and has every client act
about once a second (0.5-1.5 s apart): half the time it turns its stock (``T``), else
it tries one of its cards on the middle (``N>F``, ``W>F``, ``1>F`` ...; refused when it
does not fit, which is an answer too). The time from sending a play to its ``ack`` or
``refused`` is the play-ack latency. In the same run, N more clients ping the bare
``/echo`` WebSocket on the same server once a second: the baseline of the stack itself
(uvicorn, websockets, this client). Errors are ``error`` messages, plays never
answered, and connections lost. The last line printed is::

    load tables=N clients=C plays=P errors=E ack_p50_ms=.. ack_p99_ms=.. \
         echo_p50_ms=.. echo_p99_ms=..   (one line)

``--loop`` and ``--http`` choose the server's event loop and HTTP parser (``nertz
serve``'s flags; by default the same as the server's: uvloop and httptools when
installed), so the stacks can be compared in one run; the clients always run on
uvloop, and decode only the messages they act on: they share the server's two cores,
and what they spend is taken from it. The first ``--warmup`` seconds are not measured.
Each table's four clients and each echo client come from their own loopback address (``source``:
127.1.x.y), as people at different tables would, so the server's per-address quotas
never throttle the benchmark's own traffic (docs/server.md, "Running it in public").
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import raw_ws
import uvloop
from raw_ws import Closed, RawWebSocket
from serving import serving

from nertz.server.cli import HTTPS, LOOPS, StackError, stack, tune_process

TRIES = ["N>F", "W>F", "1>F", "2>F", "3>F", "4>F"]
OTHERS = b'{"type":"event"'
HAND_END = b'"hand_end"'


class Stats:
    def __init__(self) -> None:
        self.acks: list[float] = []
        self.acked_at: list[float] = []
        """When each of ``acks`` came (``time.perf_counter``)."""
        self.hand_ends: list[float] = []
        """When a client saw its hand end, while measuring (each of a table's four)."""
        self.echo: list[float] = []
        self.plays = 0
        self.errors = 0
        self.error_samples: list[str] = []
        self.measuring = False
        self.server_cpu = 0.0
        self.gc_passes = 0
        self.gc_ms = 0.0
        """The server's full collections (generation 2) while measuring, and their time."""
        self.client_cpu = 0.0
        """CPU used while measuring, in cores (1.0 = one core busy)."""
        self.client_gc: list[float] = []
        """The clients' own full collections while measuring (ms each)."""
        self.client_lag: list[float] = []
        """How late the clients' own event loop woke a 10 ms sleep (ms), while measuring:
        a latency figure includes this much of the instrument's own delay."""

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(what)


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def source(i: int) -> str:
    """The ``i``-th client's own loopback address (Linux routes all of 127/8 to lo)."""
    return f"127.1.{i // 250}.{i % 250 + 1}"


async def player(
    url: str, code: str, token: str, stats: Stats, stop: asyncio.Event, address: str = "127.0.0.1"
) -> None:
    rng = random.Random()
    pending: dict[int, float] = {}
    ws: RawWebSocket | None = None

    def read(raw: bytes) -> None:
        now = time.perf_counter()
        # Most messages are other seats' events, which the client only scans for a
        # hand's end: it decodes what it needs, not all of them (its CPU is the server's).
        if raw.startswith(OTHERS) and HAND_END not in raw:
            return
        message = json.loads(raw)
        kind = message["type"]
        if kind in ("ack", "refused"):
            sent = pending.pop(message["seq"], None)
            if sent is not None and stats.measuring:
                stats.acks.append((now - sent) * 1000)
                stats.acked_at.append(now)
                stats.plays += 1
            if kind == "ack" and any(e["e"]["k"] == "hand_end" for e in message["events"]):
                hand_over(now)
        elif kind == "event" and message["e"]["k"] == "hand_end":
            hand_over(now)
        elif kind == "error" and message["code"] != "not_now":
            stats.error(f"error message: {message}")

    def hand_over(now: float) -> None:
        """A hand ended: noted, and the client is ready for the next."""
        if stats.measuring:
            stats.hand_ends.append(now)
        assert ws is not None
        ws.send('{"type": "ready"}')

    try:
        ws = await raw_ws.connect(url, read, address)
        ws.send(json.dumps({"type": "hello", "table": code, "token": token}))
        ws.send('{"type": "ready"}')
        seq = 0
        await asyncio.sleep(rng.uniform(0, 1.0))
        while not stop.is_set() and not ws.closed.done():
            seq += 1
            move = "T" if rng.random() < 0.5 else rng.choice(TRIES)
            pending[seq] = time.perf_counter()
            ws.send(json.dumps({"type": "play", "seq": seq, "move": move}))
            # A plain sleep: ``wait_for(stop.wait())`` made a task and a timeout per
            # play, the instrument's own CPU on the server's two cores.
            await asyncio.sleep(rng.uniform(0.5, 1.5))
        await asyncio.sleep(0.5)  # the last answers
        if ws.error is not None:  # a lost connection is an error
            stats.error(f"player: {ws.error}")
        if stats.measuring:
            stats.errors += sum(1 for t in pending.values() if time.perf_counter() - t > 2)
        ws.close()
    except Exception as error:  # never connected
        stats.error(f"player: {error!r}")


async def echoer(url: str, stats: Stats, stop: asyncio.Event, address: str = "127.0.0.1") -> None:
    rng = random.Random()
    body = json.dumps({"type": "play", "seq": 1, "move": "N>F"})
    loop = asyncio.get_running_loop()
    reply: asyncio.Future[None] = loop.create_future()

    def read(_raw: bytes) -> None:
        if not reply.done():
            reply.set_result(None)

    try:
        ws = await raw_ws.connect(url, read, address)
        ws.closed.add_done_callback(lambda _: reply.done() or reply.set_exception(Closed()))
        await asyncio.sleep(rng.uniform(0, 1.0))
        while not stop.is_set():
            sent = time.perf_counter()
            reply = loop.create_future()
            ws.send(body)
            await reply
            if stats.measuring:
                stats.echo.append((time.perf_counter() - sent) * 1000)
            await asyncio.sleep(rng.uniform(0.5, 1.5))
        ws.close()
    except Exception as error:
        stats.error(f"echo: {error!r}")


def client_gc(stats: Stats) -> None:
    """Count the clients' own full collections (a pause of every client at once)."""
    began: list[float] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            began[:] = [time.perf_counter()]
        elif began and stats.measuring:
            stats.client_gc.append((time.perf_counter() - began[0]) * 1000)

    gc.callbacks.append(watch)


async def lag_monitor(stats: Stats, stop: asyncio.Event) -> None:
    """The clients' event loop's own lateness, sampled every 10 ms."""
    while not stop.is_set():
        asked = time.perf_counter()
        await asyncio.sleep(0.01)
        if stats.measuring:
            stats.client_lag.append((time.perf_counter() - asked - 0.01) * 1000)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def setup(http: str, tables: int, first: int = 0) -> list[tuple[str, list[str]]]:
    """Tables ``first`` .. ``first + tables - 1``, each created and joined from its
    own address (``source``)."""
    sem = asyncio.Semaphore(20)

    async def one(i: int) -> tuple[str, list[str]]:
        transport = httpx.AsyncHTTPTransport(local_address=source(i))
        async with sem, httpx.AsyncClient(base_url=http, transport=transport, timeout=30) as client:
            created = await client.post(
                "/api/tables",
                json={
                    "seats": 4,
                    "countdown_ms": 0,
                    "next_hand_s": 2,
                    "bot_takeover_s": 0,
                    "options": {"target": "10000"},
                },
            )
            code = created.json()["code"]
            tokens = []
            for seat in range(4):
                joined = await client.post(f"/api/tables/{code}/join", json={"name": f"p{seat}"})
                tokens.append(joined.json()["token"])
            return code, tokens

    return list(await asyncio.gather(*(one(first + i) for i in range(tables))))


def cpu_seconds(pid: int) -> float:
    """A process's user + system CPU time (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run(args: argparse.Namespace, port: int, server_pid: int) -> Stats:
    http = f"http://127.0.0.1:{port}"
    url = f"ws://127.0.0.1:{port}/ws"
    seats = await setup(http, args.tables)
    stats = Stats()
    stop = asyncio.Event()
    tasks = []
    for i, (code, tokens) in enumerate(seats):
        for token in tokens:
            tasks.append(asyncio.create_task(player(url, code, token, stats, stop, source(i))))
            await asyncio.sleep(0.0005)
    for i in range(args.tables):
        echo = echoer(f"ws://127.0.0.1:{port}/echo", stats, stop, source(i))
        tasks.append(asyncio.create_task(echo))
    tasks.append(asyncio.create_task(lag_monitor(stats, stop)))
    client_gc(stats)
    # The instrument must not pause itself: the clients' process is tuned as the server
    # is (young collections every 50,000 objects), and what setup made lives outside
    # the collector, or its full collections (0.3-0.7 s, every client at once) were the
    # p99 of every figure here (docs/performance.md).
    tune_process()
    gc.collect()
    gc.freeze()
    await asyncio.sleep(args.warmup)
    spy = profiler(args.profile, args.seconds, server_pid) if args.profile else None
    async with httpx.AsyncClient(base_url=http, timeout=30) as client:
        gc_before = (await client.get("/")).json()["gc"]
        stats.measuring = True
        server_cpu, client_cpu = cpu_seconds(server_pid), time.process_time()
        await asyncio.sleep(args.seconds)
        stats.measuring = False
        gc_after = (await client.get("/")).json()["gc"]
    stats.gc_passes = gc_after["count"] - gc_before["count"]
    stats.gc_ms = gc_after["total_ms"] - gc_before["total_ms"]
    stats.server_cpu = (cpu_seconds(server_pid) - server_cpu) / args.seconds
    stats.client_cpu = (time.process_time() - client_cpu) / args.seconds
    stop.set()
    await asyncio.gather(*tasks)
    if spy is not None:
        await asyncio.to_thread(spy.wait, 60)
    return stats


def profiler(out: str, seconds: float, pid: int) -> subprocess.Popen[bytes]:
    """py-spy (``pip install py-spy``) recording the server while it is measured, to ``out``
    (raw collapsed stacks, one per line with its count)."""
    beside = Path(sys.executable).with_name("py-spy")  # in the venv
    spy = str(beside) if beside.exists() else "py-spy"
    command = [spy, "record", "-o", out, "-f", "raw", "-d", str(int(seconds)), "-p", str(pid)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument(
        "--ws",
        default=None,
        help="the server's WebSocket protocol (nertz serve --ws; default the server's own: "
        "nertz, or uvicorn's websockets-sansio on a tree from before it)",
    )
    parser.add_argument(
        "--loop", choices=LOOPS, help="the server's event loop (nertz serve --loop)"
    )
    parser.add_argument(
        "--http", choices=HTTPS, help="the server's HTTP parser (nertz serve --http)"
    )
    parser.add_argument("--profile", help="record the server with py-spy to this file")
    parser.add_argument(
        "--server-path",
        metavar="DIR",
        help="run the server from this source tree (e.g. an older commit's src), "
        "the clients from this one",
    )
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            loop, http = stack(args.loop, args.http)  # what the server will choose
        except StackError as error:
            raise SystemExit(f"load: {error}") from None
        extra = ["--max-tables", str(args.tables + 10)]
        if args.ws is not None:
            extra += ["--ws", args.ws]
        if args.server_path is None:
            extra += ["--loop", loop, "--http", http]
        else:  # an older server may not have the flags: uvicorn's own choice, the same two
            loop, http = f"{loop} (uvicorn's choice)", f"{http} (uvicorn's choice)"
        db = str(Path(tmp) / "load.db")
        with serving(port, db, *extra, path=args.server_path) as server:
            stats = uvloop.run(run(args, port, server.pid))
            health = httpx.get(f"http://127.0.0.1:{port}/", timeout=10).json()
    clients = args.tables * 4
    print(f"server stack: --loop {loop} --http {http} --ws {args.ws or 'the default'}")
    print(f"server: {health['store']} table_failures={health['table_failures']}")
    print(f"server gc (generation 2): {health['gc']}")
    print(f"server gc while measuring: {stats.gc_passes} passes, {stats.gc_ms:.0f} ms in all")
    for sample in stats.error_samples:
        print("error:", sample)
    print(
        f"cpu while measuring: server {stats.server_cpu:.2f} cores, "
        f"clients {stats.client_cpu:.2f} cores; load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"clients' own loop late: p50 {percentile(stats.client_lag, 50):.2f} ms, "
        f"p99 {percentile(stats.client_lag, 99):.2f} ms, "
        f"max {max(stats.client_lag, default=0):.1f} ms; "
        f"full collections {len(stats.client_gc)}, {sum(stats.client_gc):.0f} ms in all"
    )
    print(
        f"load tables={args.tables} clients={clients} plays={stats.plays} errors={stats.errors} "
        f"ack_p50_ms={percentile(stats.acks, 50):.2f} ack_p99_ms={percentile(stats.acks, 99):.2f} "
        f"echo_p50_ms={percentile(stats.echo, 50):.2f} echo_p99_ms={percentile(stats.echo, 99):.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
