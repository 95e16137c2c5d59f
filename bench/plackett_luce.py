"""The Plackett-Luce probability of a finishing order: how ``bench/rating.py`` and
``bench/rating_ceiling.py`` turn strengths into a forecast of a match (issue 26)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence


def logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def order_log_probability(strengths: Sequence[float], order: Sequence[int]) -> float:
    """Plackett-Luce log-probability of ``order`` (each seat's place; equal places tie)
    with weights ``exp(strengths)``: the first place goes to ``i`` with probability
    ``w_i / sum(w)``, the next among the rest, and so on; a tie's players take their
    places in any order (the sum over their orders)."""
    left = list(range(len(strengths)))
    total = 0.0
    for place in sorted(set(order)):
        group = [i for i in left if order[i] == place]
        ways = []
        for perm in itertools.permutations(group):
            rest, q = list(left), 0.0
            for i in perm:
                q += strengths[i] - logsumexp([strengths[j] for j in rest])
                rest.remove(i)
            ways.append(q)
        total += logsumexp(ways)
        left = [i for i in left if order[i] != place]
    return total
