"""The simulator against pounce.live's, per core (issue 28, point 2).

    python bench/pounce.py --pounce DIR [--games 400] [--rounds 3]

``DIR`` is a checkout of github.com/alexrcoleman/pounce (none of its code is in this
repository; fetch it yourself, e.g. ``git clone``). Its ``scripts/benchmarkSimulation.ts``
is run as its own README says, with ts-node, ``MODE=fixed PLAYERS=4`` (its heuristic
bots, four players). What that script imports from npm and nothing more (ts-node,
typescript, rand-seed, @types/node, at the versions its lock file names) is installed
once into ``--deps`` (default ``~/.cache/nertz-pounce``), outside both repositories, and
found through ``NODE_PATH``.

Both sides are timed in CPU seconds, so the machine's other work counts little. For
pounce, a run with no game (ts-node's start-up: several CPU seconds of compiling) and a
run of ``--games`` games after its ``--warmup`` are timed whole, from outside, and the
start-up is taken off: every game played counts, the warm-up's too. The start-up varies
by a second or so from run to run, so the runs are long (2,000 games are some 8 CPU
seconds). For nertz, four expert bots play
standard hands in this process (``nertz.sim.run``) after a warm-up. Rounds alternate the
two; the medians are compared. A pounce.live "game" is one round to a pounce, as a
nertz hand is one to a call (R27). The last line::

    pounce nertz_hands_per_cpu_s=… pounce_games_per_cpu_s=… ratio=…
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from nertz.bots import parse_seat
from nertz.sim import Setup, run
from nertz.sim.cli import parse_rules

PACKAGES = ("ts-node@10.9.2", "typescript@5.3.3", "rand-seed@1.0.2", "@types/node@17.0.2")
"""What ``scripts/benchmarkSimulation.ts`` needs from npm, at pounce's locked versions."""
SCRIPT = "scripts/benchmarkSimulation.ts"


def install(deps: Path) -> Path:
    """The npm packages in ``deps/node_modules``, installed once."""
    modules = deps / "node_modules"
    if not (modules / "ts-node" / "dist" / "bin.js").exists():
        deps.mkdir(parents=True, exist_ok=True)
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("pounce: npm is needed to install ts-node and typescript")
        subprocess.run(
            [npm, "install", "--prefix", str(deps), "--no-audit", "--no-fund", *PACKAGES],
            check=True,
        )
    return modules


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def pounce_cpu(pounce: Path, modules: Path, games: int, warmup: int) -> float:
    """CPU seconds of one whole run of pounce's benchmark with ``games`` games."""
    env = {
        **os.environ,
        "NODE_PATH": str(modules),
        "MODE": "fixed",
        "PLAYERS": "4",
        "GAMES": str(games),
        "WARMUP_GAMES": str(warmup),
    }
    command = ["node", str(modules / "ts-node" / "dist" / "bin.js"), "--transpile-only", SCRIPT]
    before = children_cpu()
    done = subprocess.run(command, cwd=pounce, env=env, capture_output=True, text=True)
    spent = children_cpu() - before
    if done.returncode != 0:
        raise SystemExit(f"pounce: its benchmark failed:\n{done.stderr[-2000:]}")
    report = json.loads(done.stdout[done.stdout.index("{") :])
    if report["games"] != games or report["completedGames"] < games * 0.95 - 1:
        raise SystemExit(f"pounce: its benchmark did not play its games: {report}")
    return spent


def nertz_rate(matches: int) -> float:
    """Hands per CPU second of four expert bots (standard rules) in this process."""
    setup = Setup(tuple(parse_seat("expert") for _ in range(4)), parse_rules("standard", []), 1)
    run(setup, 2)  # imports and caches
    cpu = time.process_time()
    results = run(setup, matches)
    spent = time.process_time() - cpu
    return sum(len(m.hands) for m in results) / spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pounce", type=Path, required=True, help="a pounce checkout")
    parser.add_argument("--deps", type=Path, default=Path.home() / ".cache" / "nertz-pounce")
    parser.add_argument("--games", type=int, default=2000, help="pounce games a run")
    parser.add_argument("--warmup", type=int, default=50, help="pounce's warm-up games")
    parser.add_argument("--matches", type=int, default=40, help="nertz matches a round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not (args.pounce / SCRIPT).exists():
        raise SystemExit(f"pounce: no {SCRIPT} under {args.pounce}")
    modules = install(args.deps)
    ours: list[float] = []
    theirs: list[float] = []
    for n in range(args.rounds):
        start = pounce_cpu(args.pounce, modules, 0, 0)
        whole = pounce_cpu(args.pounce, modules, args.games, args.warmup)
        theirs.append((args.games + args.warmup) / (whole - start))
        ours.append(nertz_rate(args.matches))
        print(
            f"round {n + 1}: pounce {theirs[-1]:.1f} games per CPU s ({start:.2f} s to"
            f" start, {whole:.2f} s with {args.games + args.warmup} games);"
            f" nertz {ours[-1]:.1f} hands per CPU s"
        )
    mine, others = statistics.median(ours), statistics.median(theirs)
    print(
        f"pounce nertz_hands_per_cpu_s={mine:.1f} pounce_games_per_cpu_s={others:.1f}"
        f" ratio={mine / others:.2f}"
    )


if __name__ == "__main__":
    main()
