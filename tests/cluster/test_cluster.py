"""Three nodes on one PostgreSQL and one Redis behind a real HAProxy
(``harness.py``): a table lives on one node and is reached through any; a node paused
past its lease never writes again; a node killed mid-hand loses nothing acknowledged;
the lobby, the rates and the live counts of an address span the cluster."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis
from sqlalchemy import create_engine, select
from websockets.exceptions import ConnectionClosed

from nertz.server.store.schema import events_t, table_owners_t

from ..server.test_app import Client
from .harness import Cluster, running


@pytest.fixture
def cluster(pg_url: str, redis_clean: str) -> Iterator[Cluster]:
    with running(pg_url, redis_clean, 3) as c:
        yield c


def _create(c: Cluster, node: str, **body: Any) -> dict[str, Any]:
    """A table made through the balancer, on ``node`` (the routing hint)."""
    body = {"seats": 2, "countdown_ms": 0, "options": {"idle_rotate_s": 0}, **body}
    answer = httpx.post(f"{c.http}/api/tables?node={node}", json=body, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()  # type: ignore[no-any-return]


def _join(c: Cluster, code: str, name: str, node: str | None = None) -> str:
    hint = f"?node={node}" if node else ""
    answer = httpx.post(
        f"{c.http}/api/tables/{code}/join{hint}",
        json={"name": name},
        follow_redirects=True,
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["token"]  # type: ignore[no-any-return]


def _hello(c: Cluster, code: str, token: str, node: str | None = None, **more: Any) -> Client:
    """Connect through the balancer, following ``route`` as the browser does."""
    hops = 0
    deadline = time.monotonic() + 30
    while True:
        try:
            me = Client(c.ws + (f"?node={node}" if node else ""))
            me.send({"type": "hello", "table": code, "token": token, **more})
            first = me.until(lambda m: m["type"] in ("state", "route", "error"), timeout=15)
        except (OSError, TimeoutError, Exception) as error:  # a node down: try again
            assert time.monotonic() < deadline, f"no node took the table: {error!r}"
            time.sleep(0.3)
            continue
        if first["type"] == "route":
            # At once the first time; again (a dead owner's lease not lapsed yet), after
            # a pause, as the browser client does.
            me.close()
            node, hops = first["node"], hops + 1
            assert time.monotonic() < deadline, "routed in circles"
            if hops > 1:
                time.sleep(0.3)
            continue
        assert first["type"] == "state", first
        return me


def _play(me: Client, seq: int) -> dict[str, Any]:
    me.send({"type": "resync"})
    legal = me.until(lambda m: m["type"] == "state")["view"]["legal"]
    moves = [m for m in legal if m not in ("STUCK", "NERTZ")]
    cards = [m for m in moves if m != "T"]
    me.send({"type": "play", "seq": seq, "move": (cards or moves)[0]})
    return me.until(lambda m: m["type"] in ("ack", "refused") and m["seq"] == seq)


def _two_playing(
    c: Cluster, node: str, via: str | None
) -> tuple[dict[str, Any], list[str], list[Client]]:
    """A two-seat table made on ``node``, joined and played through ``via`` (any node
    if None): its code and id, the seat tokens, the two players in the hand."""
    table = _create(c, node)
    tokens = [_join(c, table["code"], name, via) for name in ("Ann", "Bo")]
    people = [_hello(c, table["code"], token, via) for token in tokens]
    for me in people:
        me.send({"type": "ready"})
    for me in people:
        me.until(lambda m: m["type"] == "event" and m["e"]["k"] == "go")
    return table, tokens, people


def test_a_table_made_through_one_node_is_played_through_another(cluster: Cluster) -> None:
    table, _, people = _two_playing(cluster, "n1", via="n2")
    assert _play(people[0], 1)["type"] in ("ack", "refused")
    owner = cluster.node("n1").figures()["cluster"]
    assert owner["held"] == 1 and cluster.node("n2").figures()["cluster"]["held"] == 0
    shown = httpx.get(f"{cluster.http}/api/tables/{table['code']}?node=n3", follow_redirects=True)
    assert shown.json()["stage"] == "playing"
    for me in people:
        me.close()


def test_the_lobby_and_the_invites_span_every_node(cluster: Cluster) -> None:
    private = _create(cluster, "n1", public=False)
    for node in ("n2", "n3"):  # asked of a node that does not run it: routed to n1
        found = httpx.get(
            f"{cluster.http}/api/invites/{private['invite']}?node={node}", follow_redirects=True
        )
        assert found.status_code == 200 and found.json()["code"] == private["code"]
        links = httpx.get(
            f"{cluster.http}/api/tables/{private['code']}/invite?key={private['key']}&node={node}",
            follow_redirects=True,
        )
        assert links.status_code == 200, links.text
    codes = {_create(cluster, n, public=True)["code"] for n in ("n2", "n3")}
    deadline = time.monotonic() + 10
    while True:
        listed = {t["code"] for t in httpx.get(f"{cluster.http}/api/tables").json()["tables"]}
        if codes <= listed:
            break
        assert time.monotonic() < deadline, f"{codes - listed} not listed"
        time.sleep(0.2)
    held = [cluster.node(n).figures()["cluster"]["held"] for n in ("n1", "n2", "n3")]
    assert held == [1, 1, 1]
    assert private["code"] not in listed  # private: in no node's list


def test_a_node_killed_mid_hand_loses_no_acknowledged_play(cluster: Cluster) -> None:
    table, tokens, people = _two_playing(cluster, "n2", via=None)
    acked = []
    for seq in range(1, 9):
        answer = _play(people[seq % 2], seq)
        if answer["type"] == "ack":
            acked.append(answer["v"])
    assert acked
    cluster.kill("n2")  # SIGKILL right after the last ack: no shutdown, no lease handed back
    for me in people:
        me.close()
    again = _hello(cluster, table["code"], tokens[0])
    state = again.got[-1]
    # A new incarnation past every acknowledged version: had one been lost, the restored
    # table would stop short of it.
    assert state["type"] == "state" and state["v"] > max(acked)
    assert state["table"]["stage"] == "playing"
    assert _play(again, 100)["type"] in ("ack", "refused")  # and play goes on
    taken = sum(cluster.node(n).figures()["cluster"]["taken"] for n in ("n1", "n3"))
    assert taken == 1
    again.close()


def test_a_node_paused_past_its_lease_never_writes_again(cluster: Cluster) -> None:
    """SIGSTOP the owner of a table of bots (they play on by themselves), let another
    node take it, SIGCONT: the old owner's writes are refused by the fencing token and
    it gives the table up; the database has one writer at a time."""
    table = _create(cluster, "n1", seats=2, bots={"0": "expert", "1": "expert"}, countdown_ms=0)
    engine = create_engine(cluster.pg)
    time.sleep(1.0)  # the bots are playing
    cluster.pause("n1")
    try:
        deadline = time.monotonic() + 20
        while True:
            with engine.connect() as conn:
                owner = conn.execute(select(table_owners_t)).one()
            if owner.node != "n1":
                break
            assert time.monotonic() < deadline, "nobody took the paused node's table"
            time.sleep(0.2)
        with engine.connect() as conn:
            versions_at_takeover = conn.execute(select(events_t.c.version)).scalars().all()
    finally:
        cluster.resume("n1")
    time.sleep(3.0)  # the resumed node's timers fire, its bots act, its writer runs
    paused = cluster.node("n1").figures()
    assert paused["cluster"]["held"] == 0 and paused["cluster"]["dropped"] == 1
    assert paused["store"]["errors"] == 0  # nothing it tried reached the rows
    with engine.connect() as conn:
        versions = conn.execute(select(events_t.c.version)).scalars().all()
    assert set(versions_at_takeover) <= set(versions)
    first = min(versions)
    assert sorted(versions) == list(range(first, first + len(versions)))  # one writer's log
    shown = httpx.get(f"{cluster.http}/api/tables/{table['code']}", follow_redirects=True)
    assert shown.status_code == 200
    engine.dispose()


def clear_of_a_turn(window_s: int, need_s: float = 20.0) -> None:
    """Wait out a window's turn that is less than ``need_s`` away: the shared rates are
    counted in fixed windows (``cluster/quotas.py``) that turn on the minute and the
    hour, and a share spent across a turn starts again in the middle of a test."""
    left = window_s - time.time() % window_s
    if left < need_s:
        time.sleep(left + 0.1)


def test_a_client_spread_over_the_nodes_gets_one_share_of_misses_and_sheets(
    pg_url: str, redis_clean: str
) -> None:
    """Through the balancer, round robin: unknown codes asked of three nodes spend the
    misses of all three, and score sheets made on two spend the sheets of the third."""
    limits = ["--limit", "misses_per_minute=3", "--limit", "sheets_per_hour=2"]
    with running(pg_url, redis_clean, 3, extra=limits) as c:
        clear_of_a_turn(60)
        clear_of_a_turn(3600)
        probes = [
            httpx.get(f"{c.http}/api/tables/QQQQQ{i}?node=n{i}", timeout=10) for i in (1, 2, 3)
        ]
        assert [p.status_code for p in probes] == [404, 404, 404]
        slowed = httpx.get(f"{c.http}/api/tables/QQQQQ4?node=n1", timeout=10)
        assert slowed.status_code == 429 and slowed.json()["error"] == "too_many_misses"
        assert "across the servers" in slowed.json()["reason"]
        sheet = {"names": ["Ann", "Bo"]}
        made = [httpx.post(f"{c.http}/api/sheets?node=n{i}", json=sheet) for i in (1, 2, 3)]
        assert [m.status_code for m in made] == [201, 201, 429]
        assert made[2].json()["error"] == "too_many_sheets"


def test_one_address_spread_over_two_nodes_gets_one_share_of_what_it_holds(
    pg_url: str, redis_clean: str
) -> None:
    """Open tables and open connections of one address are counted over every
    node: past its share it is refused on any (429, or an error and a close) while
    another address makes a table and plays; a killed node's counts lapse on their own."""
    limits = ["open_tables_per_address=2", "connections_per_address=4", "hello_timeout_s=120"]
    greedy = "127.0.0.2"  # its own loopback address; the honest one is 127.0.0.1
    with running(pg_url, redis_clean, 2, extra=[f"--limit={x}" for x in limits]) as c:
        web = httpx.Client(
            base_url=c.http, transport=httpx.HTTPTransport(local_address=greedy), timeout=10
        )
        body = {"seats": 2, "countdown_ms": 0}
        made = [web.post(f"/api/tables?node={n}", json=body) for n in ("n1", "n2", "n1", "n2")]
        assert [m.status_code for m in made] == [201, 201, 429, 429]
        assert made[2].json()["error"] == "too_many_open_tables"
        assert "across the servers" in made[2].json()["reason"]

        def socket(node: str) -> Client:
            return Client(f"{c.ws}?node={node}", source_address=(greedy, 0))

        held = [socket(n) for n in ("n1", "n2", "n1", "n2")]
        fifth = socket("n1")
        refused = fifth.recv()
        assert refused["type"] == "error" and refused["code"] == "too_many_connections"
        assert "across the servers" in refused["reason"]
        with pytest.raises(ConnectionClosed) as closed:
            fifth.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013

        # Meanwhile another address makes a table, takes both seats and plays.
        _, _, people = _two_playing(c, "n2", via="n1")
        assert _play(people[0], 1)["type"] in ("ack", "refused")
        for me in people:
            me.close()

        c.kill("n2")  # with one of the greedy address's tables and two of its connections
        with redis.Redis.from_url(c.redis) as client:
            deadline = time.monotonic() + 15
            while client.exists("nertz:live:n2"):
                assert time.monotonic() < deadline, "the killed node's counts did not lapse"
                time.sleep(0.2)
        again = web.post("/api/tables?node=n1", json=body)
        assert again.status_code == 201, again.text  # its share on n2 is gone
        more = [socket("n1") for _ in range(2)]  # two on n1 again, two more
        last = socket("n1")
        assert last.recv()["code"] == "too_many_connections"
        for me in [*held[::2], *more, last]:
            me.close()
        web.close()
