"""Quick match on a cluster (issue 26, point 3): two nodes' queues are one, in Redis
(``cluster/quickshare.py``), so two people whose pages reach two nodes sit at one
rated table; and a person seated by either node may not queue again while that match
is played, whichever node they ask.

The accounts are made in the database as a passkey ceremony would leave them (the
ceremony itself across nodes is test_ceremonies.py's), each signed in by its session
cookie; each person's requests go to their own node, not through the balancer."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine

from nertz.server.http.accounts_api import SESSION_COOKIE
from nertz.server.lobby.accounts import Accounts, NewPasskey

from ..live_server import eventually
from .harness import Cluster, Node, running


@pytest.fixture
def cluster(pg_url: str, redis_clean: str) -> Iterator[Cluster]:
    with running(pg_url, redis_clean, 2) as c:
        yield c


def _person(c: Cluster, node: Node, name: str, number: int) -> httpx.Client:
    """A signed-in browser of a new account ``name`` whose requests all go to ``node``."""
    engine = create_engine(c.pg)
    try:
        accounts = Accounts(engine)
        account_id = secrets.token_hex(8)
        key = NewPasskey(secrets.token_urlsafe(16), b"\x00" * 32, 0)
        accounts.create(name, account_id, key, f"address-{number}")
        session = accounts.start_session(account_id, None)
    finally:
        engine.dispose()
    return httpx.Client(
        base_url=node.http,
        headers={
            "Origin": c.http,  # the public URL, as the browser's page sends it
            "X-Nertz-Device": secrets.token_hex(32),
            "X-Forwarded-For": f"203.0.113.{number}",  # strangers: an address each
        },
        cookies={SESSION_COOKIE: session},
        timeout=10,
    )


def _seat(browser: httpx.Client) -> dict[str, Any]:
    def probe() -> dict[str, Any] | None:
        body: dict[str, Any] = browser.get("/api/quick").json()
        assert body["state"] in ("waiting", "seated"), body
        return body if body["state"] == "seated" else None

    return eventually(probe, "a seat from quick match", 30)


def test_two_nodes_queues_pair_two_people_into_one_rated_table(cluster: Cluster) -> None:
    ann = _person(cluster, cluster.node("n1"), "Ann", 1)
    bob = _person(cluster, cluster.node("n2"), "Bob", 2)
    with ann, bob:
        for browser in (ann, bob):  # two seats exactly: only the other person fills them
            answer = browser.post("/api/quick", json={"low": 2, "high": 2})
            assert answer.status_code == 201, answer.text
            assert answer.json()["state"] == "waiting"
        seats = [_seat(ann), _seat(bob)]
        assert seats[0]["code"] == seats[1]["code"]  # one table for both
        assert {s["seat"] for s in seats} == {0, 1}
        # The table is rated and holds the two of them, whichever node made it.
        table = httpx.get(
            f"{cluster.http}/api/tables/{seats[0]['code']}/ratings",
            params={"key": seats[0]["key"]},
            follow_redirects=True,
            timeout=10,
        )
        assert table.status_code == 200, table.text
        assert sorted(p["name"] for p in table.json()["places"]) == ["Ann", "Bob"]
        # Seated, neither may queue again while the match is played, on either node.
        for browser in (ann, bob):
            again = browser.post("/api/quick", json={"low": 2, "high": 2})
            assert again.status_code == 409 and again.json()["error"] == "in_rated_match"
