"""Duplicate Nertz against luck: how much the option ``duplicate`` (R42-R46,
docs/rules-decisions.md) cuts the noise of a score difference (issue 27).

Two bots at a two-seat table play ``--deals`` deals, each deal twice: as dealt, then
moved on one seat (R42), with the simulator (``nertz.sim.play_hand``, virtual time).
The bot at seat 0 is A, at seat 1 B; each hand has its own bots' seeds.

* **variance_cut**, two equal expert bots: the variance of A's score minus B's over
  one deal's two hands under duplicate scoring, against the same over two hands of two
  different deals under normal scoring (the hands of a match of normal Nertz), so both
  count the same number of hands. Per hand: normal ``D = a - b``; duplicate, each hand
  of a two-seat rotation has ``(D1 + D2) / 2`` (R43). ``variance_cut`` is
  ``1 - Var(D1 + D2) / (2 Var(D))``; 0 would mean the rotation cancels no luck.
* **hands_ratio**, an expert (A) against a skilled bot (B): the hands each scoring
  needs for a 95% test to tell them apart, ``(1.96 sd / mean)^2`` per hand of the
  difference (duplicate: whole rotations, ``2 Var(D1 + D2) / 4`` per hand), normal ÷
  duplicate.

Both come with 95% intervals from a bootstrap over deals (``--boot`` resamples).
Last line: ``duplicate hands=N variance_cut=X hands_ratio=X``, ``N`` the hands each
comparison played (``2 × deals``). ``--deals 10000`` (the default) is the measured run;
``--deals 100`` a quick look. Figures: docs/strategy.md.

``--consistency`` measures instead how ``variance_cut`` depends on how steady the two
equal experts are: the same deals played by experts whose delays' spread and overlook
rate (``nertz.bots.Level``) are lowered, down to bots that never overlook a play.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import random
import statistics
import time
from collections.abc import Sequence
from functools import partial

from nertz.bots import LEVELS, Bot, Level, parse_seat
from nertz.engine import Rules, deal, rotated
from nertz.sim import play_hand

Z95 = 1.96


def _seed(*parts: object) -> int:
    return random.Random(":".join(map(str, parts))).getrandbits(48)


Pair = tuple[tuple[Level, str], tuple[Level, str]]
"""A's and B's level and style."""


def pair_of(levels: tuple[str, str]) -> Pair:
    a, b = (parse_seat(level) for level in levels)
    return (LEVELS[a.level], a.style), (LEVELS[b.level], b.style)


def play_deal(pair: Pair, seed: int, number: int) -> tuple[int, int, int, int]:
    """Deal ``number`` played twice at two seats (R42): ``(a1, b1, a2, b2)``, the scores
    of A (seat 0) and B (seat 1) on the deal as dealt and moved on one seat."""
    rules = Rules(duplicate=True)
    dealt = deal(2, rules, _seed("deal", seed, number))
    out: list[int] = []
    for shift in range(2):
        bots = [
            Bot(seat, level, style, _seed("bot", seed, number, shift, seat))
            for seat, (level, style) in enumerate(pair)
        ]
        result = play_hand(bots, rules, 0, fixed=rotated(dealt, shift))
        out += result.scores
    a1, b1, a2, b2 = out
    return a1, b1, a2, b2


def simulate(pair: Pair, deals: int, seed: int, jobs: int) -> list[tuple[int, ...]]:
    play = partial(play_deal, pair, seed)
    if jobs <= 1:
        return [play(n) for n in range(deals)]
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        return pool.map(play, range(deals), chunksize=max(1, deals // (jobs * 8)))


def _diffs(sample: Sequence[tuple[int, ...]]) -> tuple[list[int], list[int]]:
    """Per deal: the normal per-hand differences (both hands) and the rotation's sum."""
    normal = [a - b for a1, b1, a2, b2 in sample for a, b in ((a1, b1), (a2, b2))]
    rotation = [(a1 - b1) + (a2 - b2) for a1, b1, a2, b2 in sample]
    return normal, rotation


def variance_cut(sample: Sequence[tuple[int, ...]]) -> float:
    """1 - Var(D1 + D2) / (2 Var(D)): see the module's docstring."""
    normal, rotation = _diffs(sample)
    return 1 - statistics.pvariance(rotation) / (2 * statistics.pvariance(normal))


def hands_needed(sample: Sequence[tuple[int, ...]]) -> tuple[float, float]:
    """Hands for a 95% test to tell A from B: ``(normal, duplicate)``."""
    normal, rotation = _diffs(sample)
    mean = statistics.fmean(normal)
    per_hand_normal = statistics.pvariance(normal)
    # A rotation's two hands carry one figure, (D1 + D2) / 2: n hands are n / 2 of them.
    per_hand_duplicate = 2 * statistics.pvariance([r / 2 for r in rotation])
    return (
        (Z95**2) * per_hand_normal / mean**2,
        (Z95**2) * per_hand_duplicate / mean**2,
    )


def hands_ratio(sample: Sequence[tuple[int, ...]]) -> float:
    normal, duplicate = hands_needed(sample)
    return normal / duplicate


def interval(
    sample: Sequence[tuple[int, ...]], figure: object, boots: int, seed: int
) -> tuple[float, float]:
    """A 95% percentile bootstrap interval of ``figure`` over deals."""
    rng = random.Random(seed)
    n = len(sample)
    values = sorted(
        figure([sample[rng.randrange(n)] for _ in range(n)])  # type: ignore[operator]
        for _ in range(boots)
    )
    return values[int(0.025 * boots)], values[min(boots - 1, int(0.975 * boots))]


STEADIER = ((0.30, 0.04), (0.15, 0.04), (0.30, 0.02), (0.30, 0.0), (0.15, 0.0), (0.05, 0.0))
"""``(spread, overlook)`` of the experts ``--consistency`` measures; the first is
``expert`` as it is."""


def consistency(args: argparse.Namespace) -> None:
    """``variance_cut`` of two equal experts over the same deals, for each of
    ``STEADIER``: how much of a hand's luck is the cards' depends on how steady the
    players are."""
    expert = parse_seat("expert")
    for spread, overlook in STEADIER:
        level = dataclasses.replace(LEVELS[expert.level], spread=spread, overlook=overlook)
        sample = simulate(((level, expert.style),) * 2, args.deals, args.seed, args.jobs)
        low, high = interval(sample, variance_cut, args.boot, args.seed)
        print(
            f"experts with spread {spread:.2f}, overlook {overlook:.0%}: variance cut"
            f" {variance_cut(sample):.1%} (95% {low:.1%} to {high:.1%})",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=10000, help="deals per comparison (10000)")
    parser.add_argument("--seed", type=int, default=27, help="the run's seed (27)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (1: the machine is shared)")
    parser.add_argument("--boot", type=int, default=1000, help="bootstrap resamples (1000)")
    parser.add_argument(
        "--consistency",
        action="store_true",
        help="variance_cut of equal experts made steadier: less spread, no overlooking",
    )
    args = parser.parse_args()
    if args.consistency:
        consistency(args)
        return
    start = time.perf_counter()
    equal = simulate(pair_of(("expert", "expert")), args.deals, args.seed, args.jobs)
    mixed = simulate(pair_of(("expert", "skilled")), args.deals, args.seed + 1, args.jobs)
    wall = time.perf_counter() - start
    hands = 2 * args.deals
    normal, rotation = _diffs(equal)
    cut = variance_cut(equal)
    cut_low, cut_high = interval(equal, variance_cut, args.boot, args.seed)
    print(f"{hands} hands each comparison ({args.deals} deals, each rotated once), {wall:.0f} s")
    print(
        f"equal experts: Var(D) per hand {statistics.pvariance(normal):.1f}; "
        f"two hands of two deals {2 * statistics.pvariance(normal):.1f}, "
        f"of one deal's rotation {statistics.pvariance(rotation):.1f}"
    )
    print(f"variance cut {cut:.1%} (95% {cut_low:.1%} to {cut_high:.1%}); target >= 50%")
    mean = statistics.fmean(_diffs(mixed)[0])
    need_normal, need_duplicate = hands_needed(mixed)
    ratio = hands_ratio(mixed)
    ratio_low, ratio_high = interval(mixed, hands_ratio, args.boot, args.seed + 1)
    print(
        f"expert - skilled: {mean:+.2f} points a hand; hands to tell them apart at 95%: "
        f"normal {need_normal:.0f}, duplicate {need_duplicate:.0f}"
    )
    print(f"hands ratio {ratio:.2f} (95% {ratio_low:.2f} to {ratio_high:.2f}); target >= 2")
    print(f"duplicate hands={hands} variance_cut={cut:.3f} hands_ratio={ratio:.2f}")


if __name__ == "__main__":
    main()
