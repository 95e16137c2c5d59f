"""``bench/rating_ceiling.py``: the floor of log-loss that ``bench/rating.py`` sets
beside the rating's own (issue 26). Checked on matches drawn from a known Plackett-Luce
model, where the right answers are known."""

from __future__ import annotations

import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[2] / "bench"))

from rating_ceiling import Traits, ceiling, fit_weights

TRUE_A, TRUE_B = -2.0, -6.0


@dataclass(frozen=True)
class Game:
    ids: tuple[int, ...]
    places: tuple[int, ...]


def draw(rng: random.Random) -> Traits:
    return math.exp(rng.uniform(math.log(350), math.log(2500))), rng.uniform(0.01, 0.3)


def strength(traits: Traits) -> float:
    return TRUE_A * math.log(traits[0]) + TRUE_B * traits[1]


def league(people: int, each: int, seed: int) -> tuple[list[Traits], list[Game]]:
    """``people`` drawn, each at about ``each`` tables of 2-5, places drawn from the
    Plackett-Luce model of their true strengths (no ties)."""
    rng = random.Random(seed)
    traits = [draw(rng) for _ in range(people)]
    games = []
    for _ in range(each * people // 3):
        ids = tuple(rng.sample(range(people), rng.randint(2, 5)))
        left, places = list(range(len(ids))), [0] * len(ids)
        for place in range(len(ids)):
            pick = rng.choices(left, weights=[math.exp(strength(traits[ids[i]])) for i in left])
            places[pick[0]] = place
            left.remove(pick[0])
        games.append(Game(ids, tuple(places)))
    return traits, games


def uniform_loss(games: list[Game]) -> float:
    return sum(math.lgamma(len(g.ids) + 1) for g in games) / len(games)


def test_the_fitted_weights_find_the_model_the_matches_came_from() -> None:
    traits, games = league(150, 30, seed=1)
    a, b = fit_weights(games, traits)
    assert abs(a - TRUE_A) < 0.5 and abs(b - TRUE_B) < 3.0, (a, b)


def test_knowing_beats_learning_and_learning_beats_a_guess() -> None:
    traits, games = league(120, 20, seed=2)
    floor = ceiling(games, traits, draw, seed=3)
    guess = uniform_loss(games)
    # Knowing every strength from the first match is the lowest; the learner, which
    # starts knowing nobody, lies between it and a blind guess over the orders.
    assert floor.knowing < floor.predictive < guess
    assert floor.knowing < floor.plug_in < guess
    # The learner learns: it takes a clear share of the gap to knowing.
    assert guess - floor.predictive > 0.3 * (guess - floor.knowing)
