"""Duplicate Nertz at a table (option ``duplicate``, R42-R46): what everyone is told.

The engine's ``Match`` keeps the duplicate scores as exact fractions (a table of three
has thirds); the wire carries them as numbers rounded to two decimals, each total
rounded once from its exact sum (so a total is never off by the sum of roundings).
Where the rotation stands is public: which play of its deal a hand was (``rotation``,
``[k, n]``: the ``k``-th of ``n``). The rotation's deal itself (``TableContext.rotation``)
never leaves the table: its cards are face down.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from nertz.engine import Match, rotation_of

__all__ = ["hand_end_duplicate", "points", "public_duplicate"]


def points(value: Fraction) -> float:
    """A duplicate score as the wire carries it: rounded to two decimals."""
    return round(float(value), 2)


def _rotation(match: Match, hands: int) -> list[int]:
    """``[k, n]``: the ``hands``-th hand of the match (from 1) was play ``k`` of ``n`` of
    its deal (R42)."""
    return [rotation_of(hands - 1, match.seats)[1] + 1, match.seats]


def hand_end_duplicate(match: Match) -> dict[str, Any]:
    """The ``hand_end`` event's duplicate fields, after the hand just recorded (R44):
    ``rotation``; ``duplicate_deal``, each seat's duplicate score over the deal whose
    rotation this hand completed (absent mid-rotation); ``duplicate_totals``."""
    if not match.rules.duplicate or not match.hands:
        return {}
    out: dict[str, Any] = {
        "rotation": _rotation(match, len(match.hands)),
        "duplicate_totals": [points(t) for t in match.duplicate_totals],
    }
    if match.rotation_complete:
        deal = [Fraction(0)] * match.seats
        for hand in match.duplicate[-match.seats :]:
            for seat, value in enumerate(hand):
                deal[seat] += value or 0
        out["duplicate_deal"] = [points(v) for v in deal]
    return out


def public_duplicate(match: Match) -> dict[str, Any]:
    """The table's ``duplicate`` as every connection sees it (``Table.info``), empty
    when the option is off: the settled totals and where the rotation stands (the hand
    being played, or the next one: ``[k, n]``). Each event that changes them says how
    (``hand_end``, ``next_match``), so a page keeps them without asking."""
    if not match.rules.duplicate:
        return {}
    return {
        "duplicate": {
            "totals": [points(t) for t in match.duplicate_totals],
            "rotation": _rotation(match, len(match.hands) + 1),
        }
    }
