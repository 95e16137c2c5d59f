"""What a seat may see: the only way state leaves the engine.

``view(hand, seat)`` and ``spectator_view(hand)`` return plain JSON-ready dicts. Face-down
cards appear as counts only, even to their owner: the Nertz pile shows its top card
and its size (R4), the stock its size (R6), the waste only the cards of the last turn
that still lie on it (R21). Deck seeds never appear, and neither does whether a seat is
blocked: that depends on the stock's order (R24).

Jokers show as ``JK1`` and ``JK2`` (R41). What each one stands for is shown beside it:
``pinned`` runs parallel to ``work`` (words such as ``red 6`` for a pinned joker, else
null), a foundation's ``top_as`` is the card its top joker stands for (else null), and
``announcements`` lists the jokers announced for the middle whose window is open.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .hand import Hand
from .jokers import describe, pin
from .layout import SeatLayout
from .rules import Rules

__all__ = ["spectator_view", "view"]


def _seat(layout: SeatLayout, middle: int) -> dict[str, Any]:
    nertz, waste = layout.nertz, layout.waste
    return {
        "seat": layout.owner,
        "nertz_top": str(nertz[-1]) if nertz else None,
        "nertz_count": len(nertz),
        "work": [[str(c) for c in pile] for pile in layout.work],
        "pinned": [
            [describe(pin(pile, i)) if c.rank == 0 else None for i, c in enumerate(pile)]
            for pile in layout.work
        ],
        "stock_count": len(layout.stock),
        "waste_count": len(waste),
        "waste": [str(c) for c in waste[len(waste) - layout.fan :]] if layout.fan else [],
        "middle": middle,
        "stuck": layout.stuck,
    }


@cache
def _rules(rules: Rules) -> dict[str, Any]:
    return rules.as_dict()


def spectator_view(hand: Hand) -> dict[str, Any]:
    """The table as anyone watching sees it."""
    return {
        "phase": hand.phase.value,
        "now_ms": hand.now,
        "rules": dict(_rules(hand.rules)),
        "seats": [_seat(s, hand.middle[i]) for i, s in enumerate(hand.seats)],
        "foundations": [
            {
                "number": f.number + 1,
                "suit": f.suit.letter,
                "top": str(f.cards[-1]),
                "top_as": str(f.jokers[len(f.cards) - 1]) if f.cards[-1].rank == 0 else None,
                "count": len(f.cards),
                "owners": [c.owner for c in f.cards],
                "finished": f.finished,
            }
            for f in hand.foundations
        ],
        "announcements": [
            {
                "seat": a.seat,
                "move": a.move.text,
                "joker": str(a.joker),
                "as": str(a.move.announced),
                "foundation": a.foundation + 1 if a.foundation >= 0 else None,
                "until_ms": a.until_ms,
            }
            for a in hand.announcements
        ],
        "caller": hand.caller,
        "rotations": hand.rotations_total,
        "end": hand.end_reason.value if hand.end_reason else None,
        "scores": [s.as_dict() for s in hand.scores()],
    }


def view(hand: Hand, seat: int) -> dict[str, Any]:
    """What ``seat`` sees: the same public table, plus which seat is its own and what
    it may do now (its legal moves, in move notation)."""
    if not 0 <= seat < len(hand.seats):
        raise ValueError(f"there is no seat {seat} at this table of {len(hand.seats)}")
    out = spectator_view(hand)
    out["you"] = seat
    out["legal"] = [str(m) for m in hand.legal_moves(seat)]
    return out
