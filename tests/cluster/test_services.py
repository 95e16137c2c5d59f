"""The private services start, answer, and stop (``tests/services.py``); the harness's
nodes can run another tree."""

from __future__ import annotations

from pathlib import Path

import httpx
import psycopg
import pytest
import redis

from nertz.server.http.app import Config

from .. import services
from ..live_server import running
from .harness import node_env, start_node


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


def test_nodes_can_run_another_source_tree(tmp_path: Path) -> None:
    """``bench/cluster.py --node-python-path``: the nodes run the tree given (here a
    stand-in that says where it runs from), the harness its own."""
    fake = tmp_path / "old" / "nertz"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "__main__.py").write_text("import sys; print('old tree:', __file__, sys.argv[1:3])\n")
    env = node_env(str(tmp_path / "old"), ["NERTZ_FLAG=1"])
    assert env["NERTZ_FLAG"] == "1" and env["PYTHONPATH"].startswith(str(tmp_path / "old"))
    node = start_node("n1", "postgresql+psycopg://unused", "redis://unused", [], env=env)
    assert node.process.wait(30) == 0
    assert node.log is not None
    assert f"old tree: {fake / '__main__.py'} ['serve', '--port']" in node.log.read_text()
    with pytest.raises(ValueError, match="KEY=VALUE"):
        node_env(None, ["NERTZ_FLAG"])
