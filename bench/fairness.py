"""Fairness benchmark: races for one place in the middle, decided by who played first (R16).

    python bench/fairness.py [--tables 6] [--hands 12]

Runs the real server (``nertz serve``'s app with its test hook, which deals fixed hands)
on 127.0.0.1 in its own process. Every seat is a WebSocket client behind its own
in-process TCP delay line (``DelayLine``): each chunk of bytes, either way, is held its
seat's one-way delay (10 ms or 120 ms) plus a uniform jitter of ±30 ms, in order (a
later chunk never overtakes an earlier one). The line sits under the WebSocket layer,
as a network does: the server's WebSocket ping frames, which the client's WebSocket
stack answers by itself as a browser's does, take the seat's path like everything
else. Clients answer the table's pings as the browser does (net.js) and stamp each
play with the table's clock as they read it.

Every hand is dealt so that each seat holds the same four twos (on its work piles) and
a three of hearts (its Nertz pile), with the four aces already in the middle: five
races a hand (2H, 2S, 2D, 2C, then 3H), where every seat plays the same card to the
same place at a known true time. Each race is one cell of a balanced schedule: a gap
of 30, 60 or 100 ms between the first two seats to play, and an order, a far seat
first or a near seat first (at four seats the other two play 150-250 ms after the
second). Each seat also turns its stock once a hand, a play nobody can contest. The
seat whose 3H stays calls.

A race is *right* when it ends as R16 says for the true play times: the cards played
within the tie window (40 ms) of the first stay, and only those (the true times are
the moments the bench's gestures really ended, so a gesture the event loop ran late is
judged by when it was made). A seat *won* a race when its card stayed (ties, R16, let
several stay). Runs: two and four seats (half near, half far) with ``fair_races`` on;
the same with it off; and a *two-way liar*, a seat that answers every ping 100 ms late
and stamps every play 100 ms early, once near and once far, in the same races (the same
seed) as the honest two-seat run. The last line printed::

    fairness races=… right=… far_first_right_30=… far_first_right_60=… \
        far_first_right_100=… near_first_right=… arrival_order_right=… \
        contested_wait_ms_p50=… uncontested_added_ms_p50=… \
        liar_gain_near=… liar_gain_far=… targets=met|MISSED(…)

``right``: the share of races right in the fair runs (2 and 4 seats);
``far_first_right_N`` the same for the races where a far seat played first, N ms
before the next (``near_first_right``: all gaps with a near seat first);
``arrival_order_right`` the share right with ``fair_races`` off, in the same races;
``contested_wait_ms_p50`` what the server added to a contested play's answer (from
the delay line handing the play to the server to the answer coming back, the simulated
network left out); ``uncontested_added_ms_p50`` what fair races
add to a play nobody can contest (the stock turns): the p50 of that same answer time
with ``fair_races`` on less its p50 with the option off, in the same run (the line
before it gives both: the whole answer includes the durable commit and the WebSocket
stack, which the option does not change); ``liar_gain_near``/``liar_gain_far`` how
much the two-way liar's share of races won rose over the same seat's honest share.
``targets`` checks issue 23's: at least 100 fair races for each gap and order, right
≥ 0.95, each ``far_first_right_N`` ≥ 0.9, each liar gain ≤ 0.03.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from nertz.engine import Deal, Rules
from nertz.server.protocol import PROTOCOL_VERSION, Play, Pong, Ready
from nertz.server.table.commands import Connect, Inbound, Join, Out, Wake, WirePong
from nertz.server.table.settings import Settings
from nertz.server.table.table import Table

NEAR_MS, FAR_MS, JITTER_MS = 10, 120, 30
TIE_MS = 40
"""R16's tie window (the table's default ``tie_window_ms``)."""
GAPS = (30, 60, 100)
"""The gaps between the first two seats' plays in a race (ms)."""
CELLS = [(gap, far_first) for gap in GAPS for far_first in (True, False)]
LIES = {"pongs_late_ms": 100, "stamps_early_ms": 100}
"""The two-way liar: every pong sent this late, every play stamped this early."""
TARGETS = {"per_cell": 100, "right": 0.95, "far_first_right": 0.9, "liar_gain": 0.03}
LAYOUT = "nertz: 3H; work: 2H / 2S / 2D / 2C; stock: 9C 9D; waste: -"
MIDDLE = ["AH@0", "AS@0", "AD@0", "AC@0"]
RACES = ["1>F1", "2>F2", "3>F3", "4>F4", "N>F1"]
SERVER = """
import sys, uvicorn
from nertz.server.http.app import Config, create_app
from nertz.server.cli import tune_process, uvicorn_config
from nertz.server.door.limits import Limits
roomy = Limits(creates_per_minute=10**6, open_tables_per_address=10**6,
    bot_tables_per_address=10**6, joins_per_minute=10**6, sheets_per_hour=10**6,
    address_states_per_s=10**6,
    requests_per_s=10**6)
if sys.argv[3]:  # --store-tick-ms: the store writer's poll (its acks wait for a commit)
    import nertz.server.store.store
    nertz.server.store.store._TICK = float(sys.argv[3]) / 1000
config = Config(db=sys.argv[1], port=int(sys.argv[2]), test_hooks=True, limits=roomy)
tune_process()  # as ``nertz serve`` does
uvicorn.Server(uvicorn_config(create_app(config), config)).run()
"""


def now_ms() -> float:
    return time.monotonic() * 1000


@dataclass
class Race:
    seats: int
    played: dict[int, float]
    """Seat -> true play time (the bench's clock)."""
    far: set[int]
    gap_ms: int
    """The planned gap between the first two plays (the cell of the schedule)."""
    far_first: bool
    won: set[int] = field(default_factory=set)

    @property
    def first(self) -> int:
        return min(self.played, key=lambda s: self.played[s])

    @property
    def gap(self) -> float:
        times = sorted(self.played.values())
        return times[1] - times[0]

    @property
    def right(self) -> bool:
        """R16 for the true play times: the cards played within the tie window of the
        first stay, and only those."""
        first = min(self.played.values())
        return self.won == {s for s, t in self.played.items() if t - first <= TIE_MS}


class DelayLine:
    """A TCP proxy for one client: every chunk of bytes, either way, is held the seat's
    one-way delay plus jitter, in order (a later chunk never overtakes an earlier one).
    ``up`` and ``down`` keep, for each chunk, when it reached the line and when the line
    passed it on: what the server added to a play is read off them, the simulated
    network left out."""

    def __init__(self, delay: Callable[[], float]) -> None:
        self.delay = delay
        self.up: list[tuple[float, float]] = []
        self.down: list[tuple[float, float]] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.server: asyncio.Server | None = None

    async def open(self, host: str, port: int) -> socket.socket:
        """A socket connected, through the line, to the server at ``host:port``."""
        accepted: asyncio.Future[tuple[asyncio.StreamReader, asyncio.StreamWriter]]
        accepted = asyncio.get_running_loop().create_future()

        async def on_client(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            accepted.set_result((r, w))

        self.server = await asyncio.start_server(on_client, "127.0.0.1", 0)
        line_port = self.server.sockets[0].getsockname()[1]
        client = socket.create_connection(("127.0.0.1", line_port))
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        from_client, to_client = await accepted
        from_server, to_server = await asyncio.open_connection(host, port)
        for w in (to_client, to_server):
            w.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.tasks = [
            asyncio.ensure_future(self._carry(from_client, to_server, self.up)),
            asyncio.ensure_future(self._carry(from_server, to_client, self.down)),
        ]
        return client

    async def _carry(
        self, src: asyncio.StreamReader, dst: asyncio.StreamWriter, log: list[tuple[float, float]]
    ) -> None:
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                at, chunk = await queue.get()
                await asyncio.sleep(max(0.0, at - now_ms()) / 1000)
                if not chunk:
                    dst.close()
                    return
                dst.write(chunk)
                log.append((came[0], now_ms()))
                came.pop(0)

        came: list[float] = []
        sender = asyncio.ensure_future(deliver())
        free = 0.0
        try:
            while True:
                chunk = await src.read(65536)
                came.append(now_ms())
                free = max(free, now_ms() + self.delay())
                queue.put_nowait((free, chunk))
                if not chunk:
                    await sender
                    return
        finally:
            sender.cancel()

    def added(self, sent: float, answered: float) -> float | None:
        """What the server took for a message the client sent at ``sent`` whose answer
        the client read at ``answered``: from the line passing the first chunk after
        ``sent`` on to the server to the line getting the last chunk it passed on to the
        client by ``answered`` from the server."""
        up = next((out for came, out in self.up if came >= sent), None)
        down = [came for came, out in self.down if out <= answered]
        if up is None or not down or down[-1] < up:
            return None
        return down[-1] - up

    def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        if self.server is not None:
            self.server.close()


class Seat:
    """One client behind its delay line."""

    def __init__(self, number: int, one_way: int, rng: random.Random) -> None:
        self.number = number
        self.one_way = one_way
        self.rng = rng
        self.clock_ahead = rng.uniform(-5e5, 5e5)
        """This client's clock minus the bench's."""
        self.offset: float | None = None
        self.lie_ms = 0
        self.late_pongs_ms = 0
        self.ws: ClientConnection | None = None
        self.line = DelayLine(self.delay)
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.seq = 0
        self.outbox: asyncio.Queue[str] = asyncio.Queue()
        self.added: dict[str, list[float]] = {"contested": [], "uncontested": []}
        self.sent_at: dict[int, float] = {}
        """Seq -> when the play was sent: with the answer's arrival, the line tells what
        the server added (``DelayLine.added``)."""

    def delay(self) -> float:
        return max(0.0, self.one_way + self.rng.uniform(-JITTER_MS, JITTER_MS))

    def client_clock(self) -> float:
        return now_ms() + self.clock_ahead

    async def write(self) -> None:
        """Messages go out in the order they were sent (one writer: none overtakes)."""
        assert self.ws is not None
        while True:
            await self.ws.send(await self.outbox.get())

    def send(self, message: dict[str, Any], extra_ms: float = 0.0) -> None:
        """To the server, through the line; ``extra_ms`` later (a page's timer)."""
        body = json.dumps(message)
        if extra_ms:
            asyncio.get_running_loop().call_later(extra_ms / 1000, self.outbox.put_nowait, body)
        else:
            self.outbox.put_nowait(body)

    async def read(self) -> None:
        assert self.ws is not None
        async for body in self.ws:
            message = json.loads(body)
            if message["type"] in ("ack", "refused") and message["seq"] in self.sent_at:
                added = self.line.added(self.sent_at.pop(message["seq"]), now_ms())
                if added is not None:
                    self.added["_last"] = [added]
            self._got(message)

    def _got(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "ping":
            if message["o"] is not None:
                self.offset = message["o"]
            pong = {"type": "pong", "t": message["t"], "c": self.client_clock()}
            self.send(pong, extra_ms=self.late_pongs_ms)
        elif kind in ("ack", "refused"):
            for event in message.get("events", []):
                self.events.put_nowait(event["e"])
            future = self.waiting.pop(message["seq"], None)
            if future is not None and not future.done():
                future.set_result(message)
        elif kind == "event":
            self.events.put_nowait(message["e"])

    def play(self, move: str, kind: str = "play") -> asyncio.Future[dict[str, Any]]:
        """The gesture ends now: stamp it, send it; the future holds the answer."""
        self.seq += 1
        message: dict[str, Any] = {"type": kind, "seq": self.seq}
        if kind == "play":
            message["move"] = move
        if self.offset is not None:
            message["at"] = round(self.client_clock() - self.offset) - self.lie_ms
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[self.seq] = future
        self.sent_at[self.seq] = now_ms()
        self.send(message)
        return future

    async def until(self, kind: str, timeout: float = 30.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            event = await asyncio.wait_for(self.events.get(), max(0.01, end - time.monotonic()))
            if event["k"] == kind:
                return event


async def gesture(
    seat: Seat,
    move: str,
    times: dict[int, float],
    answers: dict[int, asyncio.Future[dict[str, Any]]],
) -> None:
    """The seat's gesture ends at ``times[seat]``: it plays ``move`` then."""
    await asyncio.sleep(max(0.0, times[seat.number] - now_ms()) / 1000)
    answers[seat.number] = seat.play(move)
    times[seat.number] = now_ms()  # the true time the gesture ended


async def table(
    http: httpx.AsyncClient,
    url: str,
    delays: list[int],
    fair: bool,
    hands: int,
    rng: random.Random,
    liar: str | None,
) -> tuple[list[Race], list[Seat]]:
    body = {
        "layouts": [LAYOUT] * len(delays),
        "middle": MIDDLE,
        "seats": len(delays),
        "countdown_ms": 0,
        "options": {"fair_races": "on" if fair else "off", "landing_ms": "0"},
    }
    code = (await http.post(f"{url}/api/test/tables", json=body)).json()["code"]
    seats = [Seat(i, d, random.Random(rng.random())) for i, d in enumerate(delays)]
    if liar is not None:  # the two-way liar: "near" (seat 0) or "far" (seat 1)
        lying = seats[0 if liar == "near" else 1]
        lying.late_pongs_ms = LIES["pongs_late_ms"]
        lying.lie_ms = LIES["stamps_early_ms"]
    readers = []
    for seat in seats:
        token = await http.post(f"{url}/api/tables/{code}/join", json={"name": f"s{seat.number}"})
        host, port = url.removeprefix("http://").split(":")
        sock = await seat.line.open(host, int(port))
        seat.ws = await connect(url.replace("http", "ws") + "/ws", sock=sock, max_size=None)
        await seat.ws.send(
            json.dumps(
                {
                    "type": "hello",
                    "table": code,
                    "token": token.json()["token"],
                    "protocol": PROTOCOL_VERSION,
                }
            )
        )
        readers.append(asyncio.ensure_future(seat.read()))
        readers.append(asyncio.ensure_future(seat.write()))
    await asyncio.sleep(2.0)  # the first pings answered
    far = {s.number for s in seats if s.one_way == FAR_MS}
    races: list[Race] = []
    cells: list[tuple[int, bool]] = []
    try:
        for _ in range(hands):
            for seat in seats:
                seat.send({"type": "ready"})
            await asyncio.gather(*(s.until("go") for s in seats))
            await asyncio.sleep(0.3)
            turns = [s.play("T") for s in seats]
            await asyncio.gather(*turns)
            for seat in seats:
                seat.added["uncontested"] += seat.added.pop("_last", [])
            winner_3h: int | None = None
            for move in RACES:
                if not cells:  # each cell of the schedule in turn, in a shuffled order
                    cells = list(CELLS)
                    rng.shuffle(cells)
                gap, far_first = cells.pop()
                fars = [s.number for s in seats if s.number in far]
                nears = [s.number for s in seats if s.number not in far]
                first = rng.choice(fars if far_first else nears)
                second = rng.choice(nears if far_first else fars)
                start = now_ms() + 50
                times = {first: start, second: start + gap}
                for seat in seats:  # at four seats: the others well after the second
                    times.setdefault(seat.number, start + gap + rng.uniform(150, 250))
                answers: dict[int, asyncio.Future[dict[str, Any]]] = {}

                await asyncio.gather(*(gesture(s, move, times, answers) for s in seats))
                await asyncio.gather(*answers.values())
                race = Race(len(seats), dict(times), far, gap, far_first)
                for number, future in answers.items():
                    message = future.result()
                    if message["type"] == "ack":
                        race.won.add(number)
                    seats[number].added["contested"] += seats[number].added.pop("_last", [])
                races.append(race)
                if move == "N>F1" and race.won:
                    winner_3h = min(race.won)
            if winner_3h is not None:
                await seats[winner_3h].play("", kind="call")
            await asyncio.gather(*(s.until("hand_end") for s in seats))
    finally:
        for seat in seats:
            assert seat.ws is not None
            await seat.ws.close()
            seat.line.close()
        for reader in readers:
            reader.cancel()
    return races, seats


async def run(
    url: str, delays: list[int], fair: bool, tables: int, hands: int, seed: int, liar: str | None
) -> tuple[list[Race], list[Seat]]:
    rng = random.Random(seed)
    async with httpx.AsyncClient(timeout=20) as http:
        results = await asyncio.gather(
            *(
                table(http, url, delays, fair, hands, random.Random(rng.random()), liar)
                for _ in range(tables)
            )
        )
    races = [r for rs, _ in results for r in rs]
    seats = [s for _, ss in results for s in ss]
    return races, seats


def right(races: list[Race], where: Callable[[Race], bool] = lambda r: True) -> float:
    """The share of the chosen races that ended as R16 says for the true play times."""
    chosen = [r for r in races if where(r)]
    return sum(r.right for r in chosen) / max(1, len(chosen))


def in_cell(gap: int, far_first: bool) -> Callable[[Race], bool]:
    return lambda r: r.gap_ms == gap and r.far_first == far_first


def far_first(gap: int) -> Callable[[Race], bool]:
    return in_cell(gap, True)


def fewest_per_cell(races: list[Race]) -> int:
    return min(sum(r.gap_ms == g and r.far_first == f for r in races) for g, f in CELLS)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def share(races: list[Race], seat: int) -> float:
    return sum(seat in r.won for r in races) / max(1, len(races))


def table_cost_us(fair: bool, plays: int = 3000) -> float:
    """The median time (µs) the sans-I/O table takes to answer a play nobody can
    contest (a turn of the stock) from a person whose clock is measured: what the
    table itself adds, without the network, the event loop or the store."""
    rules = Rules(fair_races=fair)
    table = Table("COST", rules, Settings(seats=2, countdown_ms=0), dealer=_cost_deal)
    now = 0
    for conn in (1, 2):
        token = hashlib.sha256(f"t{conn}".encode()).hexdigest()
        table.handle(Join(f"p{conn}", token), now)
        table.handle(Connect(conn, token), now)
        table.handle(Inbound(conn, Ready()), now)

    def answer_pings(out: Out) -> None:
        for conn, body, _ in out.pings:
            message = json.loads(body)
            if message["type"] == "ping":  # 5 ms each way
                pong = Pong(message["t"], float(message["t"] + 5 + 1000))
                table.handle(WirePong(conn, message["t"]), message["t"] + 10)
                table.handle(Inbound(conn, pong), message["t"] + 10)

    for _ in range(40):  # the first pings answered, the countdown over
        now += 250
        answer_pings(table.handle(Wake(), now))
    times = []
    for seq in range(1, plays + 1):
        now += 7
        play = Play(seq, "T", now - 5)
        began = time.perf_counter_ns()
        out = table.handle(Inbound(seq % 2 + 1, play), now)
        times.append((time.perf_counter_ns() - began) / 1000)
        answer_pings(out)
    return statistics.median(times)


def _cost_deal(seats: int, rules: Rules, seed: int) -> Deal:
    return Deal.from_layouts([LAYOUT] * seats, MIDDLE)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=6, help="tables at once in each run")
    parser.add_argument("--hands", type=int, default=12, help="hands per table (5 races each)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--store-tick-ms",
        default="",
        help="the store writer's poll in the server (default: the store's own, 5 ms)",
    )
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        server = subprocess.Popen(
            [
                sys.executable,
                "-c",
                SERVER,
                os.path.join(tmp, "fair.db"),
                str(port),
                args.store_tick_ms,
            ],
            env=env,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            for _ in range(200):
                try:
                    httpx.get(url + "/api/rules", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.05)
            two, four = [NEAR_MS, FAR_MS], [NEAR_MS, FAR_MS, NEAR_MS, FAR_MS]
            t, h, s = args.tables, args.hands, args.seed
            fair2, seats2 = asyncio.run(run(url, two, True, t, h, s, None))
            fair4, seats4 = asyncio.run(run(url, four, True, t, h, s + 1, None))
            off2, offseats2 = asyncio.run(run(url, two, False, t, h, s, None))
            off4, offseats4 = asyncio.run(run(url, four, False, t, h, s + 1, None))
            liar_near, _ = asyncio.run(run(url, two, True, t, h, s, "near"))
            liar_far, _ = asyncio.run(run(url, two, True, t, h, s, "far"))
        finally:
            server.terminate()
            server.wait(10)
    fair = fair2 + fair4
    off = off2 + off4
    contested = [a for seat in seats2 + seats4 for a in seat.added["contested"]]
    uncontested = [a for seat in seats2 + seats4 for a in seat.added["uncontested"]]
    uncontested_off = [a for seat in offseats2 + offseats4 for a in seat.added["uncontested"]]
    for name, races in (
        ("fair, 2 seats", fair2),
        ("fair, 4 seats", fair4),
        ("off, 2 seats", off2),
        ("off, 4 seats", off4),
    ):
        cells = " ".join(
            f"{'far' if f else 'near'}_first_{g}={right(races, in_cell(g, f)):.3f}"
            for g, f in CELLS
        )
        print(f"{name}: races={len(races)} right={right(races):.3f} {cells}")
    on, off_ = uncontested, uncontested_off
    print(
        f"the table's own part of an uncontested play (in process, median):"
        f" {table_cost_us(True):.0f} µs fair, {table_cost_us(False):.0f} µs off"
    )
    print(
        f"uncontested play, server's answer at the proxy: p50 {statistics.median(on):.2f}"
        f" ms fair, {statistics.median(off_):.2f} ms off;"
        f" p90 {quantile(on, 0.9):.2f} ms fair, {quantile(off_, 0.9):.2f} ms off"
    )
    added = statistics.median(on) - statistics.median(off_)
    gain_near = share(liar_near, 0) - share(fair2, 0)
    gain_far = share(liar_far, 1) - share(fair2, 1)
    print(
        f"two-way liar (pongs {LIES['pongs_late_ms']} ms late, stamps"
        f" {LIES['stamps_early_ms']} ms early): near seat's share honest {share(fair2, 0):.3f},"
        f" lying {share(liar_near, 0):.3f}; far seat's share honest {share(fair2, 1):.3f},"
        f" lying {share(liar_far, 1):.3f}"
    )
    figures = {
        "right": right(fair),
        **{f"far_first_right_{g}": right(fair, far_first(g)) for g in GAPS},
        "near_first_right": right(fair, lambda r: not r.far_first),
    }
    missed = []
    if fewest_per_cell(fair) < TARGETS["per_cell"]:
        missed.append(f"races_per_cell={fewest_per_cell(fair)}<{TARGETS['per_cell']}")
    if figures["right"] < TARGETS["right"]:
        missed.append(f"right<{TARGETS['right']}")
    for g in GAPS:
        if figures[f"far_first_right_{g}"] < TARGETS["far_first_right"]:
            missed.append(f"far_first_right_{g}<{TARGETS['far_first_right']}")
    for where, gain in (("near", gain_near), ("far", gain_far)):
        if gain > TARGETS["liar_gain"]:
            missed.append(f"liar_gain_{where}>{TARGETS['liar_gain']}")
    print(
        f"targets: at least {TARGETS['per_cell']} fair races per gap and order,"
        f" right >= {TARGETS['right']}, each far_first_right_N >= {TARGETS['far_first_right']},"
        f" each liar gain <= {TARGETS['liar_gain']}"
    )
    print(
        f"fairness races={len(fair) + len(off) + len(liar_near) + len(liar_far)}"
        + "".join(f" {k}={v:.3f}" for k, v in figures.items())
        + f" arrival_order_right={right(off):.3f}"
        f" contested_wait_ms_p50={statistics.median(contested):.1f}"
        f" uncontested_added_ms_p50={added:.2f}"
        f" liar_gain_near={gain_near:.3f}"
        f" liar_gain_far={gain_far:.3f}"
        f" targets={'met' if not missed else 'MISSED(' + ','.join(missed) + ')'}"
    )


if __name__ == "__main__":
    main()
