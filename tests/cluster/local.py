"""``make cluster``: PostgreSQL, Redis, three ``nertz serve`` nodes and HAProxy on this
machine (Debian's packages, private data directories, free ports); prints the URL and
runs until Ctrl-C, then stops everything and removes its directories.

    .venv/bin/python -m tests.cluster.local [--nodes 3] [--port 8000]
"""

from __future__ import annotations

import argparse
import signal
import tempfile
import time
from pathlib import Path

from .. import services
from .harness import running


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--port", type=int, default=None, help="the load balancer's port")
    args = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="nertz-cluster-"))
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    with (
        services.postgres() as pg,
        services.redis() as redis,
        running(pg, redis, args.nodes, logs=logs, port=args.port) as c,
    ):
        print(f"Open http://127.0.0.1:{c.port}/  (HAProxy in front of {args.nodes} nodes)")
        for node in c.nodes:
            print(f"  node {node.node_id}: http://127.0.0.1:{node.port}/ (pid {node.process.pid})")
        print(f"  PostgreSQL: {pg}\n  Redis: {redis}\n  node logs: {logs}")
        print("kill -9 a node's pid to see its tables move; Ctrl-C stops everything.", flush=True)
        try:
            while True:  # a killed node stays dead: the others take its tables
                time.sleep(1)
        except KeyboardInterrupt:
            print("stopping")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
