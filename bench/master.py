"""Master against expert in paired hands (issue 28, point 4).

``master`` (``nertz.bots.LEVELS``) has expert's timing model exactly (the delays of a
card move and of a turn, their spread and floor, the overlook rate): only its choices
differ. Its choices are expert's order of play with two changes, both chosen here:

* **the work-pile search** (``nertz.bots.search``, ``Level.search``): the fewest run
  moves between its own work piles that give its Nertz card a place or bare a card the
  middle takes, where expert tries two fixed one-move patterns;
* **patience**: the fruitless passes through its stock before it says stuck (R25).

**Paired hands.** Each deal is played twice at a two-seat table (``--seats``), master
at seat 0 and then at seat 1 of the same deal, against expert, with the simulator
(``nertz.sim.play_hand``, virtual time) and fresh seeds for each hand's bots. A deal's
gain is master's score minus expert's, averaged over its two hands; the 95% interval
is the mean's, ``1.96`` standard errors over deals (they are independent).

**Decisions.** Every ``decide`` of master in the measured run is timed in CPU time
(``time.thread_time_ns``); the figures are their median, p99 and maximum.

**Tuning** (``--tune``, ``make master-tune``): a grid of patience and search depth,
each played on ``--deals`` deals of the tuning seed (never the measured run's), the
best printed first. The shipped choice (``MASTER_SEARCH``, ``MASTER_PATIENCE`` in
``nertz.bots.levels``) is the grid's best. ``--why`` shows how each change wins
(calls, rotations, Nertz cards left), on the tuning seed too. Deterministic from the
seeds: rerunning prints the same numbers.

**Other comparisons**: ``--player`` and ``--against`` name the levels (``--player
expert`` against expert is the null comparison; ``--against demon``), ``--seats 4``
plays one of them against three of the other.

Last line: ``master hands=N gain=X lo=X hi=X decision_ms_p50=X``. Figures:
docs/strategy.md, section 6.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TypeVar

from nertz.bots import LEVELS, Bot, Decision, Level
from nertz.engine import Rules, deal
from nertz.sim import HandResult, play_hand

T = TypeVar("T")

Z95 = 1.96
PATIENCE = (1, 2, 3, 4, 6)
SEARCH = (0, 1, 2, 3)


def _seed(*parts: object) -> int:
    return random.Random(":".join(map(str, parts))).getrandbits(48)


class Timed(Bot):
    """A bot whose every decision is timed in CPU time (ns)."""

    def __init__(self, seat: int, level: Level | str, style: str, seed: int) -> None:
        super().__init__(seat, level, style, seed)
        self.spent: list[int] = []

    def decide(
        self, now_ms: int, avoid: frozenset[int] = frozenset(), role: str | None = None
    ) -> Decision:
        start = time.thread_time_ns()
        decision = super().decide(now_ms, avoid, role)
        self.spent.append(time.thread_time_ns() - start)
        return decision


Trial = str | tuple[int, int]
"""A level by name, or expert with ``(patience, search depth)``."""


def trial_level(trial: Trial) -> Level:
    """The level ``trial`` names. Built inside each worker process from plain values,
    so that a run's levels are described by what the command line says."""
    if isinstance(trial, str):
        return LEVELS[trial]
    patience, depth = trial
    return replace(LEVELS["expert"], name="trial", patience=patience, search=depth)


def paired_hands(
    trial: Trial, against: str, seats: int, seed: int, number: int, timed: bool
) -> list[tuple[int, HandResult, list[int]]]:
    """Deal ``number`` played ``seats`` times, the level ``trial`` names at each seat in
    turn (``mine``) against level ``against`` at the others: each hand with ``mine``
    and the CPU time of its decisions (ns) when ``timed``."""
    level = trial_level(trial)
    rules = Rules()
    dealt = deal(seats, rules, _seed("deal", seed, number))
    out = []
    for mine in range(seats):
        bots: list[Bot] = []
        for s in range(seats):
            bot_seed = _seed("bot", seed, number, mine, s)
            if s != mine:
                bots.append(Bot(s, against, "balanced", bot_seed))
            elif timed:
                bots.append(Timed(s, level, "balanced", bot_seed))
            else:
                bots.append(Bot(s, level, "balanced", bot_seed))
        hand = play_hand(bots, rules, 0, fixed=dealt)
        mine_bot = bots[mine]
        out.append((mine, hand, mine_bot.spent if isinstance(mine_bot, Timed) else []))
    return out


def play_deal(
    trial: Trial, against: str, seats: int, seed: int, number: int, timed: bool
) -> tuple[float, list[int]]:
    """A deal's gain (``paired_hands``): ``trial``'s mean score minus the others' mean,
    averaged over its hands, and its decisions' CPU times (ns) when ``timed``."""
    gain = 0.0
    spent: list[int] = []
    for mine, hand, times in paired_hands(trial, against, seats, seed, number, timed):
        others = [score for s, score in enumerate(hand.scores) if s != mine]
        gain += hand.scores[mine] - sum(others) / len(others)
        spent += times
    return gain / seats, spent


def _each_deal(work: Callable[[int], T], deals: int, jobs: int) -> list[T]:
    """``work`` on deals 0 to ``deals - 1``, in ``jobs`` processes."""
    if jobs <= 1:
        return [work(n) for n in range(deals)]
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        return pool.map(work, range(deals), chunksize=25)


def measure(
    trial: Trial,
    seats: int,
    deals: int,
    seed: int,
    jobs: int,
    timed: bool,
    against: str = "expert",
) -> tuple[float, float, float, list[int]]:
    """Mean gain a deal, its 95% interval, and the decisions' CPU times."""
    results = _each_deal(partial(play_deal, trial, against, seats, seed, timed=timed), deals, jobs)
    gains = [g for g, _ in results]
    spent = [ns for _, times in results for ns in times]
    mean = statistics.fmean(gains)
    half = Z95 * statistics.stdev(gains) / len(gains) ** 0.5
    return mean, mean - half, mean + half, spent


def tune(args: argparse.Namespace) -> None:
    """The grid on the tuning seed, best first."""
    rows = []
    for patience, depth in itertools.product(PATIENCE, SEARCH):
        trial = (patience, depth)
        mean, lo, hi, _ = measure(trial, args.seats, args.deals, args.tune_seed, args.jobs, False)
        rows.append((mean, lo, hi, patience, depth))
        print(f"patience={patience} search={depth}: gain {mean:+.3f} ({lo:+.3f} to {hi:+.3f})")
    rows.sort(reverse=True)
    print("best first:")
    for mean, lo, hi, patience, depth in rows[:5]:
        print(f"  patience={patience} search={depth}: {mean:+.3f} ({lo:+.3f} to {hi:+.3f})")


def why_deal(trial: Trial, seed: int, number: int) -> list[tuple[float, ...]]:
    """Deal ``number`` at two seats (``paired_hands``) against expert: per hand, whether
    ``trial`` called, whether expert did, the table's rotations (R25) and its Nertz
    cards left minus expert's."""
    rows = []
    for mine, hand, _ in paired_hands(trial, "expert", 2, seed, number, False):
        other = 1 - mine
        rows.append(
            (
                float(hand.caller == mine),
                float(hand.caller == other),
                float(hand.rotations),
                float(hand.nertz_left[mine] - hand.nertz_left[other]),
            )
        )
    return rows


def why(args: argparse.Namespace) -> None:
    """How each of master's changes wins its points, alone and together: calls,
    rotations and Nertz cards left, per hand, on the tuning seed."""
    expert, master = LEVELS["expert"], LEVELS["master"]
    trials: tuple[tuple[str, Trial], ...] = (
        ("expert", "expert"),
        (f"patience {master.patience}", (master.patience, expert.search)),
        (f"search {master.search}", (expert.patience, master.search)),
        ("master", "master"),
    )
    for name, trial in trials:
        work = partial(why_deal, trial, args.tune_seed)
        hands = [row for rows in _each_deal(work, args.deals, args.jobs) for row in rows]
        calls, others, rotations, left = (statistics.fmean(c) for c in zip(*hands, strict=True))
        print(
            f"{name}: calls {calls:.3f} of hands, expert {others:.3f};"
            f" rotations {rotations:.3f} a hand; Nertz cards left {left:+.3f} against expert's"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=10000, help="deals (each played per seat)")
    parser.add_argument("--seats", type=int, default=2, help="seats at the table (2)")
    parser.add_argument("--seed", type=int, default=28, help="the measured run's seed")
    parser.add_argument("--tune-seed", type=int, default=2801, help="the tuning runs' seed")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--player", default="master", choices=list(LEVELS), help="(master)")
    parser.add_argument("--against", default="expert", choices=list(LEVELS), help="(expert)")
    parser.add_argument("--tune", action="store_true", help="run the tuning grid instead")
    parser.add_argument(
        "--why", action="store_true", help="calls, rotations, cards left, tuning seed"
    )
    args = parser.parse_args()
    if args.why:
        why(args)
        return
    if args.tune:
        tune(args)
        return
    started = time.perf_counter()
    mean, lo, hi, spent = measure(
        args.player, args.seats, args.deals, args.seed, args.jobs, True, args.against
    )
    ms = sorted(ns / 1e6 for ns in spent)
    p50 = ms[len(ms) // 2]
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    hands = args.deals * args.seats
    print(
        f"{args.player} against {args.against} at {args.seats} seats, {args.deals} deals"
        f" ({hands} hands), seed {args.seed}: {mean:+.3f} points a hand ({lo:+.3f} to"
        f" {hi:+.3f}); {len(ms)} decisions: CPU p50 {p50:.4f} ms, p99 {p99:.4f} ms,"
        f" max {ms[-1]:.3f} ms; {time.perf_counter() - started:.0f} s"
    )
    print(
        f"{args.player} hands={hands} gain={mean:.3f} lo={lo:.3f} hi={hi:.3f}"
        f" decision_ms_p50={p50:.4f}"
    )


if __name__ == "__main__":
    main()
