"""The limits at the door (``limits.py``, ``edge.py``): each one biting an abusive
client while an honest player, on its own address at the same moment, creates a table
and plays a hand unaffected. Every client binds its own loopback source address
(127.0.0.x), which is what the server counts."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.exceptions import ConnectionClosed

import nertz.server.http.session
from nertz.server.cli import HTTPS
from nertz.server.door.limits import Limits
from nertz.server.http.app import Config

from ..live_server import eventually, free_port, running
from .conftest import SPEED, Live
from .test_app import BOTS, Client, is_event


@contextmanager
def tight_server(tmp_path: Path, http: str | None = None) -> Iterator[Live]:
    """A server whose limits are low enough to reach in a test (``http``: its HTTP
    parser, by default the server's)."""
    limits = Limits(
        header_timeout_s=1.5,
        hello_timeout_s=1.5,
        open_tables_per_address=3,
        creates_per_minute=5,
        sheets_per_hour=3,
        connections_per_address=6,
        spectators_per_address=3,
        address_states_per_s=5,
    )
    config = Config(db=str(tmp_path / "tight.db"), port=free_port(), speed=SPEED, limits=limits)
    with running(config, http) as port:
        yield Live(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws", port)


@pytest.fixture
def tight(tmp_path: Path) -> Iterator[Live]:
    with tight_server(tmp_path) as live:
        yield live


def http_from(address: str, live: Live) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=live.http, transport=transport, timeout=10)


def ws_from(address: str, live: Live) -> Client:
    return Client(live.ws, source_address=(address, 0))


def honest_hand(live: Live, address: str = "127.0.0.200") -> None:
    """A person on ``address`` creates a table against three bots, plays cards and
    sees the hand end (R27: a bot calls Nertz) with no error from the server."""
    with http_from(address, live) as http:
        made = http.post("/api/tables", json={"bots": BOTS, "countdown_ms": 0})
        assert made.status_code == 201, made.text
        code = made.json()["code"]
        joined = http.post(f"/api/tables/{code}/join", json={"name": "Honest"})
        assert joined.status_code == 200, joined.text
    me = ws_from(address, live)
    me.send({"type": "hello", "table": code, "token": joined.json()["token"]})
    me.send({"type": "ready"})
    me.until(is_event("go"))
    acked = 0
    for seq in range(1, 4):
        me.send({"type": "play", "seq": seq, "move": "T"})
        answer = me.until(lambda m: m["type"] in ("ack", "refused", "error"))
        assert answer["type"] != "error", answer
        acked += answer["type"] == "ack"
    me.until(is_event("hand_end"), timeout=60)
    assert acked >= 1
    assert not [m for m in me.got if m["type"] == "error"]
    me.close()


def metrics(live: Live) -> dict[str, float]:
    """Every sample of ``GET /metrics`` as read by the Prometheus text parser."""
    text = httpx.get(f"{live.http}/metrics").text
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            out[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return out


def test_a_big_body_is_refused_while_it_streams_and_an_honest_player_plays(live: Live) -> None:
    declared = httpx.post(
        f"{live.http}/api/sheets",
        content=b"x" * (200 * 1024),
        headers={"Content-Type": "application/json"},
    )
    assert declared.status_code == 413
    assert declared.json() == {
        "error": "too_big",
        "reason": "a request body may be at most 65536 bytes",
    }

    sent = [0]

    def endless() -> Iterator[bytes]:  # no Content-Length: chunked, counted as it comes
        while sent[0] < 64 * 1024 * 1024:
            sent[0] += 65536
            yield b" " * 65536

    json_type = {"Content-Type": "application/json"}
    streamed = httpx.post(
        f"{live.http}/api/tables", content=endless(), headers=json_type, timeout=10
    )
    assert streamed.status_code == 413 and streamed.json()["error"] == "too_big"
    assert sent[0] < 16 * 1024 * 1024  # refused long before the 64 MiB were sent
    honest_hand(live)
    assert metrics(live)["nertz_refusals_total{code=too_big}"] == 2


def test_table_creation_is_limited_per_address_and_an_honest_player_plays(tight: Live) -> None:
    with http_from("127.0.0.2", tight) as abuser:
        answers = [abuser.post("/api/tables", json={"seats": 2}) for _ in range(5)]
    assert [a.status_code for a in answers] == [201, 201, 201, 429, 429]
    refused = answers[3]
    assert refused.json()["error"] == "too_many_open_tables"
    assert "at most 3 from one address" in refused.json()["reason"]
    assert int(refused.headers["Retry-After"]) > 0
    honest_hand(tight)  # at the same moment, from another address
    # A table counts against the address that made it until it is gone, started or
    # not: dealing and leaving frees nothing (issue 24; the rate: the test below).
    with http_from("127.0.0.3", tight) as quick:
        codes = []
        for _ in range(5):
            made = quick.post(
                "/api/tables", json={"bots": BOTS, "countdown_ms": 0, "reconnect_s": 86_400}
            )
            if made.status_code != 201:
                break
            codes.append(made.json()["code"])
            token = quick.post(f"/api/tables/{codes[-1]}/join", json={"name": "Q"}).json()
            starter = ws_from("127.0.0.3", tight)
            starter.send({"type": "hello", "table": codes[-1], "token": token["token"]})
            starter.send({"type": "ready"})
            starter.until(is_event("dealt"))  # started, then left: still its table
            starter.close()
    assert len(codes) == 3
    assert made.status_code == 429 and made.json()["error"] == "too_many_open_tables"
    honest_hand(tight, "127.0.0.201")  # a new address still makes a table and plays


def test_score_sheets_are_limited_per_address(tight: Live) -> None:
    body = {"names": ["Ann", "Bo"]}
    with http_from("127.0.0.4", tight) as abuser:
        answers = [abuser.post("/api/sheets", json=body) for _ in range(4)]
    assert [a.status_code for a in answers] == [201, 201, 201, 429]
    assert answers[3].json()["error"] == "too_many_sheets"
    assert int(answers[3].headers["Retry-After"]) > 0
    with http_from("127.0.0.5", tight) as honest:
        assert honest.post("/api/sheets", json=body).status_code == 201
    # Over the quota with a body still streaming in: answered and closed at once, the
    # rest never read (a refused client cannot make the server swallow 64 MiB).
    raw = socket.create_connection(("127.0.0.1", tight.port), source_address=("127.0.0.4", 0))
    head = b"POST /api/sheets HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    raw.sendall(head + b"5\r\n{   }\r\n")  # the first chunk of a body never finished
    raw.settimeout(5)
    answer = b""
    with contextlib.suppress(ConnectionResetError):  # a close with bytes still unread
        while chunk := raw.recv(65536):  # until the server closes
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 429 ") and b"too_many_sheets" in answer
    assert b"connection: close" in answer.lower()
    raw.close()
    honest_hand(tight)


def test_connections_and_spectators_are_limited_per_address(tight: Live) -> None:
    table = httpx.post(f"{tight.http}/api/tables", json={"bots": BOTS, "countdown_ms": 0}).json()
    watchers = [ws_from("127.0.0.6", tight) for _ in range(4)]
    for w in watchers:
        w.send({"type": "hello", "table": table["code"]})
    for w in watchers[:3]:
        assert w.recv()["type"] == "state"
    answer = watchers[3].recv()
    assert answer == {
        "type": "error",
        "code": "too_many_spectators",
        "reason": "at most 3 spectators from one address",
    }
    with pytest.raises(Exception):  # noqa: B017 - closed: the next read fails
        watchers[3].recv(2)
    more = [ws_from("127.0.0.6", tight) for _ in range(4)]  # 3 open + 4 > 6
    refused = more[3].recv()
    assert refused["code"] == "too_many_connections" and "at most 6" in refused["reason"]
    assert more[3].ws.close_code == 1013 or more[3].ws.close_code is None
    honest_hand(tight)  # while the abuser's connections are open
    for w in watchers + more:
        w.close()


def test_full_states_are_rate_limited_and_an_honest_player_plays(tight: Live) -> None:
    table = httpx.post(f"{tight.http}/api/tables", json={"bots": BOTS, "countdown_ms": 0}).json()
    spy = ws_from("127.0.0.7", tight)
    spy.send({"type": "hello", "table": table["code"]})
    assert spy.recv()["type"] == "state"
    done = threading.Event()
    result: list[BaseException] = []

    def play() -> None:
        try:
            honest_hand(tight)
        except BaseException as error:
            result.append(error)
        finally:
            done.set()

    threading.Thread(target=play).start()
    states = errors = 0
    started = time.monotonic()
    with pytest.raises(ConnectionClosed):  # asking on and on, it is closed
        for _ in range(200):
            for _ in range(10):  # 20 a second at most: under the 20-message limit
                spy.send({"type": "resync"})
            end = time.monotonic() + 0.5
            while time.monotonic() < end:
                try:
                    answer = spy.recv(max(0.01, end - time.monotonic()))
                except TimeoutError:
                    break
                if answer["type"] == "state":
                    states += 1
                elif answer["type"] == "error":
                    errors += 1
                    assert answer["code"] == "rate_limited" and "full states" in answer["reason"]
    took = time.monotonic() - started
    assert spy.ws.close_code == 1008 and states >= 1 and took < 10
    # A refusal is said at most once a second: the repeats cost the server no answer.
    assert 1 <= errors <= took + 1
    done.wait(60)
    assert done.is_set() and not result, result
    assert metrics(tight)["nertz_closes_total{reason=rate limit}"] == 1


@pytest.mark.parametrize("http", HTTPS)
def test_silent_and_trickling_connections_are_closed_within_seconds(
    http: str, tmp_path: Path
) -> None:
    with tight_server(tmp_path, http) as tight:
        silent = [socket.create_connection(("127.0.0.1", tight.port)) for _ in range(40)]
        trickle = socket.create_connection(("127.0.0.1", tight.port))
        started = time.monotonic()
        closed_at: dict[str, float] = {}

        def trickling() -> None:  # one byte of a request head every 0.2 s, for good
            try:
                for byte in b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + b"a" * 1000:
                    trickle.send(bytes([byte]))
                    time.sleep(0.2)
            except OSError:
                closed_at["trickle"] = time.monotonic() - started

        threading.Thread(target=trickling, daemon=True).start()
        # Answered once, then the first byte of a next request head and nothing more.
        kept = socket.create_connection(("127.0.0.1", tight.port))
        kept.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        kept.settimeout(5)
        assert kept.recv(4096).startswith(b"HTTP/1.1 ")
        kept.sendall(b"G")
        honest_hand(tight)  # meanwhile
        for s in silent:
            s.settimeout(5)
            assert s.recv(1) == b""  # closed by the server
            s.close()
        assert time.monotonic() - started < 60
        # Closed: the byte stopped uvicorn's keep-alive timer, so only the head timer can.
        assert kept.recv(4096) == b""
        deadline = time.monotonic() + 5
        while "trickle" not in closed_at and time.monotonic() < deadline:
            time.sleep(0.1)
        assert closed_at["trickle"] < 1.5 + 5  # it would have trickled for 200 s
        # A WebSocket that never says hello is closed too.
        mute = ws_from("127.0.0.8", tight)
        with pytest.raises(Exception):  # noqa: B017 - closed by the server
            mute.recv(4)
        assert metrics(tight)["nertz_closes_total{reason=silent}"] >= 42


def test_a_websocket_that_talks_but_never_reaches_a_table_is_closed(tight: Live) -> None:
    """``hello_timeout_s`` counts from the opening: messages that never get the
    connection to a table (no hello, or a hello that was refused) do not keep it open."""
    chatty = ws_from("127.0.0.9", tight)
    started = time.monotonic()
    with pytest.raises(ConnectionClosed):
        for _ in range(40):  # 8 s of asking, 5 a second: under the message limit
            chatty.send({"type": "resync"})
            assert chatty.recv()["code"] == "not_joined"
            time.sleep(0.2)
    assert time.monotonic() - started < 1.5 + 2  # closed at its hello deadline
    assert metrics(tight)["nertz_closes_total{reason=no hello}"] == 1
    honest_hand(tight)


def test_unknown_and_private_codes_get_the_same_answer(live: Live) -> None:
    private = httpx.post(f"{live.http}/api/tables", json={"public": False}).json()
    unused = "ZZZZZ2" if private["code"] != "ZZZZZ2" else "ZZZZZ3"

    def same(a: httpx.Response, b: httpx.Response) -> None:
        assert a.status_code == b.status_code == 404
        assert a.json() == {"error": "unknown_table", "reason": f"there is no table {unused!r}"}
        assert b.json()["reason"].replace(private["code"], unused) == a.json()["reason"]

    same(
        httpx.get(f"{live.http}/api/tables/{unused}"),
        httpx.get(f"{live.http}/api/tables/{private['code']}"),
    )
    same(
        httpx.post(f"{live.http}/api/tables/{unused}/join", json={"name": "Eve"}),
        httpx.post(f"{live.http}/api/tables/{private['code']}/join", json={"name": "Eve"}),
    )
    answers = []
    for code in (unused, private["code"]):
        eve = Client(live.ws)
        eve.send({"type": "hello", "table": code})
        answers.append(eve.recv())
        eve.send({"type": "resync"})  # the connection stays open either way
        answers.append(eve.recv())
        eve.close()
    assert answers[0]["code"] == answers[2]["code"] == "unknown_table"
    assert answers[2]["reason"].replace(private["code"], unused) == answers[0]["reason"]
    assert answers[1] == answers[3]
    with_key = httpx.get(f"{live.http}/api/tables/{private['code']}?key={private['key']}")
    assert with_key.status_code == 200


def test_metrics_count_what_the_server_holds_and_refuses(tight: Live) -> None:
    before = metrics(tight)
    assert before["nertz_connections"] == 0
    assert before["nertz_tables{stage=seating}"] == 0
    table = httpx.post(f"{tight.http}/api/tables", json={"bots": BOTS}).json()
    watchers = [ws_from("127.0.0.9", tight) for _ in range(4)]
    for w in watchers:
        w.send({"type": "hello", "table": table["code"]})
        w.recv()
    watchers.pop().close()  # the fourth spectator from one address was refused
    time.sleep(0.2)
    now = metrics(tight)
    assert now["nertz_connections"] == 3
    assert now["nertz_tables{stage=seating}"] == 1
    assert now["nertz_refusals_total{code=too_many_spectators}"] == 1
    assert now["nertz_table_queue_commands"] >= 0 and now["nertz_outbox_bytes"] >= 0
    assert now["nertz_commit_lag_seconds"] < 1
    for w in watchers:
        w.close()
    deadline = time.monotonic() + 5
    while metrics(tight)["nertz_connections"] and time.monotonic() < deadline:
        time.sleep(0.05)
    after = metrics(tight)
    assert after["nertz_connections"] == 0
    assert after["nertz_closes_total{reason=quota}"] == 1
    assert after["nertz_closes_total{reason=gone}"] == 3


def test_a_trusted_proxy_names_the_client_and_an_untrusted_one_does_not(tmp_path: Path) -> None:
    limits = Limits(open_tables_per_address=1)
    trusting = Config(
        db=str(tmp_path / "p.db"), port=free_port(), limits=limits, forwarded_allow_ips="127.0.0.1"
    )
    with running(trusting) as port:
        http = f"http://127.0.0.1:{port}"
        for client in ("203.0.113.1", "203.0.113.2"):  # two people behind the proxy
            made = httpx.post(f"{http}/api/tables", json={}, headers={"X-Forwarded-For": client})
            assert made.status_code == 201
        again = httpx.post(
            f"{http}/api/tables", json={}, headers={"X-Forwarded-For": "203.0.113.1"}
        )
        assert again.status_code == 429
    plain = Config(db=str(tmp_path / "q.db"), port=free_port(), limits=limits)
    with running(plain) as port:
        http = f"http://127.0.0.1:{port}"
        answers = [
            httpx.post(
                f"{http}/api/tables", json={}, headers={"X-Forwarded-For": f"198.51.100.{i}"}
            )
            for i in (1, 2)
        ]
        assert [a.status_code for a in answers] == [201, 429]  # the header is ignored


def test_limits_and_json_logs_from_the_command_line() -> None:
    import logging

    from nertz.server.cli import JsonLines, parse_limits

    limits = parse_limits(["creates_per_minute=100", "spectators-per-address=2"], max_tables=9)
    assert (limits.creates_per_minute, limits.spectators_per_address) == (100, 2)
    assert limits.max_tables == 9 and limits.body_bytes == Limits().body_bytes
    with pytest.raises(ValueError, match="NAME one of body_bytes"):
        parse_limits(["tables=3"])
    record = logging.LogRecord("nertz.app", logging.INFO, "", 0, "resumed %d", (2,), None)
    line: dict[str, Any] = json.loads(JsonLines().format(record))
    assert line["message"] == "resumed 2" and line["level"] == "info"
    assert line["logger"] == "nertz.app" and line["time"].endswith("Z")


def test_score_sheets_are_bounded_server_wide_and_old_ones_expire(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from nertz.server.http.app import create_app
    from nertz.server.http.services import services_of

    config = Config(db=str(tmp_path / "s.db"), limits=Limits(max_sheets=2))
    with TestClient(create_app(config), base_url="http://127.0.0.1") as client:
        body = {"names": ["Ann", "Bo"]}
        made = [client.post("/api/sheets", json=body) for _ in range(3)]
        assert [m.status_code for m in made] == [201, 201, 503]
        assert made[2].json()["error"] == "too_many_sheets"
        assert "at most 2 score sheets" in made[2].json()["reason"]
        sheets = services_of(client.app).sheets
        assert sheets.prune(time.time() - 3600) == 0  # changed just now: kept
        assert sheets.prune(time.time() + 1) == 2  # unchanged since: deleted
        gone = client.get(f"/api/sheets/{made[0].json()['id']}")
        assert gone.status_code == 404
        assert client.post("/api/sheets", json=body).status_code == 201  # room again


def test_a_quota_refills_with_time_and_says_when() -> None:
    from nertz.server.door.limits import Quotas

    now = [0.0]
    quotas = Quotas(Limits(creates_per_minute=2, open_tables_per_address=9), lambda: now[0])
    gone = lambda code: False  # noqa: E731 - every table it made is gone
    assert quotas.create_table("a", gone) is None
    assert quotas.create_table("a", gone) is None
    refusal = quotas.create_table("a", gone)
    assert refusal is not None and refusal.retry_after_s == 30  # one every 30 s
    assert quotas.create_table("b", gone) is None  # another address is not affected
    now[0] = 29.0
    assert quotas.create_table("a", gone) is not None
    now[0] = 61.0
    assert quotas.create_table("a", gone) is None


def test_joins_probes_and_floods_are_limited_per_address_and_an_honest_player_plays(
    tmp_path: Path,
) -> None:
    limits = Limits(joins_per_minute=3, misses_per_minute=3)
    config = Config(db=str(tmp_path / "joins.db"), port=free_port(), speed=SPEED, limits=limits)
    with running(config) as port:
        live = Live(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws", port)
        made = httpx.post(f"{live.http}/api/tables", json={"seats": 8}).json()
        with http_from("127.0.0.3", live) as squatter:  # seat after seat from one address
            joins = [
                squatter.post(f"/api/tables/{made['code']}/join", json={"name": f"Sq{n}"})
                for n in range(5)
            ]
            probes = [squatter.get(f"/api/tables/NOPE{n:02d}") for n in range(5)]
        assert [j.status_code for j in joins] == [200, 200, 200, 429, 429]
        assert joins[3].json()["error"] == "too_many_joins"
        assert [p.status_code for p in probes][:3] == [404, 404, 404]
        assert probes[4].json()["error"] == "too_many_misses"
        flooder = ws_from("127.0.0.4", live)  # 400 messages at once: refused, then closed
        with pytest.raises(ConnectionClosed):
            for _ in range(400):
                flooder.send({"type": "resync"})
            while True:
                flooder.recv(2)
        assert flooder.ws.close_code == 1008
        honest_hand(live)  # meanwhile, from its own address: a table, a seat, a hand


def test_a_handshake_dropped_before_it_is_accepted_holds_no_connection(
    tight: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that asks for a WebSocket and drops the TCP connection before the server
    accepts it is not left counted as connected: the same address can still open its
    full quota of connections afterwards, and an honest player plays."""

    async def like_a_cluster_node(live: Any, quotas: Any, address: str) -> None:
        await asyncio.sleep(0.3)  # the shared count's round trip to Redis: a wide window

    monkeypatch.setattr(nertz.server.http.session, "shared_connection", like_a_cluster_node)
    table = httpx.post(f"{tight.http}/api/tables", json={"bots": BOTS, "countdown_ms": 0}).json()
    request = (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{tight.port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n"
    ).encode()
    for _ in range(10):  # more than the address's 6 connections
        with socket.socket() as sock:
            sock.bind(("127.0.0.8", 0))
            sock.connect(("127.0.0.1", tight.port))
            sock.sendall(request)
            # Closed with a reset, not a FIN: gone before the server answers.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    seated = httpx.post(f"{tight.http}/api/tables", json={"seats": 4, "countdown_ms": 0}).json()
    tokens = [
        httpx.post(f"{tight.http}/api/tables/{seated['code']}/join", json={"name": name}).json()[
            "token"
        ]
        for name in ("Ann", "Bert", "Cat")
    ]
    hellos = [{"type": "hello", "table": table["code"]}] * 3  # its 3 spectators ...
    hellos += [{"type": "hello", "table": seated["code"], "token": t} for t in tokens]

    def at_table(hello: dict[str, Any]) -> Client | None:
        """A connection from the address, at its table; None while the server still
        counts a dropped handshake it has not finished with (a moment)."""
        client = ws_from("127.0.0.8", tight)
        try:
            client.send(hello)
            if client.recv()["type"] == "state":
                return client
        except ConnectionClosed:  # refused at the door: it says so, then closes
            pass
        with contextlib.suppress(ConnectionClosed):
            client.close()
        return None

    # ... and its players: every one of the address's 6 connections is its own again.
    clients = [eventually(lambda h=h: at_table(h), "a connection at its table") for h in hellos]
    assert metrics(tight)["nertz_connections"] == 6
    seventh = ws_from("127.0.0.8", tight)  # refused as it opens: the 6 are all counted
    assert seventh.recv()["code"] == "too_many_connections"
    honest_hand(tight)
    for c in clients:
        c.close()


def test_fourteen_addresses_hold_at_most_a_tenth_of_the_servers_tables() -> None:
    """Issue 24: every table an address made counts against it until it is gone, so
    14 addresses hold at most 14 times the per-address cap, by default at most 10% of
    ``max_tables`` (20 a head, counting only unstarted tables, let them hold it all)."""
    limits = Limits()
    assert 14 * limits.open_tables_per_address <= limits.max_tables // 10


def test_an_address_runs_at_most_two_tables_of_bots_alone(tmp_path: Path) -> None:
    """Issue 24: a table with no seat for a person costs every bot's play until it ends
    (``unattended_s``), so one address may run only ``bot_tables_per_address`` of them;
    tables with a seat for a person are not held back by it."""
    config = Config(db=str(tmp_path / "b.db"), port=free_port())
    bots = {str(seat): "casual" for seat in range(8)}
    with running(config) as port:
        http = f"http://127.0.0.1:{port}"
        answers = [
            httpx.post(f"{http}/api/tables", json={"seats": 8, "bots": bots}) for _ in range(3)
        ]
        assert [a.status_code for a in answers] == [201, 201, 429]
        assert answers[2].json()["error"] == "too_many_bot_tables"
        assert "at most 2" in answers[2].json()["reason"]
        with_a_person = httpx.post(f"{http}/api/tables", json={"seats": 2, "bots": {"1": "casual"}})
        assert with_a_person.status_code == 201
        assert Limits().bot_tables_per_address * 14 * 8 <= 224  # bots 14 addresses can run
