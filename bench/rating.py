"""Rated play, measured (issue 26): does the rating find skill, and how long does quick
match make people wait? Figures in docs/performance.md ("Ratings"), thresholds and the
bots' ratings in docs/rating.md.

Simulated people are bots of continuous strength: each one's pace (the mean delay of a
card move, log-uniform from 350 ms to 2.5 s, the range from the ``demon`` level to the
``beginner``) and overlook rate (uniform from 1% to 30%) drawn on their own; every other
trait is the ``skilled`` level's. They play the rated preset (``nertz.rating.RATED_PRESET``,
one hand) in the simulator's virtual time (``nertz.sim.table.play_hand``).

1. **True strength**: a person's expected share of opponents beaten in a four-seat hand
   against three ``skilled`` bots (ties half). Measured by simulation on a grid of paces
   and overlook rates (the same deals at every point) and read for each person by
   bilinear interpolation in (log pace, overlook): smooth, so the measure's own noise
   does not blur the comparison.
2. **Calibration run** (its own players and seed): 300 people and three bots of each
   level, tables of 2-6 drawn at random, 20 matches each. It picks the Elo baseline's
   K (the best log-loss on a grid) and measures each bot level's rating (the mean ``mu``
   of its three, published as ``nertz.rating.BOT_RATINGS``). The rating's thresholds
   are constants of ``nertz.rating`` fixed before any run.
3. **Measured run**: 1,000 people, tables of 2-6 drawn at random, 20 matches each.
   ``spearman``: Spearman's correlation of true strength and final rating (``mu``).
   ``logloss_gain``: 1 - (log-loss of OpenSkill) / (log-loss of Elo), each predicting
   every match's order from the ratings before it. Both turn ratings into an order's
   probability the same way, Plackett-Luce: the first place goes to ``i`` with
   probability ``w_i / sum(w)``, the next among the rest, and so on; a tie's players
   take their places in any order (the sum over their orders). OpenSkill's weights are
   ``exp(mu / c)`` with ``c^2 = sum(sigma^2 + beta^2)`` over the table (its own
   Plackett-Luce model); Elo's ``10^(R / 400)``, whose two-player case is Elo's
   expected score. Elo is Board Game Arena's pairwise method: a table of ``n`` is
   ``n(n-1)/2`` duels, each player changing by ``K / (n-1)`` times the sum of (result -
   expected) over its duels (win 1, tie 1/2, loss 0).
   **The ceiling** (``bench/rating_ceiling.py``): the same matches forecast by two who
   know more than a rating can, knowing every strength from the start and the ideal
   learner; how far below Elo any rating could go.
4. **Established within five four-seat matches**: 200 new people in 5 rounds of
   four-seat tables among themselves; the share established after them.
5. **Quick match**: arrivals (Poisson) at 1, 10 and 100 a minute of people drawn from
   the measured run's final ratings, each asking for 2-4 seats, through
   ``nertz.rating.pair`` ticked once a second: the wait's p95, the rating spread at
   each table (points), and the share of bot seats.

95% intervals: bootstrap (1,000 resamples of players, matches or waits). Run time: a
few minutes on one core; ``--quick`` is a small smoke run for the tests.
Last line: ``rating spearman=X established_5=X logloss_gain=X wait_p95_s=X``.
"""

from __future__ import annotations

import argparse
import functools
import math
import multiprocessing
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from plackett_luce import order_log_probability
from rating_ceiling import ceiling

from nertz.bots import LEVELS, Bot, Level
from nertz.engine import Match, SeatScore
from nertz.rating import (
    BOT_RATINGS,
    POLICY,
    Entry,
    MatchResult,
    Rating,
    Side,
    established,
    pair,
    places,
    points,
    rate,
    rated_rules,
)
from nertz.sim.table import play_hand

RULES = rated_rules()
SKILLED = LEVELS["skilled"]
PACE = (350.0, 2500.0)
OVERLOOK = (0.01, 0.30)
ELO_K = (16, 32, 64, 96, 128, 192, 256, 384, 512)
ELO_SCALES = (50, 75, 100, 125, 150, 174, 200, 250, 300, 400, 600)
"""Elo points per unit of log-strength; 400 / ln 10 = 174 is Elo's own."""
SKILL_SCALES = (0.5, 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 14, 20)
"""OpenSkill mu per unit of log-strength."""


def person(card_ms: float, overlook: float) -> Level:
    """A simulated person: ``skilled`` but for their pace and overlook rate."""
    card = round(card_ms)
    return Level(
        "person",
        card,
        max(1, round(card * SKILLED.turn_ms / SKILLED.card_ms)),
        SKILLED.spread,
        max(100, round(card * SKILLED.floor_ms / SKILLED.card_ms)),
        overlook,
        SKILLED.plan,
        SKILLED.patience,
    )


def draw_person(rng: random.Random) -> tuple[float, float]:
    pace = math.exp(rng.uniform(math.log(PACE[0]), math.log(PACE[1])))
    return pace, rng.uniform(*OVERLOOK)


def seed_of(*parts: object) -> int:
    return random.Random(":".join(map(str, parts))).getrandbits(48)


def play(levels: Sequence[Level], seed: int) -> tuple[int, ...]:
    """One rated match (the rated preset: one hand) of ``levels``: each seat's place."""
    bots = [Bot(seat, lvl, "balanced", seed_of(seed, seat)) for seat, lvl in enumerate(levels)]
    hand = play_hand(bots, RULES, seed)
    match = Match(len(levels), RULES)
    match.record(
        [
            SeatScore(m, left, score - (m - RULES.penalty * left), score)
            for score, m, left in zip(hand.scores, hand.middle, hand.nertz_left)
        ],
        hand.caller,
    )
    return places(match.totals, match.winners)


# ---------------------------------------------------------------------- true strength


def share_beaten(order: Sequence[int], me: int) -> float:
    others = [p for i, p in enumerate(order) if i != me]
    return sum(1.0 if p > order[me] else 0.5 if p == order[me] else 0.0 for p in others) / len(
        others
    )


def strength_grid(size: tuple[int, int], hands: int) -> Callable[[float, float], float]:
    """True strength (the module's docstring): measured on a grid, interpolated."""
    paces = [
        math.exp(math.log(PACE[0]) + (math.log(PACE[1]) - math.log(PACE[0])) * i / (size[0] - 1))
        for i in range(size[0])
    ]
    looks = [OVERLOOK[0] + (OVERLOOK[1] - OVERLOOK[0]) * j / (size[1] - 1) for j in range(size[1])]
    tasks: list[Task] = [
        ((person(p, o), SKILLED, SKILLED, SKILLED), seed_of("ref", h))
        for p in paces
        for o in looks
        for h in range(hands)
    ]
    found = iter(play_all(tasks))
    grid = [
        [sum(share_beaten(next(found), 0) for _ in range(hands)) / hands for _ in looks]
        for _ in paces
    ]
    logs = [math.log(p) for p in paces]

    def at(pace: float, overlook: float) -> float:
        x = min(max(math.log(pace), logs[0]), logs[-1])
        y = min(max(overlook, looks[0]), looks[-1])
        i = min(size[0] - 2, max(0, int((x - logs[0]) / (logs[1] - logs[0]))))
        j = min(size[1] - 2, max(0, int((y - looks[0]) / (looks[1] - looks[0]))))
        fx = (x - logs[i]) / (logs[i + 1] - logs[i])
        fy = (y - looks[j]) / (looks[j + 1] - looks[j])
        return (
            grid[i][j] * (1 - fx) * (1 - fy)
            + grid[i + 1][j] * fx * (1 - fy)
            + grid[i][j + 1] * (1 - fx) * fy
            + grid[i + 1][j + 1] * fx * fy
        )

    return at


# ---------------------------------------------------------------------- leagues


@dataclass(frozen=True, slots=True)
class Game:
    ids: tuple[int, ...]
    places: tuple[int, ...]


Task = tuple[tuple[Level, ...], int]
"""One match to play: its seats' levels and its seed."""


def _play(task: Task) -> tuple[int, ...]:
    return play(*task)


MAP: Callable[[Callable[[Task], tuple[int, ...]], list[Task]], Iterable[tuple[int, ...]]] = map
"""How the matches are played: one after another, or over ``--jobs`` processes."""


def play_all(tasks: list[Task]) -> list[tuple[int, ...]]:
    """Each task's places (``play``), in order, with ``MAP``."""
    return list(MAP(_play, tasks))


def league(
    levels: Sequence[Level], each: int, seed: int, sizes: tuple[int, int] = (2, 6)
) -> list[Game]:
    """Everyone plays ``each`` matches at tables of sizes drawn from ``sizes``, in rounds
    of random tables among those who still have matches to play."""
    rng = random.Random(seed)
    played = [0] * len(levels)
    tables: list[tuple[int, ...]] = []
    while True:
        pool = [i for i, n in enumerate(played) if n < each]
        if len(pool) < 2:
            break
        rng.shuffle(pool)
        while len(pool) >= 2:
            n = min(len(pool), rng.randint(*sizes))
            ids, pool = tuple(pool[:n]), pool[n:]
            tables.append(ids)
            for i in ids:
                played[i] += 1
    tasks = [(tuple(levels[i] for i in ids), seed_of(seed, t)) for t, ids in enumerate(tables)]
    return [Game(ids, found) for ids, found in zip(tables, play_all(tasks))]


def skill_fold(games: Sequence[Game], count: int) -> tuple[list[Rating], list[list[float]]]:
    """OpenSkill over ``games`` (solo): the final ratings, and each game's players'
    ``mu`` before it (what predicts it)."""
    ratings: dict[str, Rating] = {}
    befores = []
    for n, g in enumerate(games):
        befores.append([ratings.get(str(i), Rating()).mu for i in g.ids])
        sides = tuple(Side(p, (str(i),)) for i, p in zip(g.ids, g.places))
        ratings = dict(rate(ratings, MatchResult(str(n), "solo", 0.0, sides)).ratings)
    return [ratings.get(str(i), Rating()) for i in range(count)], befores


def log_losses(games: Sequence[Game], befores: Sequence[list[float]], scale: float) -> list[float]:
    """Each game's log-loss: its order under Plackett-Luce with weights
    ``exp(rating / scale)`` from the ratings before it."""
    out = []
    for g, before in zip(games, befores):
        out.append(-order_log_probability([x / scale for x in before], g.places))
    return out


def best_scale(
    games: Sequence[Game], befores: Sequence[list[float]], grid: Sequence[float]
) -> tuple[float, float]:
    """The scale of ``grid`` with the least mean log-loss, and that loss."""
    losses = {s: sum(log_losses(games, befores, s)) / len(games) for s in grid}
    scale = min(losses, key=lambda s: losses[s])
    return scale, losses[scale]


def elo_changes(r: Sequence[float], places: Sequence[int], k: float) -> list[float]:
    """Board Game Arena's pairwise Elo for one table: each player's change."""
    n = len(r)
    out = []
    for a in range(n):
        delta = 0.0
        for b in range(n):
            if b != a:
                expected = 1 / (1 + 10 ** ((r[b] - r[a]) / 400))
                won = places[a] < places[b]
                delta += (1.0 if won else 0.5 if places[a] == places[b] else 0.0) - expected
        out.append(k * delta / (n - 1))
    return out


def elo_fold(games: Sequence[Game], count: int, k: float) -> tuple[list[float], list[list[float]]]:
    """Pairwise Elo (Board Game Arena's): the final ratings and each game's players'
    ratings before it."""
    elo = [1500.0] * count
    befores = []
    for g in games:
        r = [elo[i] for i in g.ids]
        befores.append(r)
        for i, change in zip(g.ids, elo_changes(r, g.places, k)):
            elo[i] += change
    return elo, befores


# ---------------------------------------------------------------------- statistics


def ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2
        i = j + 1
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    var = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return cov / var if var else 0.0


def quantile(values: Sequence[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def interval(
    stat: Callable[[list[int]], float], n: int, rng: random.Random, times: int = 1000
) -> tuple[float, float]:
    """A bootstrap 95% interval of ``stat`` over ``n`` items (``stat`` takes indices)."""
    draws = sorted(stat([rng.randrange(n) for _ in range(n)]) for _ in range(times))
    return draws[int(0.025 * times)], draws[int(0.975 * times) - 1]


# ---------------------------------------------------------------------- quick match


@dataclass(frozen=True, slots=True)
class Queued:
    waits: list[float]
    spreads: list[float]
    bot_seats: int
    seats: int
    tables: int


def queue(per_minute: float, minutes: float, mus: Sequence[float], seed: int) -> Queued:
    """Arrivals at ``per_minute`` for ``minutes`` through ``pair``, ticked each second."""
    rng = random.Random(seed)
    arrivals = []
    t = rng.expovariate(per_minute / 60)
    while t < minutes * 60:
        arrivals.append(t)
        t += rng.expovariate(per_minute / 60)
    waiting: dict[str, Entry] = {}
    waits, spreads = [], []
    bots = seats = tables = 0
    nxt = 0
    now = 0.0
    end = minutes * 60 + POLICY.bots_after_s + 5
    while now <= end:
        while nxt < len(arrivals) and arrivals[nxt] <= now:
            key = f"q{nxt}"
            waiting[key] = Entry(key, rng.choice(mus), "solo", arrivals[nxt])
            nxt += 1
        for made in pair(list(waiting.values()), now):
            people = [waiting.pop(k) for k in made.keys]
            waits += [now - e.entered for e in people]
            shown = [points(Rating(e.mu)) for e in people]
            spreads.append(float(max(shown) - min(shown)))
            bots += len(made.bots)
            seats += len(made.bots) + len(people)
            tables += 1
        now += 1.0
    return Queued(waits, spreads, bots, seats, tables)


# ---------------------------------------------------------------------- the run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a small smoke run (tests)")
    parser.add_argument(
        "--seed", type=int, default=2026, help="the run's seed (calibration and measured)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes to play matches in")
    parser.add_argument("--people", type=int, default=0, help="the measured run's size (1000)")
    args = parser.parse_args()
    global MAP
    if args.jobs > 1:
        workers = multiprocessing.Pool(args.jobs)
        MAP = functools.partial(workers.imap, chunksize=16)
    began = time.perf_counter()
    quick = args.quick
    people, calib_people, cohort = (60, 40, 24) if quick else (1000, 300, 200)
    each = 6 if quick else 20
    people = args.people or people
    grid, grid_hands = ((3, 3), 4) if quick else ((7, 6), 30)
    boot = random.Random(args.seed)

    strength = strength_grid(grid, grid_hands)
    print(f"true strength: a {grid[0]}x{grid[1]} grid, {grid_hands} hands a point")

    # Calibration: its own people and seed; three bots of each level among them.
    rng = random.Random(f"calibration:{args.seed}")
    calib = [person(*draw_person(rng)) for _ in range(calib_people)]
    bot_ids: dict[str, list[int]] = {level: [] for level in LEVELS}
    for level in LEVELS:
        for _ in range(3):
            bot_ids[level].append(len(calib))
            calib.append(LEVELS[level])
    calib_games = league(calib, each, seed_of("calibration", args.seed))
    calib_ratings, calib_mu = skill_fold(calib_games, len(calib))
    skill_scale, skill_loss = best_scale(calib_games, calib_mu, SKILL_SCALES)
    elo_fits = {
        k: best_scale(calib_games, elo_fold(calib_games, len(calib), k)[1], ELO_SCALES)
        for k in ELO_K
    }
    best_k = min(elo_fits, key=lambda k: elo_fits[k][1])
    elo_scale = elo_fits[best_k][0]
    print(
        f"calibration: {len(calib)} people and bots, {len(calib_games)} matches;"
        f" OpenSkill scale {skill_scale} (log-loss {skill_loss:.4f}); Elo log-loss by K:"
        f" {', '.join(f'{k}={v[1]:.4f}' for k, v in elo_fits.items())}; K={best_k},"
        f" scale {elo_scale}"
    )
    for level, ids in bot_ids.items():
        mu = sum(calib_ratings[i].mu for i in ids) / len(ids)
        fixed = BOT_RATINGS[level][0]
        print(f"bot {level}: calibrated mu={mu:.2f} (published {fixed:.2f})")

    # The measured run.
    rng = random.Random(f"measured:{args.seed}")
    drawn = [draw_person(rng) for _ in range(people)]
    levels = [person(*d) for d in drawn]
    true = [strength(*d) for d in drawn]
    games = league(levels, each, seed_of("measured", args.seed))
    final, measured_mu = skill_fold(games, people)
    skill_losses = log_losses(games, measured_mu, skill_scale)
    elo_final, elo_before = elo_fold(games, people, best_k)
    elo_losses = log_losses(games, elo_before, elo_scale)
    mus = [r.mu for r in final]
    rho = spearman(true, mus)
    rho_ci = interval(
        lambda idx: spearman([true[i] for i in idx], [mus[i] for i in idx]), people, boot
    )

    def gain(idx: list[int]) -> float:
        return 1 - sum(skill_losses[i] for i in idx) / sum(elo_losses[i] for i in idx)

    every = list(range(len(games)))
    g, g_ci = gain(every), interval(gain, len(games), boot)
    per_person = sum(len(x.ids) for x in games) / people
    print(
        f"measured: {people} people, {len(games)} matches ({per_person:.1f} each), tables"
        f" {min(len(x.ids) for x in games)}-{max(len(x.ids) for x in games)}"
    )
    print(f"spearman(true strength, mu)={rho:.3f} [{rho_ci[0]:.3f}, {rho_ci[1]:.3f}]")
    print(
        f"log-loss per match: OpenSkill {sum(skill_losses) / len(games):.4f}, Elo(K={best_k})"
        f" {sum(elo_losses) / len(games):.4f}; gain={g:.3f} [{g_ci[0]:.3f}, {g_ci[1]:.3f}]"
    )
    # What any rating could reach on these matches (bench/rating_ceiling.py).
    elo_mean = sum(elo_losses) / len(games)
    floor = ceiling(games, drawn, draw_person, seed_of("ceiling", args.seed))
    print(
        f"ceiling: knowing every strength {floor.knowing:.4f} (gain"
        f" {1 - floor.knowing / elo_mean:.3f}); the ideal learner {floor.predictive:.4f}"
        f" (gain {1 - floor.predictive / elo_mean:.3f}), at its posterior means"
        f" {floor.plug_in:.4f} (gain {1 - floor.plug_in / elo_mean:.3f})"
    )

    # Established within five four-seat matches: newcomers joining the measured field,
    # each at five tables with three of its people (their final ratings).
    rng = random.Random(f"cohort:{args.seed}")
    newcomers = [person(*draw_person(rng)) for _ in range(cohort)]
    field = {str(i): r for i, r in enumerate(final)}
    seated = [[tuple(rng.sample(range(people), 3)) for _ in range(5)] for _ in newcomers]
    tasks = [
        ((newcomer, *(levels[i] for i in ids)), seed_of("cohort", args.seed, c, n))
        for c, newcomer in enumerate(newcomers)
        for n, ids in enumerate(seated[c])
    ]
    found_all = iter(play_all(tasks))
    settled = []
    sigmas = []
    new_games: list[Game] = []
    new_skill: list[list[float]] = []
    new_elo: list[list[float]] = []
    for c in range(cohort):
        ratings = dict(field)
        elo = {str(i): e for i, e in enumerate(elo_final)} | {"new": 1500.0}
        for ids in seated[c]:
            found = next(found_all)
            keys = ["new", *(str(i) for i in ids)]
            new_games.append(Game(tuple(range(4)), found))
            new_skill.append([ratings.get(k, Rating()).mu for k in keys])
            new_elo.append([elo[k] for k in keys])
            for k, change in zip(keys, elo_changes(new_elo[-1], found, best_k)):
                elo[k] += change
            others = [Side(p, (str(i),)) for i, p in zip(ids, found[1:])]
            sides = (Side(found[0], ("new",)), *others)
            ratings = dict(rate(ratings, MatchResult("c", "solo", 0.0, sides)).ratings)
        settled.append(1.0 if established(ratings["new"]) else 0.0)
        sigmas.append(ratings["new"].sigma)
    est = sum(settled) / cohort
    est_ci = interval(lambda idx: sum(settled[i] for i in idx) / len(idx), cohort, boot)
    sigmas.sort()
    print(
        f"established after 5 four-seat matches: {est:.3f} [{est_ci[0]:.3f}, {est_ci[1]:.3f}]"
        f" (sigma median {sigmas[len(sigmas) // 2]:.2f}, max {sigmas[-1]:.2f})"
    )
    new_s = log_losses(new_games, new_skill, skill_scale)
    new_e = log_losses(new_games, new_elo, elo_scale)

    def new_gain(idx: list[int]) -> float:
        return 1 - sum(new_s[i] for i in idx) / sum(new_e[i] for i in idx)

    ng, ng_ci = new_gain(list(range(len(new_games)))), interval(new_gain, len(new_games), boot)
    print(
        f"newcomers' matches: log-loss OpenSkill {sum(new_s) / len(new_s):.4f}, Elo"
        f" {sum(new_e) / len(new_e):.4f}; gain={ng:.3f} [{ng_ci[0]:.3f}, {ng_ci[1]:.3f}]"
    )

    # Quick match.
    worst = 0.0
    for per_minute, minutes in ((1, 300), (10, 60), (100, 15)):
        if quick:
            minutes = max(5, minutes // 10)
        q = queue(per_minute, minutes, mus, seed_of("queue", args.seed, per_minute))
        p95 = quantile(q.waits, 0.95)
        worst = max(worst, p95)
        waits = q.waits
        w_ci = interval(lambda idx, w=waits: quantile([w[i] for i in idx], 0.95), len(waits), boot)
        share = q.bot_seats / q.seats
        print(
            f"quick match at {per_minute}/min for {minutes} min: {len(q.waits)} people,"
            f" {q.tables} tables; wait p95 {p95:.0f} s [{w_ci[0]:.0f}, {w_ci[1]:.0f}],"
            f" median {quantile(q.waits, 0.5):.0f} s; spread median"
            f" {quantile(q.spreads, 0.5):.0f} p95 {quantile(q.spreads, 0.95):.0f} points;"
            f" bot seats {share:.3f}"
        )
    print(f"run time {time.perf_counter() - began:.0f} s")
    print(
        f"rating spearman={rho:.3f} established_5={est:.3f} logloss_gain={g:.3f}"
        f" wait_p95_s={worst:.0f}"
    )


if __name__ == "__main__":
    main()
