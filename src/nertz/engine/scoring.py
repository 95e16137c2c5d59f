"""Hand scores (R29-R31).

Each seat scores +1 for each of its cards in the middle and loses ``penalty`` (2 by
default) for each card left in its Nertz pile; the caller adds ``caller_bonus``. Cards
on work piles, stock and waste score nothing. Scores may be negative.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .rules import Rules

__all__ = ["SeatScore", "hand_scores", "score"]


@dataclass(frozen=True, slots=True)
class SeatScore:
    """One seat's hand: the arithmetic and its result."""

    middle: int
    nertz_left: int
    bonus: int
    score: int

    def as_dict(self) -> dict[str, int]:
        """The JSON form views, events and score sheets carry."""
        return {
            "middle": self.middle,
            "nertz_left": self.nertz_left,
            "bonus": self.bonus,
            "score": self.score,
        }


def score(middle: int, nertz_left: int, called: bool, rules: Rules) -> SeatScore:
    """R30: ``middle - penalty * nertz_left``, plus the caller bonus for the caller."""
    bonus = rules.caller_bonus if called else 0
    return SeatScore(middle, nertz_left, bonus, middle - rules.penalty * nertz_left + bonus)


def hand_scores(
    middle: Sequence[int], nertz_left: Sequence[int], caller: int | None, rules: Rules
) -> tuple[SeatScore, ...]:
    """Every seat's score; ``caller`` is the seat that called, or None (R26)."""
    return tuple(
        score(m, n, seat == caller, rules) for seat, (m, n) in enumerate(zip(middle, nertz_left))
    )
