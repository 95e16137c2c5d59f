"""The figures a run produces, per seat and per table (docs/simulate.md).

Win share counts a shared win (R32, ``tie_break`` share) as ``1/k`` of a win for each
of the ``k`` winners. Its 95% interval is the Wilson score interval for a proportion,
which behaves at shares near 0 and 1 where the normal approximation does not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from nertz.engine import OPTIONS

from .runner import MatchResult, Setup, seat_labels, spec_text

__all__ = ["SeatStats", "Summary", "TableStats", "summarize", "wilson"]

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` out of ``n`` (0 to 1 when n is 0)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True, slots=True)
class SeatStats:
    """One seat over the whole run; means are per hand."""

    seat: int
    label: str
    level: str
    style: str
    wins: float
    """Matches won, shared wins counted as fractions."""
    win_share: float
    win_low: float
    win_high: float
    mean_score: float
    mean_middle: float
    """Mean cards sent to the middle per hand (R29)."""
    mean_nertz_left: float
    calls: int
    """Hands this seat ended by calling (R27)."""
    races_lost: int
    """Plays refused because another card got there first (R16)."""
    ties: int
    """Cards that landed in a true tie (R16)."""
    jokers_announced: int = 0
    """Jokers this seat announced for the middle (R41); 0 with jokers off."""
    jokers_landed: int = 0
    jokers_stayed: int = 0
    """Announced jokers that stayed home: the real card got there first (R41)."""
    answers: int = 0
    """Real cards this seat played in time to send another seat's joker home (R41)."""
    partner: str | None = None
    """R40: the seat's second bot (``level:style``), the one that turns the stock."""
    stock_turn_share: float | None = None
    """R40: the share of the seat's stock turns made by that stock partner."""


@dataclass(frozen=True, slots=True)
class TableStats:
    """The table over the whole run."""

    matches: int
    hands: int
    mean_hand_s: float
    """Mean virtual seconds from Go to the end of a hand."""
    hands_per_match: float
    rotations_per_hand: float
    blocked_share: float
    """Share of hands that ended blocked, with no call (R26)."""
    bad_refusals: int
    """Refusals other than a lost race or a late play: bot bugs; 0 expected."""
    hand_s_sd: float = 0.0
    """Standard deviation of a hand's length in virtual seconds (its se: ``/ sqrt(hands)``)."""
    jokers_per_hand: float = 0.0
    """Jokers announced for the middle per hand, all seats together (R41)."""
    jokers_stayed_share: float = 0.0
    """Share of announced jokers that stayed home (R41)."""
    partner_clashes: int = 0
    """R40: a partner's move refused because the other partner's card changed the
    layout first (both meant the one empty space, say); 0 without partnerships."""


@dataclass(frozen=True, slots=True)
class Summary:
    """Everything ``nertz simulate`` reports; ``as_json`` is what ``--json`` writes."""

    setup: Setup
    seats: tuple[SeatStats, ...]
    table: TableStats

    def as_json(self) -> dict[str, Any]:
        return {
            "seats_spec": [
                spec_text(i, self.setup.seats, self.setup.partners)
                for i in range(len(self.setup.seats))
            ],
            "rules": {  # what a simulated table plays by: no network, no delays
                name: value
                for name, value in self.setup.rules.as_dict().items()
                if not OPTIONS[name].network
            },
            "seed": self.setup.seed,
            "seats": [asdict(s) for s in self.seats],
            "table": asdict(self.table),
        }


def summarize(setup: Setup, results: Sequence[MatchResult]) -> Summary:
    """Reduce a run's match results to the reported figures."""
    n = len(setup.seats)
    wins = [0.0] * n
    score = [0] * n
    middle = [0] * n
    left = [0] * n
    calls = [0] * n
    races = [0] * n
    ties = [0] * n
    # Jokers announced, landed, stayed home, and answers, per seat (R41).
    jokers = [[0] * n for _ in range(4)]
    hands = length = rotations = blocked = bad = clashes = 0
    squares = 0.0
    paired = bool(setup.partners)
    turns = [[0, 0] for _ in range(n)]
    for match in results:
        for seat in match.winners:
            wins[seat] += 1 / len(match.winners)
        for hand in match.hands:
            hands += 1
            length += hand.length_ms
            squares += (hand.length_ms / 1000) ** 2
            rotations += hand.rotations
            blocked += hand.blocked
            bad += len(hand.bad)
            clashes += sum(hand.clashes)
            if paired:
                for s in range(n):
                    turns[s][0] += hand.turns[2 * s]
                    turns[s][1] += hand.turns[2 * s + 1]
            if hand.caller is not None:
                calls[hand.caller] += 1
            for s in range(n):
                score[s] += hand.scores[s]
                middle[s] += hand.middle[s]
                left[s] += hand.nertz_left[s]
                races[s] += hand.races_lost[s]
                ties[s] += hand.ties[s]
            if hand.jokers_announced:
                for row, counts in zip(
                    jokers,
                    (hand.jokers_announced, hand.jokers_landed, hand.jokers_stayed, hand.answers),
                ):
                    for s in range(n):
                        row[s] += counts[s]
    matches = len(results)
    per_hand = max(1, hands)
    labels = seat_labels(setup.seats, setup.partners)
    seats = []
    for s, spec in enumerate(setup.seats):
        low, high = wilson(wins[s], matches)
        seats.append(
            SeatStats(
                seat=s + 1,
                label=labels[s],
                level=spec.level,
                style=spec.style,
                wins=round(wins[s], 6),
                win_share=wins[s] / matches if matches else 0.0,
                win_low=low,
                win_high=high,
                mean_score=score[s] / per_hand,
                mean_middle=middle[s] / per_hand,
                mean_nertz_left=left[s] / per_hand,
                calls=calls[s],
                races_lost=races[s],
                ties=ties[s],
                jokers_announced=jokers[0][s],
                jokers_landed=jokers[1][s],
                jokers_stayed=jokers[2][s],
                answers=jokers[3][s],
                partner=str(setup.partners[s]) if paired else None,
                stock_turn_share=turns[s][1] / max(1, sum(turns[s])) if paired else None,
            )
        )
    table = TableStats(
        matches=matches,
        hands=hands,
        mean_hand_s=length / per_hand / 1000,
        hands_per_match=hands / matches if matches else 0.0,
        rotations_per_hand=rotations / per_hand,
        blocked_share=blocked / per_hand,
        bad_refusals=bad,
        hand_s_sd=math.sqrt(max(0.0, squares / per_hand - (length / per_hand / 1000) ** 2)),
        jokers_per_hand=sum(jokers[0]) / per_hand,
        jokers_stayed_share=sum(jokers[2]) / max(1, sum(jokers[0])),
        partner_clashes=clashes,
    )
    return Summary(setup, tuple(seats), table)
