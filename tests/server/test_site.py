"""The public server's second round (issue 24): every read bounded per address, the
site's own Host and Origin, and addresses counted by the client they stand for."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from nertz.server.door.edge import address_key
from nertz.server.door.limits import Limits
from nertz.server.http.app import Config, create_app
from nertz.server.lobby.invites import qr_svg

from ..live_server import free_port, running
from .conftest import SPEED, Live
from .test_limits import honest_hand, http_from, metrics

JSON = {"Content-Type": "application/json"}


@pytest.fixture
def bounded(tmp_path: Path) -> Iterator[Live]:
    """A server whose request rates are small enough to reach in a test."""
    limits = Limits(requests_per_s=1, files_per_s=1, costly_per_minute=2)
    config = Config(db=str(tmp_path / "b.db"), port=free_port(), speed=SPEED, limits=limits)
    with running(config) as port:
        yield Live(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws", port)


# ------------------------------------------------------------------ 2: every read bounded


def test_every_route_has_a_rate_per_address_and_costly_reads_a_tighter_one(
    bounded: Live,
) -> None:
    """Issue 24, 2: a script asking on and on for the list of tables, a score sheet
    or the client's files is refused at the door once its address's rate is spent,
    while another address is served and a person plays on."""
    with http_from("127.0.0.21", bounded) as reader:
        answers = [reader.get("/api/tables") for _ in range(11)]  # a burst of 10
        assert [a.status_code for a in answers[:10]] == [200] * 10
        refused = answers[10]
        assert refused.status_code == 429 and refused.json()["error"] == "too_many_requests"
        assert "at most 1 requests a second" in refused.json()["reason"]
        assert int(refused.headers["Retry-After"]) >= 1
    with http_from("127.0.0.22", bounded) as other:
        assert other.get("/api/tables").status_code == 200  # another address: served
        made = other.post("/api/sheets", json={"names": ["Ann", "Bo"]})
        sheet = made.json()["id"]
        reads = [other.get(f"/api/sheets/{sheet}") for _ in range(3)]
        assert [r.status_code for r in reads] == [200, 200, 429]  # costly: 2 a minute
        assert reads[2].json()["error"] == "too_many_reads"
        assert reads[0].json()["names"] == ["Ann", "Bo"]
    with http_from("127.0.0.23", bounded) as files:
        got = [files.get("/static/js/main.js") for _ in range(11)]
        assert [g.status_code for g in got[:10]] == [200] * 10
        assert got[10].status_code == 429 and got[10].json()["error"] == "too_many_files"
    honest_hand(bounded, "127.0.0.24")


def test_a_sheet_read_after_a_change_shows_the_change(live: Live) -> None:
    """Sheets' answers are kept (issue 24, 2), keyed by what is stored: a change is
    seen at once, in JSON and in CSV."""
    made = httpx.post(f"{live.http}/api/sheets", json={"names": ["Ann", "Bo"]}).json()
    path = f"{live.http}/api/sheets/{made['id']}"
    assert httpx.get(path).json()["scored"] == []
    hand = {"middle": [10, 4], "nertz_left": [0, 6], "caller": 0}
    assert httpx.post(f"{path}/hands", json=hand).status_code == 201
    assert httpx.get(path).json()["totals"] == [10, -8]
    assert "Ann" in httpx.get(f"{path}/csv").text.splitlines()[1]


def test_metrics_answer_the_operator_alone(tmp_path: Path) -> None:
    """Issue 24, 2: ``/metrics`` is the operator's (``metrics_from``, by default the
    machine itself); to any other address it is a 404."""
    config = Config(db=str(tmp_path / "m.db"), port=free_port(), metrics_from=("127.0.0.31",))
    with running(config) as port:
        live = Live(f"http://127.0.0.1:{port}", "", port)
        with http_from("127.0.0.31", live) as operator:
            assert operator.get("/metrics").status_code == 200
        for stranger in ("127.0.0.32", "127.0.0.1"):
            with http_from(stranger, live) as other:
                assert other.get("/metrics").status_code == 404


def test_the_clients_files_are_served_from_memory_with_their_tags(live: Live) -> None:
    first = httpx.get(f"{live.http}/static/js/main.js")
    assert first.status_code == 200 and "javascript" in first.headers["content-type"]
    tag = first.headers["etag"]
    again = httpx.get(f"{live.http}/static/js/main.js", headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.content == b""
    assert httpx.get(f"{live.http}/static/js/nothing.js").status_code == 404
    assert httpx.get(f"{live.http}/static/%2e%2e/server/http/app.py").status_code == 404
    assert (
        httpx.get(f"{live.http}/static/css/app.css").headers["content-type"].startswith("text/css")
    )


# ------------------------------------------------------------------ 5: cross-site requests


def test_a_change_from_another_sites_page_is_refused_and_programs_keep_working(
    live: Live,
) -> None:
    """Issue 24, 5: a foreign page's POST (its Origin) is refused, and so is a body
    with no Origin that is not declared JSON (what a form or a no-cors fetch sends);
    the site's own pages (its Origin) and programs sending JSON are served."""
    body = b'{"seats": 2}'
    own = f"http://127.0.0.1:{live.port}"
    cases = [
        ({"Origin": "http://evil.example", **JSON}, 403, "cross_site"),
        ({"Origin": "http://127.0.0.2:9999", **JSON}, 403, "cross_site"),
        ({"Origin": "null", **JSON}, 403, "cross_site"),
        ({"Content-Type": "text/plain"}, 415, "not_json"),
        ({}, 415, "not_json"),
        ({"Origin": own, "Content-Type": "text/plain"}, 201, None),  # the site's own page
        (JSON, 201, None),  # a program
        ({"Content-Type": "application/json; charset=utf-8"}, 201, None),
    ]
    for headers, status, code in cases:
        answer = httpx.post(f"{live.http}/api/tables", content=body, headers=headers)
        assert answer.status_code == status, (headers, answer.text)
        if code is not None:
            assert answer.json()["error"] == code and answer.json()["reason"]
    joined = httpx.post(
        f"{live.http}/api/tables/ZZZZZZ/join",
        content=b'{"name": "Visitor"}',
        headers={"Content-Type": "text/plain"},
    )
    assert joined.status_code == 415  # refused before any lookup: no miss is counted
    refusals = metrics(live)
    assert refusals["nertz_refusals_total{code=cross_site}"] == 3
    assert refusals["nertz_refusals_total{code=not_json}"] == 3
    assert "nertz_refusals_total{code=too_many_misses}" not in refusals


def test_a_foreign_host_is_refused_over_http_and_websocket(live: Live) -> None:
    """Issue 24, 5: DNS rebinding (a name of the attacker's pointed at this server)
    gets nothing: its Host is none of the server's, whatever its Origin."""
    rebound = f"rebind.example:{live.port}"
    page = httpx.get(f"{live.http}/", headers={"Host": rebound, "Accept": "text/html"})
    assert page.status_code == 421 and page.json()["error"] == "unknown_host"
    sock = socket.create_connection(("127.0.0.1", live.port))
    with pytest.raises(InvalidStatus) as refused:
        connect(f"ws://{rebound}/ws", sock=sock, origin=f"http://{rebound}")  # type: ignore[arg-type]
    assert refused.value.response.status_code == 403
    # Its own names are served: an IP address, localhost.
    for host in (f"127.0.0.1:{live.port}", f"localhost:{live.port}", "[::1]"):
        assert httpx.get(f"{live.http}/api/rules", headers={"Host": host}).status_code == 200


def test_pages_say_how_they_may_be_framed_sniffed_and_referred(live: Live) -> None:
    page = httpx.get(f"{live.http}/", headers={"Accept": "text/html"})
    assert page.status_code == 200
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "same-origin"
    assert httpx.get(f"{live.http}/api/tables").headers["x-content-type-options"] == "nosniff"


def test_the_qr_code_is_of_the_public_url_whatever_the_host(tmp_path: Path) -> None:
    """Issue 24, 5: a spoofed Host does not reach the invite's QR code: it is of the
    configured public URL."""
    config = Config(
        db=str(tmp_path / "q.db"),
        port=free_port(),
        public_urls=("https://nertz.example.org",),
    )
    with running(config) as port:
        http = f"http://127.0.0.1:{port}"
        code = httpx.post(f"{http}/api/tables", json={"seats": 2}).json()["code"]
        for host in (f"127.0.0.2:{port}", "nertz.example.org"):
            qr = httpx.get(f"{http}/api/tables/{code}/qr.svg", headers={"Host": host})
            assert qr.status_code == 200
            assert qr.content == qr_svg(f"https://nertz.example.org/t/{code}")
        assert httpx.get(f"{http}/", headers={"Host": "evil.example"}).status_code == 421


# ------------------------------------------------------------------ 6: addresses


def test_an_address_key_is_its_ipv4_or_its_ipv6_network() -> None:
    assert address_key("203.0.113.7") == "203.0.113.7"
    assert address_key("::ffff:127.0.0.1") == "127.0.0.1"
    assert address_key("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:2:3:4:5:6", 56) == "2001:db8:1::/56"
    assert address_key("2001:db8::1", 128) == "2001:db8::1"
    assert address_key("fe80::1%eth0") == "fe80::/64"


def test_quotas_count_an_ipv6_network_and_a_mapped_address_as_one_client(
    tmp_path: Path,
) -> None:
    """Issue 24, 6: 100 addresses of one IPv6 /64 are one client, and
    ``::ffff:192.0.2.9`` is ``192.0.2.9``; ``ipv6_prefix`` sets the grouping."""

    def creates(limits: Limits, clients: list[str]) -> list[int]:
        app = create_app(Config(db=str(tmp_path / f"{limits.ipv6_prefix}.db"), limits=limits))

        async def run() -> list[int]:
            out = []
            async with app.router.lifespan_context(app):
                for client in clients:
                    transport = httpx.ASGITransport(app=app, client=(client, 50000))
                    async with httpx.AsyncClient(
                        transport=transport, base_url="http://127.0.0.1"
                    ) as http:
                        made = await http.post("/api/tables", json={"seats": 2})
                        out.append(made.status_code)
            return out

        return asyncio.run(run())

    clients = [
        "2001:db8:5:6::1",
        "2001:db8:5:6:ffff::2",  # the same /64
        "2001:db8:5:7::1",  # another
        "::ffff:192.0.2.9",
        "192.0.2.9",  # the same, unmapped
    ]
    one_each = Limits(creates_per_minute=1)
    assert creates(one_each, clients) == [201, 429, 201, 201, 429]
    per_address = Limits(creates_per_minute=1, ipv6_prefix=128)
    assert creates(per_address, clients) == [201, 201, 201, 201, 429]
