"""``bench/rating.py --quick``: the benchmark runs end to end on a small field and ends
with the line docs/performance.md quotes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_benchmark_runs_and_ends_with_its_line() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "rating.py"), "--quick"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    number = r"-?\d+(?:\.\d+)?"
    assert re.fullmatch(
        rf"rating spearman={number} established_5={number} logloss_gain={number}"
        rf" wait_p95_s={number}",
        last,
    ), last
    figures = dict(pair.split("=") for pair in last.split()[1:])
    assert -1 <= float(figures["spearman"]) <= 1 and 0 <= float(figures["established_5"]) <= 1
    # With bots after 20 s, nobody waits much longer, whatever the arrival rate.
    assert float(figures["wait_p95_s"]) <= 30
