"""How well could any rating forecast these matches? Two forecasters that know more than
a rating can, for ``bench/rating.py`` (issue 26).

A rating sees only the results. These two are given what it is not, so their log-loss
is a floor no rating computed from the same results goes much below:

* **Knowing every strength.** Each simulated person's strength is a Plackett-Luce
  weight ``exp(a ln pace + b overlook)`` from their two drawn traits, with ``a`` and ``b``
  fitted to the very matches it forecasts (in-sample: the best such weights there are).
  It knows a person from their first match.
* **The ideal learner.** It knows that model (the same ``a`` and ``b``), how strengths
  are spread over the population (its prior), and the exact strength of every
  opponent; it learns each person's own strength from their results only, by Bayes'
  rule on a grid of strengths. It forecasts a match from its posteriors before it:
  ``predictive`` averages the Plackett-Luce probability over joint draws from them (the
  full Bayesian forecast), ``plug_in`` uses their means. Any rating learns from the same
  results knowing less (not the model, not the prior, not the opponents), so it cannot
  forecast better than this learner except by chance.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from plackett_luce import logsumexp, order_log_probability

GRID = 60
"""Points of the ideal learner's grid of strengths."""
DRAWS = 64
"""Joint draws from the posteriors per forecast (``predictive``)."""


class Played(Protocol):
    """One match: who sat (``ids``) and each seat's place (equal places tie)."""

    @property
    def ids(self) -> tuple[int, ...]: ...

    @property
    def places(self) -> tuple[int, ...]: ...


Traits = tuple[float, float]
"""A person's pace (mean ms a card) and overlook rate."""


def features(traits: Traits) -> tuple[float, float]:
    return math.log(traits[0]), traits[1]


def mean_log_loss(games: Sequence[Played], strengths: Sequence[float]) -> float:
    """The mean of -ln P(order) over ``games``, each person at a fixed strength."""
    total = 0.0
    for g in games:
        total -= order_log_probability([strengths[i] for i in g.ids], g.places)
    return total / len(games)


def _golden(f: Callable[[float], float], lo: float, hi: float, steps: int) -> float:
    """The minimum of a unimodal ``f`` on ``[lo, hi]`` by golden-section search."""
    ratio = (math.sqrt(5) - 1) / 2
    c, d = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fc, fd = f(c), f(d)
    for _ in range(steps):
        if fc < fd:
            hi, d, fd = d, c, fc
            c = hi - ratio * (hi - lo)
            fc = f(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + ratio * (hi - lo)
            fd = f(d)
    return (lo + hi) / 2


def fit_weights(games: Sequence[Played], traits: Sequence[Traits]) -> tuple[float, float]:
    """``(a, b)`` of ``exp(a ln pace + b overlook)`` with the least log-loss over
    ``games``: coordinate descent, golden-section on each (slower and more overlooking
    people are weaker, so both are negative)."""
    xs = [features(t) for t in traits]
    best = [-2.0, -2.0]

    def loss(k: int, v: float) -> float:
        a, b = (v, best[1]) if k == 0 else (best[0], v)
        return mean_log_loss(games, [a * x + b * y for x, y in xs])

    for _ in range(3):
        for k, (lo, hi) in enumerate(((-8.0, 0.0), (-30.0, 0.0))):
            best[k] = _golden(partial(loss, k), lo, hi, 18)
    return best[0], best[1]


@dataclass(frozen=True, slots=True)
class Ceiling:
    """The floors, as mean log-loss per match."""

    knowing: float
    """Knowing every person's strength from the start."""
    predictive: float
    """The ideal learner's full Bayesian forecast."""
    plug_in: float
    """The ideal learner's forecast at its posterior means."""


def _normalised(log_weights: Sequence[float]) -> list[float]:
    total = logsumexp(log_weights)
    return [math.exp(v - total) for v in log_weights]


def ceiling(
    games: Sequence[Played],
    traits: Sequence[Traits],
    draw: Callable[[random.Random], Traits],
    seed: int,
) -> Ceiling:
    """The two forecasters over ``games`` in their order (see the module docstring);
    ``draw`` draws a person's traits as the benchmark does (the learner's prior)."""
    a, b = fit_weights(games, traits)
    true = [a * x + b * y for x, y in map(features, traits)]
    rng = random.Random(seed)
    population = [a * x + b * y for x, y in (features(draw(rng)) for _ in range(50_000))]
    lo, hi = min(population), max(population)
    width = (hi - lo) / GRID
    grid = [lo + width * (k + 0.5) for k in range(GRID)]
    counts = [1e-9] * GRID
    for v in population:
        counts[min(GRID - 1, int((v - lo) / width))] += 1
    prior = [math.log(c / len(population)) for c in counts]
    posterior = [list(prior) for _ in traits]
    predictive = plug_in = 0.0
    for g in games:
        chances = [_normalised(posterior[i]) for i in g.ids]
        means = [sum(p * v for p, v in zip(c, grid)) for c in chances]
        plug_in -= order_log_probability(means, g.places)
        samples = [rng.choices(grid, weights=c, k=DRAWS) for c in chances]
        draws = [order_log_probability(joint, g.places) for joint in zip(*samples)]
        predictive -= logsumexp(draws) - math.log(DRAWS)  # the mean of the draws' P
        # Learn: each player's likelihood over the grid, every opponent at their truth.
        for seat, i in enumerate(g.ids):
            table = [true[j] for j in g.ids]
            for k, v in enumerate(grid):
                table[seat] = v
                posterior[i][k] += order_log_probability(table, g.places)
    return Ceiling(mean_log_loss(games, true), predictive / len(games), plug_in / len(games))
