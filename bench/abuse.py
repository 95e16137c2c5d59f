"""Abuse benchmark: honest tables playing while others try to take the server away.

    python bench/abuse.py --tables 100 --seconds 60

Starts ``nertz serve`` in its own process on a fresh database with its default limits,
seats ``--tables`` honest four-person tables (every honest client on its own loopback
address, 127.1.x.y; each plays as in ``bench/load.py``), and measures them twice in the
same run: first alone (the baseline), then for ``--seconds`` beside this mix:

* one address creating 2,000 tables as fast as it is answered;
* 20 spectators that never read (a 4 KiB receive buffer, two addresses), watching
  honest tables;
* 100 spectators each sending 19 ``resync`` a second (ten addresses);
* four 64 MiB request bodies at once, streamed without ``Content-Length``, again and
  again;
* 500 TCP connections that send nothing (five addresses);
* HTTP-only seat squatters: five addresses joining every free public seat they see
  and never connecting;
* held tables (issue 24): one address making one-seat tables that hold their place for
  a day (``reconnect_s=86400``, ``bot_takeover_s=0``), dealing and leaving, as fast as
  it is answered; and 14 addresses each making eight-bot tables with a spectator
  watching each;
* the host race: one address polling ``GET /api/tables`` and joining seat 0 of every
  new public table before its creator;
* stored-event spam: two addresses at eight practice tables each flipping ``pace`` and
  ``pause`` as fast as they are answered, and hosts flipping an option.

* the reads no quota bounded before (issue 24): one address with 8 requests in flight,
  and six more addresses with 8 each, asking on and on for the list of tables, a long
  score sheet and its CSV, a table's invite dialog and QR code, a finished match (when
  one is listed), ``/metrics``, ``/sw.js`` and a client file;
* a foreign site's page in visitors' browsers: changes with a foreign ``Origin``, with
  ``text/plain`` JSON and no ``Origin``, and WebSockets under a rebound ``Host``.

Meanwhile a newcomer, each time from a new address, makes a public table every second
and sits down with its host token a moment later (the racer has seen it by then): it
must be answered 201 every time (a new address can create tables throughout) and be
the host of every table it made.

The abusers speak HTTP and WebSocket with ``bench/raw_http.py`` and ``bench/raw_ws.py``:
on other machines in real life, here they share the server's two cores, so their
clients do the least each request needs (with httpx and websockets' client they took
0.8-1 of a core, most of it taken from the server they attack).

Honest errors are ``error`` messages, plays not answered within 2 s and lost
connections. ``rss_growth_mb`` is the server's peak RSS during the abuse less its RSS
before it. ```conns_left`` counts the abusive connections the server still holds at the end
of the abuse, read from the server's side of each socket in ``/proc/net/tcp``
(ESTABLISHED or CLOSE_WAIT; Linux). The last line printed is::

    abuse honest_ack_p99_ms=.. baseline_ack_p99_ms=.. honest_errors=.. \\
          rss_growth_mb=.. conns_left=.. newcomer_refused=.. creator_not_host=..
          (one line)

Targets: honest p99 at most twice the baseline, no honest error, RSS growth at most
100 MB, no abusive connection left, no newcomer refused, the creator host at every
table (docs/performance.md).

``--only KIND`` (repeatable) runs one kind of the mix alone: ``create``, ``never_read``,
``resync``, ``bodies``, ``silent``, ``squat``, ``held``, ``held14``, ``race``, ``spam``,
``reads`` (one address), ``reads6`` (six), ``origin``; ``--only none`` measures the honest load
twice with no abuse at all (what the second measurement differs by itself).
``--pin S:C[:A]`` pins the server to CPUs ``S``, the honest clients to ``C`` and the
abusers to ``A`` (by default ``C``), in both measurements (``--pin 0:0:1``: the abusers
alone on a CPU of their own, as if on another machine);
``--abusers-nice 19`` besides leaves the abusers only what the honest clients do not
use; ``--abusers-idle`` runs them under ``SCHED_IDLE``: they get only CPU time no
other process wants and give it up as soon as one wakes (a model of abusers on other
machines, with both cores the server's and the honest clients' as in the baseline).
Each measurement also prints the server's full collections (from ``GET /``), the
round trip of a ``GET /`` every 500 ms (the server's event loop lateness plus a small
request) and the honest clients' own loop lateness.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import contextlib
import gc
import json
import multiprocessing
import os
import random
import socket
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import raw_http
import raw_ws
from load import (
    Stats,
    client_gc,
    cpu_seconds,
    free_port,
    lag_monitor,
    percentile,
    player,
    profiler,
)
from prometheus_client.parser import text_string_to_metric_families
from serving import serving

from nertz.server.cli import tune_process


def honest(i: int) -> str:
    """The ``i``-th honest client's own address."""
    return f"127.1.{i // 250}.{i % 250 + 1}"


def abuser(kind: int, i: int = 0) -> str:
    """Abusive addresses: 127.66.``kind``.``i``."""
    return f"127.66.{kind}.{i + 1}"


def pin(choice: str | None, server: int) -> set[int] | None:
    """``--pin S:C[:A]``: the server on CPUs ``S``, this process (the honest clients) on
    ``C`` and the abusers' on ``A`` (by default ``C``; comma-separated CPU numbers), the
    same in both measurements. Returns the abusers' CPUs (None: not pinned)."""
    if choice is None:
        return None
    server_cpus, client_cpus, *abuser_cpus = (
        {int(c) for c in part.split(",")} for part in choice.split(":")
    )
    for task in Path(f"/proc/{server}/task").iterdir():  # its threads too (the store's)
        os.sched_setaffinity(int(task.name), server_cpus)
    os.sched_setaffinity(0, client_cpus)
    return abuser_cpus[0] if abuser_cpus else client_cpus


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


KINDS = {2: "never_read", 3: "resync", 5: "silent"}
"""The abusers that hold connections, by the third byte of their address."""
SERVER_HOLDS = {"01", "08"}
"""TCP states of a socket the server process still holds: ESTABLISHED, CLOSE_WAIT."""


def held_by_server(port: int) -> dict[str, int]:
    """Abusive connections the server still holds, by kind, from the server's side
    of each socket (``/proc/net/tcp``). A client's own socket can look open after the
    server closed its end: a peer that never reads keeps a zero window, so the FIN
    waits behind unread bytes in the server's kernel, which the process no longer
    holds."""
    held = dict.fromkeys(KINDS.values(), 0)
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote, state = fields[1], fields[2], fields[3]
        if int(local.split(":")[1], 16) != port or state not in SERVER_HOLDS:
            continue
        ip = bytes.fromhex(remote.split(":")[0])[::-1]  # little-endian on x86
        kind = KINDS.get(ip[2]) if ip[0] == 127 and ip[1] == 66 else None
        if kind is not None:
            held[kind] += 1
    return held


# ------------------------------------------------------------------ the honest side


async def seat_tables(http: str, tables: int) -> list[tuple[str, list[str]]]:
    """Honest tables: created by seat 0's address, each seat joined from its own."""
    sem = asyncio.Semaphore(20)

    async def client(i: int) -> httpx.AsyncClient:
        transport = httpx.AsyncHTTPTransport(local_address=honest(i))
        return httpx.AsyncClient(base_url=http, transport=transport, timeout=30)

    async def one(t: int) -> tuple[str, list[str]]:
        async with sem:
            async with await client(4 * t) as c:
                made = await c.post(
                    "/api/tables",
                    json={"seats": 4, "countdown_ms": 0, "next_hand_s": 2, "bot_takeover_s": 0},
                )
                made.raise_for_status()
                code, host_token = made.json()["code"], made.json()["host_token"]
            tokens = []
            for seat in range(4):
                async with await client(4 * t + seat) as c:
                    body = {"name": f"p{seat}", **({"host_token": host_token} if not seat else {})}
                    joined = await c.post(f"/api/tables/{code}/join", json=body)
                    joined.raise_for_status()
                    tokens.append(joined.json()["token"])
            return code, tokens

    return list(await asyncio.gather(*(one(t) for t in range(tables))))


# ------------------------------------------------------------------ the abusers


class Abuse:
    """What the abusers did and hold."""

    def __init__(self) -> None:
        self.answers: collections.Counter[str] = collections.Counter()
        self.sockets: list[socket.socket] = []
        self.resyncs_sent = 0


async def creator(http: str, abuse: Abuse, stop: asyncio.Event) -> None:
    async with raw_http.Client(http, abuser(1)) as c:
        for _ in range(2000):
            if stop.is_set():
                return
            try:
                answer = await c.post("/api/tables", json={"seats": 4})
            except raw_http.HTTPError as error:
                abuse.answers[f"create {type(error).__name__}"] += 1
            else:
                abuse.answers[f"create {answer.status_code}"] += 1


def never_reader(port: int, address: str, code: str) -> socket.socket:
    """A WebSocket spectator with a 4 KiB receive buffer that never reads after the
    handshake."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    head = (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
    )
    sock.sendall(head.encode() + b"\r\n")
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(1)
    payload = json.dumps({"type": "hello", "table": code}).encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)
    return sock


async def resyncer(url: str, address: str, code: str, abuse: Abuse, stop: asyncio.Event) -> None:
    try:
        ws = await raw_ws.connect(url, lambda _: None, address)  # read and dropped
    except (raw_ws.Closed, OSError, TimeoutError) as error:
        abuse.answers[f"resync refused {type(error).__name__}"] += 1
        return
    ws.send(json.dumps({"type": "hello", "table": code}))
    while not stop.is_set() and not ws.closed.done():
        ws.send('{"type": "resync"}')
        abuse.resyncs_sent += 1
        await asyncio.sleep(1 / 19)
    if ws.closed.done():  # closed by the server: what should happen
        abuse.answers["resync closed by the server"] += 1
    ws.close()


async def big_bodies(http: str, abuse: Abuse, stop: asyncio.Event) -> None:
    async def body() -> AsyncIterator[bytes]:
        chunk = b" " * (1 << 20)
        for _ in range(64):
            yield chunk

    async with raw_http.Client(http, abuser(4)) as c:
        while not stop.is_set():
            try:
                json_type = {"Content-Type": "application/json"}  # else refused unread
                answer = await c.post("/api/sheets", content=body(), headers=json_type)
                abuse.answers[f"body {answer.status_code}"] += 1
            except raw_http.HTTPError as error:
                abuse.answers[f"body {type(error).__name__}"] += 1
                await asyncio.sleep(0.1)


async def squatters(http: str, abuse: Abuse, stop: asyncio.Event) -> None:
    async def one(i: int) -> None:
        async with raw_http.Client(http, abuser(6, i)) as c:
            while not stop.is_set():
                listed = (await c.get("/api/tables")).json()["tables"]
                for table in listed:
                    for seat in table["free"]:
                        path = f"/api/tables/{table['code']}/join"
                        answer = await c.post(path, json={"name": "squat", "seat": seat})
                        abuse.answers[f"squat {answer.status_code}"] += 1
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 1)

    await asyncio.gather(*(one(i) for i in range(5)))


async def held_tables(http: str, url: str, abuse: Abuse, stop: asyncio.Event) -> None:
    """Issue 24: one address makes one-seat tables whose place is held for a day, deals
    and leaves, again and again; refused, it tries again a second later."""
    body = {"seats": 1, "reconnect_s": 86_400, "bot_takeover_s": 0, "countdown_ms": 0}
    async with raw_http.Client(http, abuser(7)) as c:
        while not stop.is_set():
            try:
                made = await c.post("/api/tables", json=body)
                abuse.answers[f"held create {made.status_code}"] += 1
                if made.status_code != 201:
                    await asyncio.sleep(1)
                    continue
                code = made.json()["code"]
                join = {"name": "Held", "host_token": made.json()["host_token"]}
                token = (await c.post(f"/api/tables/{code}/join", json=join)).json()["token"]
                dealt = asyncio.get_running_loop().create_future()

                def read(text: bytes, dealt: asyncio.Future[None] = dealt) -> None:
                    if b'"k":"dealt"' in text and not dealt.done():
                        dealt.set_result(None)

                ws = await raw_ws.connect(url, read, abuser(7))
                ws.send(json.dumps({"type": "hello", "table": code, "token": token}))
                ws.send('{"type": "ready"}')
                await asyncio.wait([dealt, ws.closed], return_when=asyncio.FIRST_COMPLETED)
                ws.close()  # dealt: now leave, the place held for a day
            except Exception as error:
                abuse.answers[f"held {type(error).__name__}"] += 1
                await asyncio.sleep(1)


async def held_by_fourteen(
    http: str, url: str, abuse: Abuse, stop: asyncio.Event, held: list[Any]
) -> None:
    """Issue 24's variant: 14 addresses each make eight-bot tables (started at once)
    with a spectator watching each, as many as they are let."""
    bots = {str(seat): "casual" for seat in range(8)}

    async def one(i: int) -> None:
        address = abuser(8, i)
        async with raw_http.Client(http, address) as c:
            while not stop.is_set():
                try:
                    made = await c.post("/api/tables", json={"seats": 8, "bots": bots})
                    abuse.answers[f"held14 create {made.status_code}"] += 1
                    if made.status_code != 201:
                        await asyncio.sleep(1)
                        continue
                    ws = await raw_ws.connect(url, lambda _: None, address)
                    held.append(ws)
                    ws.send(json.dumps({"type": "hello", "table": made.json()["code"]}))
                except Exception as error:
                    abuse.answers[f"held14 {type(error).__name__}"] += 1
                    await asyncio.sleep(1)

    await asyncio.gather(*(one(i) for i in range(14)))


async def host_racer(http: str, abuse: Abuse, stop: asyncio.Event) -> None:
    """Issue 24: poll the public tables as fast as answered and join seat 0 (else any
    free seat) of every new one, hoping to be first and so its host."""
    seen: set[str] = set()
    async with raw_http.Client(http, abuser(9)) as c:
        while not stop.is_set():
            try:
                listed = (await c.get("/api/tables")).json()["tables"]
                for table in listed:
                    if table["code"] in seen or not table["free"]:
                        continue
                    seen.add(table["code"])
                    path = f"/api/tables/{table['code']}/join"
                    answer = await c.post(path, json={"name": "Racer", "seat": 0})
                    abuse.answers[f"race seat0 {answer.status_code}"] += 1
                    if answer.status_code != 200:
                        answer = await c.post(path, json={"name": "Racer"})
                        abuse.answers[f"race any {answer.status_code}"] += 1
            except Exception as error:
                abuse.answers[f"race {type(error).__name__}"] += 1
                await asyncio.sleep(0.1)


async def event_spam(http: str, url: str, abuse: Abuse, stop: asyncio.Event) -> None:
    """Issue 24: two addresses at eight practice tables each flip ``pace`` and
    ``pause`` as fast as answered, and at two tables each the host flips an option;
    counts the changes the server stored (their events came back) and refused."""

    async def spam(address: str, code: str, token: str, messages: list[str]) -> None:
        def read(text: bytes) -> None:
            for kind in (b'"k":"pace"', b'"k":"paused"', b'"k":"options"'):
                if kind in text:
                    abuse.answers["spam stored"] += 1
            if b'"type":"error"' in text:
                abuse.answers[f"spam error {json.loads(text)['code']}"] += 1

        ws = await raw_ws.connect(url, read, address)
        ws.send(json.dumps({"type": "hello", "table": code, "token": token}))
        ws.send('{"type": "ready"}')
        n = 0
        while not stop.is_set() and not ws.closed.done():
            ws.send(messages[n % len(messages)])
            abuse.answers["spam sent"] += 1
            n += 1
            await asyncio.sleep(0.002)
        ws.close()

    async def one(address: str) -> None:
        tasks: list[tuple[str, str, str, list[str]]] = []
        flips = [
            '{"type": "pace", "pace": 30}',
            '{"type": "pause", "on": true}',
            '{"type": "pace", "pace": 31}',
            '{"type": "pause", "on": false}',
        ]
        options = [
            json.dumps({"type": "host", "do": "options", "options": {"caller_bonus": str(b)}})
            for b in (10, 11)
        ]
        async with raw_http.Client(http, address) as c:
            for _ in range(8):
                made = await c.post("/api/practice", json={"name": "Spam", "count": 1})
                abuse.answers[f"spam practice {made.status_code}"] += 1
                if made.status_code == 201:
                    seat = made.json()
                    tasks.append((address, seat["code"], seat["token"], flips))
            for _ in range(2):
                made = await c.post("/api/tables", json={"seats": 2})
                abuse.answers[f"spam table {made.status_code}"] += 1
                if made.status_code == 201:
                    code = made.json()["code"]
                    join = {"name": "Spam", "host_token": made.json()["host_token"]}
                    seat = (await c.post(f"/api/tables/{code}/join", json=join)).json()
                    tasks.append((address, code, seat["token"], options))
        await asyncio.gather(*(spam(*task) for task in tasks), return_exceptions=True)

    await asyncio.gather(*(one(abuser(10, i)) for i in range(2)))


async def long_sheet(c: raw_http.Client) -> str | None:
    """A score sheet of eight players and 150 hands (each read scored 20-27 ms before
    answers were kept), made by the reader's own address; its id."""
    names = [f"Player {i}" for i in range(8)]
    hands = [{"middle": [5] * 8, "nertz_left": [4] * 8} for _ in range(150)]
    made = await c.post("/api/sheets", json={"names": names, "hands": hands})
    return str(made.json()["id"]) if made.status_code == 201 else None


async def readers(
    http: str, codes: list[str], addresses: list[str], abuse: Abuse, stop: asyncio.Event
) -> None:
    """Each of ``addresses`` with 8 requests in flight, round the reads that cost the
    server the most, as fast as they are answered."""

    async def one(address: str) -> None:
        async with raw_http.Client(http, address) as c:
            sheet = await long_sheet(c)
            listed = (await c.get("/api/matches")).json().get("matches", [])
            paths = ["/api/tables", "/metrics", "/sw.js", "/static/js/main.js"]
            paths += [f"/api/tables/{codes[0]}/qr.svg", f"/api/tables/{codes[0]}/invite"]
            if sheet is not None:
                paths += [f"/api/sheets/{sheet}", f"/api/sheets/{sheet}/csv"]
            if listed:
                paths.append(f"/api/matches/{listed[0]['match']}")

            async def worker(i: int) -> None:
                while not stop.is_set():
                    path = paths[i % len(paths)]
                    i += 1
                    try:
                        answer = await c.get(path)
                    except raw_http.HTTPError as error:
                        abuse.answers[f"read {type(error).__name__}"] += 1
                        await asyncio.sleep(0.1)
                    else:
                        abuse.answers[f"read {answer.status_code}"] += 1

            await asyncio.gather(*(worker(i) for i in range(8)))

    await asyncio.gather(*(one(address) for address in addresses))


async def foreign_site(port: int, codes: list[str], abuse: Abuse, stop: asyncio.Event) -> None:
    """What a foreign page makes its visitors' browsers send (one address, 4 at once):
    changes with its ``Origin``, ``text/plain`` JSON with none, and WebSockets to a
    name of its own rebound to the server."""
    http = f"http://127.0.0.1:{port}"
    evil = {"Origin": "http://evil.example", "Content-Type": "application/json"}
    plain = {"Content-Type": "text/plain"}
    join = f"/api/tables/{codes[0]}/join"
    async with raw_http.Client(http, abuser(32)) as c:

        async def worker(i: int) -> None:
            while not stop.is_set():
                i += 1
                if i % 5 == 4:  # a WebSocket under the rebound name
                    host = f"rebind.example:{port}"
                    try:
                        ws = await raw_ws.connect(
                            f"ws://{host}/ws",  # the Host it says; the socket is the server's
                            lambda _: None,
                            abuser(32),
                            headers={"Origin": f"http://{host}"},
                            to=("127.0.0.1", port),
                        )
                    except (raw_ws.Closed, OSError, TimeoutError) as error:
                        abuse.answers[f"foreign ws {type(error).__name__}"] += 1
                    else:
                        abuse.answers["foreign ws open"] += 1
                        ws.close()
                    continue
                path, headers = [
                    ("/api/tables", evil),
                    ("/api/tables", plain),
                    (join, evil),
                    (join, plain),
                ][i % 4]
                body = b'{"name": "Visitor", "seats": 2}'
                try:
                    answer = await c.post(path, content=body, headers=headers)
                except raw_http.HTTPError as error:
                    abuse.answers[f"foreign {type(error).__name__}"] += 1
                else:
                    abuse.answers[f"foreign {answer.status_code}"] += 1

        await asyncio.gather(*(worker(i) for i in range(4)))


ABUSES = (
    "create",
    "never_read",
    "resync",
    "bodies",
    "silent",
    "squat",
    "held",
    "held14",
    "race",
    "spam",
    "reads",
    "reads6",
    "origin",
)
"""The kinds of abuse, as ``--only`` names them."""


async def abuse_all(
    port: int, codes: list[str], stop: Any, results: Any, only: tuple[str, ...] = ABUSES
) -> None:
    """Open the abusers' connections (the kinds in ``only``), say so on ``results``,
    abuse until ``stop``, then put what they were answered on ``results``."""
    http = f"http://127.0.0.1:{port}"
    url = f"ws://127.0.0.1:{port}/ws"
    rng = random.Random(11)
    abuse = Abuse()
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    for i in range(500 if "silent" in only else 0):  # silent TCP connections
        sock = socket.socket()
        sock.bind((abuser(5, i % 5), 0))
        sock.setblocking(False)
        await loop.sock_connect(sock, ("127.0.0.1", port))
        abuse.sockets.append(sock)
    for i in range(20 if "never_read" in only else 0):
        sock = await asyncio.to_thread(never_reader, port, abuser(2, i % 2), rng.choice(codes))
        abuse.sockets.append(sock)
    tasks = []
    if "create" in only:
        tasks.append(asyncio.create_task(creator(http, abuse, done)))
    if "resync" in only:
        for i in range(100):
            spam = resyncer(url, abuser(3, i % 10), rng.choice(codes), abuse, done)
            tasks.append(asyncio.create_task(spam))
    if "bodies" in only:
        tasks.extend(asyncio.create_task(big_bodies(http, abuse, done)) for _ in range(4))
    if "squat" in only:
        tasks.append(asyncio.create_task(squatters(http, abuse, done)))
    if "held" in only:
        tasks.append(asyncio.create_task(held_tables(http, url, abuse, done)))
    watching: list[Any] = []  # held14's spectators, closed at the end
    if "held14" in only:
        tasks.append(asyncio.create_task(held_by_fourteen(http, url, abuse, done, watching)))
    if "race" in only:
        tasks.append(asyncio.create_task(host_racer(http, abuse, done)))
    if "spam" in only:
        tasks.append(asyncio.create_task(event_spam(http, url, abuse, done)))
    if "reads" in only:
        tasks.append(asyncio.create_task(readers(http, codes, [abuser(30)], abuse, done)))
    if "reads6" in only:
        six = [abuser(31, i) for i in range(6)]
        tasks.append(asyncio.create_task(readers(http, codes, six, abuse, done)))
    if "origin" in only:
        tasks.append(asyncio.create_task(foreign_site(port, codes, abuse, done)))
    results.put("started")
    await asyncio.to_thread(stop.wait)
    done.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for ws in watching:  # spectators that never read: no closing handshake to wait for
        if ws.transport is not None:
            ws.transport.abort()
    for sock in abuse.sockets:
        sock.close()
    results.put((dict(abuse.answers), abuse.resyncs_sent))


IDLE = 100
"""``abuse_process``'s ``nice`` for ``--abusers-idle``."""


def abuse_process(
    port: int,
    codes: list[str],
    stop: Any,
    results: Any,
    nice: int = 0,
    only: tuple[str, ...] = ABUSES,
    cpus: set[int] | None = None,
) -> None:
    if nice == IDLE:  # --abusers-idle: only CPU nobody else wants, given up at once
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    else:
        os.nice(nice)  # --abusers-nice: their client work yields the CPU to the server's
    if cpus is not None:
        os.sched_setaffinity(0, cpus)  # --pin
    asyncio.run(abuse_all(port, codes, stop, results, only))


# ------------------------------------------------------------------ the newcomer


async def newcomer(http: str, tally: collections.Counter[str], stop: asyncio.Event) -> None:
    """Every second a person from a new address (127.3.x.y) makes a public table and
    sits down with its host token a moment later, as the home page does one round trip
    after creating it (the racer has polled the table by then). Counts in ``tally``:
    ``made``, ``refused`` (not 201: a new address could not create a table),
    ``not_host`` (the creator not the host of the table they made)."""
    i = 0
    while not stop.is_set():
        address = f"127.3.{i // 250}.{i % 250 + 1}"
        i += 1
        # Not httpx: its client makes a TLS context when it is made (20-30 ms of this
        # process's loop, which times the honest plays), and here one is made a second.
        async with raw_http.Client(http, address) as c:
            try:
                made = await c.post("/api/tables", json={"seats": 2})
                tally["made"] += 1
                if made.status_code != 201:
                    tally["refused"] += 1
                    tally[f"refused {made.status_code} {made.json().get('error')}"] += 1
                else:
                    code, host_token = made.json()["code"], made.json()["host_token"]
                    await asyncio.sleep(0.3)
                    body = {"name": "New", "seat": 0, "host_token": host_token}
                    joined = await c.post(f"/api/tables/{code}/join", json=body)
                    table = (await c.get(f"/api/tables/{code}")).json()
                    seat = joined.json().get("seat") if joined.status_code == 200 else None
                    if seat is None or table.get("host") != {"seat": seat, "partner": None}:
                        tally["not_host"] += 1
            except raw_http.HTTPError as error:
                tally["refused"] += 1
                tally[f"refused {type(error).__name__}"] += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1)


# ------------------------------------------------------------------ the run


async def measure(
    url: str,
    seats: list[tuple[str, list[str]]],
    args: argparse.Namespace,
    pid: int,
    during: Callable[[], Awaitable[None]] | None = None,
    profile: str | None = None,
) -> tuple[Stats, Callable[[], Awaitable[None]]]:
    """Every honest player plays; after ``--warmup`` (and ``during()``, which starts
    the abuse) they are measured for ``--seconds``, the server recorded by py-spy to
    ``profile`` meanwhile if given. Returns the stats and what stops the players."""
    stats = Stats()
    stop = asyncio.Event()
    tasks = []
    for t, (code, tokens) in enumerate(seats):
        for seat, token in enumerate(tokens):
            address = honest(4 * t + seat)
            tasks.append(asyncio.create_task(player(url, code, token, stats, stop, address)))
            await asyncio.sleep(0.001)
    # The instrument must not pause itself (as in bench/load.py): what lives now stays
    # out of the collector, or the clients' own full collections, every honest
    # client at once, are the p99 (the second measurement's the longer, its heap the
    # larger by the first's figures).
    gc.collect()
    gc.freeze()
    client_gc(stats)
    await asyncio.sleep(args.warmup)
    if during is not None:
        await during()
    spy = profiler(profile, args.seconds, pid) if profile else None
    health = f"{url.replace('ws://', 'http://').removesuffix('/ws')}/"
    gc_before = httpx.get(health, timeout=10).json()["gc"]
    probe = asyncio.create_task(server_late(health, stats))
    lag = asyncio.create_task(lag_monitor(stats, stop))
    stats.measuring = True
    server_cpu, client_cpu = cpu_seconds(pid), time.process_time()
    await asyncio.sleep(args.seconds)
    stats.measuring = False
    probe.cancel()
    gc_after = httpx.get(health, timeout=10).json()["gc"]
    stats.gc_passes = gc_after["count"] - gc_before["count"]
    stats.gc_ms = gc_after["total_ms"] - gc_before["total_ms"]
    tasks.append(lag)
    if spy is not None:
        await asyncio.to_thread(spy.wait, 60)
    stats.server_cpu = (cpu_seconds(pid) - server_cpu) / args.seconds
    stats.client_cpu = (time.process_time() - client_cpu) / args.seconds

    async def finish() -> None:
        stop.set()
        await asyncio.gather(*tasks)

    return stats, finish


SERVER_LATE: dict[int, list[float]] = collections.defaultdict(list)
"""The ``GET /`` round trips of ``server_late``, by the ``Stats`` they were made for."""


COMMIT_LAG: dict[int, list[tuple[float, float, float]]] = collections.defaultdict(list)
"""When ``server_late`` asked, the store's longest wait to commit and its longest
transaction over the 10 s before (``GET /``), by the ``Stats`` it was measured for."""


async def server_late(health: str, stats: Stats) -> None:
    """``GET /`` from an honest address twice a second while measuring (as a balancer
    asks): its round trip is the server's event loop lateness plus a small request's
    own cost."""
    base, _, path = health.removeprefix("http://").partition("/")
    async with raw_http.Client(f"http://{base}", honest(999)) as c:
        while True:
            sent = time.perf_counter()
            answer = await c.get(f"/{path}")
            SERVER_LATE[id(stats)].append((time.perf_counter() - sent) * 1000)
            store = answer.json()["store"]
            COMMIT_LAG[id(stats)].append(
                (sent, store["max_commit_lag_ms_10s"], store["writes_10s"]["max_ms"])
            )
            await asyncio.sleep(0.5)


def tail_by_time(stats: Stats, window_s: float = 5.0) -> list[float]:
    """The ack p99 of each ``window_s`` of the measured time, in order: when the tail
    happened (a burst, or all along)."""
    if not stats.acked_at:
        return []
    start = stats.acked_at[0]
    windows: dict[int, list[float]] = collections.defaultdict(list)
    for at, ms in zip(stats.acked_at, stats.acks, strict=True):
        windows[int((at - start) // window_s)].append(ms)
    return [round(percentile(windows[w], 99), 1) for w in sorted(windows)]


def over_by_time(stats: Stats, ms: float, first_s: float = 2.0) -> tuple[int, int]:
    """How many acknowledgements took over ``ms``: in the first ``first_s`` of the
    measured time (the abuse's opening volley), and after."""
    if not stats.acked_at:
        return 0, 0
    start = stats.acked_at[0]
    over = [
        at - start < first_s
        for at, took in zip(stats.acked_at, stats.acks, strict=True)
        if took > ms
    ]
    return sum(over), len(over) - sum(over)


def lag_by_time(stats: Stats, window_s: float = 5.0) -> list[tuple[float, float]]:
    """The store's longest wait from queueing to commit, and its longest transaction,
    over the 10 s before each ``GET /`` (acknowledgements wait for the commit), the most
    of each ``window_s`` (as ``tail_by_time``'s windows): a slow commit shows in two
    windows, and a wait much longer than the transaction was a wait for the writer."""
    if not stats.acked_at:
        return []
    start = stats.acked_at[0]
    windows: dict[int, tuple[float, float]] = collections.defaultdict(lambda: (0.0, 0.0))
    for at, lag, write in COMMIT_LAG[id(stats)]:
        if at >= start:
            w = int((at - start) // window_s)
            windows[w] = (max(windows[w][0], lag), max(windows[w][1], write))
    return [windows[w] for w in sorted(windows)]


def hands_by_time(stats: Stats, window_s: float = 5.0) -> list[int]:
    """How many hands ended in each ``window_s`` of the measured time (as
    ``tail_by_time``'s windows): many tables' hands ending at once is a burst of work."""
    if not stats.acked_at:
        return []
    start = stats.acked_at[0]
    counts = collections.Counter(int((at - start) // window_s) for at in stats.hand_ends)
    last = int((stats.acked_at[-1] - start) // window_s)
    return [round(counts[w] / 4) for w in range(last + 1)]  # each of a table's four saw it


async def run(args: argparse.Namespace, port: int, pid: int) -> None:
    http = f"http://127.0.0.1:{port}"
    url = f"ws://127.0.0.1:{port}/ws"
    tune_process()  # the honest clients' process, as the server's (bench/load.py)
    abusers_cpus = pin(args.pin, pid)
    seats = await seat_tables(http, args.tables)
    codes = [code for code, _ in seats]

    profile = args.profile
    baseline, finish = await measure(url, seats, args, pid, None, profile and f"{profile}.baseline")
    await finish()
    await asyncio.sleep(2)

    # The same honest load again, with the abuse, which runs in a process of its own
    # so its work on the client side never delays the honest clients' measurements.
    context = multiprocessing.get_context("spawn")
    stop_abuse = context.Event()
    results: multiprocessing.Queue[Any] = context.Queue()
    child = context.Process(
        target=abuse_process,
        args=(
            port,
            codes,
            stop_abuse,
            results,
            IDLE if args.abusers_idle else args.abusers_nice,
            tuple(args.only),
            abusers_cpus,
        ),
    )
    rss_before = rss_mb(pid)
    peak = [rss_before]
    watching = asyncio.Event()

    async def watch_rss() -> None:
        while not watching.is_set():
            peak[0] = max(peak[0], rss_mb(pid))
            await asyncio.sleep(0.25)

    watcher = asyncio.create_task(watch_rss())

    abusers_cpu = [0.0, 0.0]  # CPU seconds and wall time when their abuse began
    newcomers: collections.Counter[str] = collections.Counter()
    newcomers_done = asyncio.Event()
    newcoming: list[asyncio.Task[None]] = []

    async def start_abuse() -> None:
        child.start()
        await asyncio.to_thread(results.get)  # the abusers hold their connections
        abusers_cpu[:] = [cpu_seconds(child.pid or 0), time.monotonic()]
        newcoming.append(asyncio.create_task(newcomer(http, newcomers, newcomers_done)))

    honest_stats, finish = await measure(url, seats, args, pid, start_abuse, profile)
    newcomers_done.set()
    await asyncio.gather(*newcoming)
    left = held_by_server(port)
    spent, began = abusers_cpu
    abusers_cores = (cpu_seconds(child.pid or 0) - spent) / (time.monotonic() - began)
    stop_abuse.set()
    answers, resyncs_sent = await asyncio.to_thread(results.get)
    await asyncio.to_thread(child.join, 30)
    watching.set()
    await watcher
    await finish()

    text = httpx.get(f"{http}/metrics", timeout=10).text
    refusals = {}
    early = {}  # of the refusals, those answered at the door (edge.EarlyRefusals)
    closes = {}
    waited = 0  # HTTP requests that waited in the door's line (door/line.py)
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "nertz_refusals_total":
                refusals[sample.labels["code"]] = int(sample.value)
            elif sample.name == "nertz_refusals_early_total":
                early[sample.labels["code"]] = int(sample.value)
            elif sample.name == "nertz_closes_total":
                closes[sample.labels["reason"]] = int(sample.value)
            elif sample.name == "nertz_door_waits_total":
                waited = int(sample.value)
    print(f"abusers' answers: {dict(sorted(answers.items()))}")
    print(f"server refusals: {refusals}")
    print(f"of which answered at the door: {early}")
    print(f"server closes: {closes}")
    print(f"requests that waited at the door for the event loop: {waited}")
    print(f"abusive connections left: {left}")
    print(f"newcomers (a new address each, creating while abused): {dict(newcomers)}")
    rate = resyncs_sent / 100 / args.seconds
    print(f"resyncs sent: {resyncs_sent} ({rate:.1f} a second per spammer over the run)")
    for name, stats in (("baseline", baseline), ("with abuse", honest_stats)):
        print(f"{name}, ack p99 by 5 s of the run (ms): {tail_by_time(stats)}")
        first = tail_by_time(stats, 1.0)[:10]
        print(f"{name}, ack p99 by 1 s of the first 10 s (ms): {first}")
        print(f"{name}, hands ended by 5 s of the run: {hands_by_time(stats)}")
        lags = lag_by_time(stats)
        print(f"{name}, longest wait to commit and transaction (ms), 10 s before, by 5 s: {lags}")
        pauses = stats.client_gc
        print(f"{name}, the honest clients' full collections: {len(pauses)}, {sum(pauses):.0f} ms")
        print(f"{name}, the server's full collections: {stats.gc_passes}, {stats.gc_ms:.0f} ms")
        late, lag = SERVER_LATE[id(stats)], stats.client_lag
        print(
            f"{name}, GET / round trip p50 {percentile(late, 50):.2f} ms p99 "
            f"{percentile(late, 99):.2f} ms max {max(late, default=0):.1f} ms; clients' "
            f"own loop late p99 {percentile(lag, 99):.2f} ms max {max(lag, default=0):.1f} ms"
        )
    twice = 2 * percentile(baseline.acks, 99)
    early, later = over_by_time(honest_stats, twice)
    print(
        f"with abuse, plays over twice the baseline p99 ({twice:.1f} ms): {early} in the "
        f"first 2 s, {later} after, of {len(honest_stats.acks)} (the p99 is under twice "
        f"the baseline while they are under 1%)"
    )
    for sample in (baseline.error_samples + honest_stats.error_samples)[:5]:
        print("error:", sample)
    print(
        f"baseline plays={baseline.plays} errors={baseline.errors} "
        f"ack_p50_ms={percentile(baseline.acks, 50):.2f}; with abuse plays={honest_stats.plays} "
        f"ack_p50_ms={percentile(honest_stats.acks, 50):.2f}; "
        f"rss before {rss_before:.0f} MB, peak {peak[0]:.0f} MB; server cpu "
        f"{baseline.server_cpu:.2f} -> {honest_stats.server_cpu:.2f} cores, client "
        f"{baseline.client_cpu:.2f} -> {honest_stats.client_cpu:.2f}, abusers "
        f"{abusers_cores:.2f}; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"abuse honest_ack_p99_ms={percentile(honest_stats.acks, 99):.2f} "
        f"baseline_ack_p99_ms={percentile(baseline.acks, 99):.2f} "
        f"honest_errors={honest_stats.errors} rss_growth_mb={peak[0] - rss_before:.1f} "
        f"conns_left={sum(left.values())} "
        f"newcomer_refused={newcomers['refused']}/{newcomers['made']} "
        f"creator_not_host={newcomers['not_host']}/{newcomers['made'] - newcomers['refused']}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument(
        "--abusers-nice",
        type=int,
        default=0,
        help="run the abusers' process at this niceness (default 0: as the others): on a "
        "real server they are on other machines and take none of its CPU",
    )
    parser.add_argument(
        "--abusers-idle",
        action="store_true",
        help="run the abusers' process under SCHED_IDLE (Linux): it gets only CPU time no "
        "other process wants and yields it as soon as one wakes, the nearest this machine "
        "comes to abusers on other machines",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=(*ABUSES, "none"),
        help="run only this kind of abuse (repeatable; default: all of them; none: the "
        "second measurement with no abuse at all, the bench's own floor)",
    )
    parser.add_argument(
        "--pin",
        metavar="S:C[:A]",
        help="pin the server to CPUs S, the honest clients to C and the abusers to A "
        "(default C), in both measurements; 0:0:1 leaves the abusers a CPU of their "
        "own, so their own work takes none of the server's, as on other machines",
    )
    parser.add_argument(
        "--profile",
        help="record the server with py-spy to this file while it is measured beside the "
        "abuse, and to FILE.baseline while measured alone",
    )
    args = parser.parse_args()
    args.only = args.only or list(ABUSES)
    port = free_port()
    with (
        tempfile.TemporaryDirectory() as tmp,
        serving(port, str(Path(tmp) / "abuse.db")) as server,
    ):
        asyncio.run(run(args, port, server.pid))
    return 0


if __name__ == "__main__":
    sys.exit(main())
