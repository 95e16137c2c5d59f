"""What one refused request costs the server, in CPU, by kind.

    python bench/refusals.py --requests 1500

Starts ``nertz serve`` on a fresh database; from one address per kind spends the quota
(20 unstarted tables, 60 joins, 60 score sheets), then sends ``--requests`` more of the
same over one keep-alive connection, one at a time, and prints the server's CPU time
(``/proc``) per request: what an abuser who never stops asking costs. Also, for scale,
an honest ``GET /api/tables``. CPU time, not latency, so a busy machine changes it
less (docs/performance.md, "Refused again at the door").
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from load import cpu_seconds, free_port
from serving import serving

Send = Callable[[httpx.Client], httpx.Response]

KINDS: list[tuple[str, str, int, Send]] = [
    ("refused create", "127.77.0.1", 25, lambda c: c.post("/api/tables", json={"seats": 4})),
    (
        "refused join",
        "127.77.0.2",
        70,
        lambda c: c.post("/api/tables/ABCDEF/join", json={"name": "x"}),
    ),
    (
        "refused sheet",
        "127.77.0.3",
        62,
        lambda c: c.post("/api/sheets", json={"names": ["A", "B"]}),
    ),
    ("honest list of tables", "127.77.0.4", 0, lambda c: c.get("/api/tables")),
]
"""Name, address, requests that spend its quota first, the request."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=1500)
    args = parser.parse_args()
    port = free_port()
    http = f"http://127.0.0.1:{port}"
    with (
        tempfile.TemporaryDirectory() as tmp,
        serving(port, str(Path(tmp) / "refusals.db")) as server,
    ):
        for name, address, spend, send in KINDS:
            transport = httpx.HTTPTransport(local_address=address)
            with httpx.Client(base_url=http, transport=transport, timeout=10) as client:
                for _ in range(spend):
                    send(client)
                answers: collections.Counter[int] = collections.Counter()
                before = cpu_seconds(server.pid)
                for _ in range(args.requests):
                    answers[send(client).status_code] += 1
                spent = cpu_seconds(server.pid) - before
            each = 1000 * spent / args.requests
            print(f"{name}: {each:.3f} ms of server CPU each {dict(answers)}")
        before = cpu_seconds(server.pid)
        time.sleep(3)
        idle = (cpu_seconds(server.pid) - before) / 3
        load = os.getloadavg()[0]
        print(f"idle server: {1000 * idle:.1f} ms of CPU a second; load average {load:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
