"""Simulator speed: four expert seats, standard rules, one core (issue 3).

Plays whole matches in one process and prints, as its last line,
``simulate hands/s=<float> matches/s=<float>`` per second of this process's CPU time.
``--profile`` prints the top of a cProfile first; ``--set jokers=on`` (any table option,
as for ``nertz simulate``) measures other rules. See docs/performance.md.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from nertz.bots import parse_seat
from nertz.sim import Setup, run
from nertz.sim.cli import parse_rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=30, help="matches to play (default 30)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile top 25")
    parser.add_argument(
        "--set", action="append", default=[], metavar="OPTION=VALUE", help="e.g. jokers=on"
    )
    args = parser.parse_args()
    rules = parse_rules("standard", args.set)
    setup = Setup(tuple(parse_seat("expert") for _ in range(4)), rules, 1)
    run(setup, 2)  # warm up imports and caches
    profiler = cProfile.Profile() if args.profile else None
    start = time.perf_counter()
    cpu = time.process_time()
    if profiler:
        profiler.enable()
    results = run(setup, args.matches)
    if profiler:
        profiler.disable()
    # CPU time of this one process: the machine's two cores are shared, and wall time
    # would measure the neighbours' load as much as the simulator.
    elapsed = time.process_time() - cpu
    wall = time.perf_counter() - start
    hands = sum(len(m.hands) for m in results)
    if profiler:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    changed = " ".join(f"{k}={v}" for k, v in rules.changed().items()) or "standard"
    print(
        f"{args.matches} matches ({changed}), {hands} hands: {elapsed:.2f} s CPU, {wall:.2f} s wall"
    )
    print(f"simulate hands/s={hands / elapsed:.1f} matches/s={args.matches / elapsed:.2f}")


if __name__ == "__main__":
    main()
