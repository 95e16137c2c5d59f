"""How the bot choices feel to a person: each choice against two scripted players.

For every choice of ``nertz.bots.choices`` (Relaxed, Even, Sharp, Fierce) this plays hands in
the simulator's virtual time (``nertz.sim.table.play_hand``, standard rules): seat 0
is a scripted person, the other seats the choice's bots. The scripted players:

* **newcomer**: one greedy action every 2 s;
* **quick**: one greedy action every 0.77 s (1.3 actions a second).

"Greedy" is the bots' own policy with no planning and no lapses (``Level.plan`` 0,
``overlook`` 0: a card to the middle first, then the Nertz card, then the waste, else
turn the stock; say stuck after two fruitless passes) at a fixed pace (no spread),
calling Nertz the moment its pile is empty. A hand is *won* when the scripted
player's hand score is higher than every bot's.

It prints, per choice and player, the median hand length (95% interval from the
order statistics), the player's mean hand score (normal 95% interval) and the share of
hands won (Wilson 95% interval). docs/bots.md records a run; the targets: with
Relaxed the newcomer's mean score is >= 0, they win 30-70% of hands and the median
hand lasts at most 4 minutes; with Fierce the quick player wins under 30%.

    .venv/bin/python bench/pace.py [--hands 200] [--choice relaxed]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from nertz.bots import Bot, Level
from nertz.bots.choices import CHOICES, specs_of
from nertz.engine import preset
from nertz.sim.stats import Z95, wilson
from nertz.sim.table import play_hand

PLAYERS = {
    # name, card_ms, turn_ms, spread, floor_ms, overlook, plan, patience
    "newcomer": Level("newcomer", 2000, 2000, 0.0, 0, 0.0, 0, 2),
    "quick": Level("quick", 770, 770, 0.0, 0, 0.0, 0, 2),
}
"""The scripted players: a fixed pace, greedy (see the module docstring)."""


def median_interval(values: list[float]) -> tuple[float, float]:
    """A 95% interval for the median from the order statistics (normal approximation
    to the binomial: ranks n/2 -+ 1.96 sqrt(n)/2)."""
    ordered = sorted(values)
    n = len(ordered)
    half = Z95 * math.sqrt(n) / 2
    lo = max(0, math.floor(n / 2 - half))
    hi = min(n - 1, math.ceil(n / 2 + half))
    return ordered[lo], ordered[hi]


def play(choice: str, player: str, hands: int) -> dict[str, float]:
    """``hands`` hands of ``player`` against the bots of ``choice``: the figures."""
    rules = preset("standard")
    specs = specs_of(choice)
    lengths: list[float] = []
    scores: list[int] = []
    wins = 0
    for h in range(hands):
        seed = 7919 * h + 17
        bots = [Bot(0, PLAYERS[player], "prompt", seed)]
        bots += [Bot(i + 1, s.level, s.style, seed + i + 1) for i, s in enumerate(specs)]
        result = play_hand(bots, rules, seed)
        lengths.append(result.length_ms / 1000)
        mine = result.scores[0]
        scores.append(mine)
        wins += mine > max(result.scores[1:])
    mean = statistics.fmean(scores)
    half = Z95 * statistics.stdev(scores) / math.sqrt(hands)
    won = wins / hands
    median = statistics.median(lengths)
    m_lo, m_hi = median_interval(lengths)
    w_lo, w_hi = wilson(wins, hands)
    return {
        "median_s": median,
        "median_lo": m_lo,
        "median_hi": m_hi,
        "mean": mean,
        "mean_lo": mean - half,
        "mean_hi": mean + half,
        "won": won,
        "won_lo": w_lo,
        "won_hi": w_hi,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=200, help="hands per row (default 200)")
    parser.add_argument("--choice", action="append", choices=list(CHOICES), help="only these")
    args = parser.parse_args()
    start = time.perf_counter()
    print("| bots | player | median hand (s) | player's mean score | hands won |")
    print("| --- | --- | --- | --- | --- |")
    for name in args.choice or list(CHOICES):
        for player in PLAYERS:
            f = play(name, player, args.hands)
            print(
                f"| {CHOICES[name].label} | {player} "
                f"| {f['median_s']:.0f} ({f['median_lo']:.0f}-{f['median_hi']:.0f}) "
                f"| {f['mean']:+.1f} ({f['mean_lo']:+.1f} to {f['mean_hi']:+.1f}) "
                f"| {f['won']:.0%} ({f['won_lo']:.0%}-{f['won_hi']:.0%}) |",
                flush=True,
            )
    print(f"({args.hands} hands a row, {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
