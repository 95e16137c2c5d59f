"""The private services start, answer, and stop (``tests/services.py``)."""

from __future__ import annotations

import httpx
import psycopg
import redis

from nertz.server.app import Config

from .. import services
from ..live_server import running


def test_postgres_and_redis_answer_on_their_own_ports(pg_url: str, redis_clean: str) -> None:
    with psycopg.connect(pg_url.replace("+psycopg", "")) as conn:
        assert conn.execute("SELECT 1 + 1").fetchone() == (2,)
    with redis.Redis.from_url(redis_clean) as client:
        assert client.ping() and client.dbsize() == 0


def test_haproxy_forwards_to_a_node(haproxy_bin: str, tmp_path: object) -> None:
    config = Config(db=f"{tmp_path}/h.db", port=services.free_port())
    with running(config) as port:
        nodes = [services.HaproxyBackend("n1", port)]
        with services.haproxy(nodes) as front:
            answer = httpx.get(f"http://127.0.0.1:{front}/", timeout=5)
            assert answer.status_code == 200 and answer.json()["nertz"] == "server"
