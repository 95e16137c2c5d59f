"""The simplest sensible policy: a reference for benchmarks and the terminal demo.

Foundation first, then the Nertz card, then the waste, else turn the stock. It looks
only at a seat's legal moves, which depend only on what that seat can see.
"""

from __future__ import annotations

from collections.abc import Sequence

from nertz.engine import NERTZ, WASTE, Kind, Move


def greedy_move(moves: Sequence[Move]) -> Move | None:
    """Pick a move from ``moves`` (a seat's legal moves), or None to wait.

    Order: any card to the middle (the Nertz card first), then the Nertz card onto a
    work pile, then the waste card onto a work pile, else turn the stock.
    """
    best: Move | None = None
    best_rank = 9
    for move in moves:
        kind = move.kind
        if kind is Kind.FOUNDATION:
            if move.src == NERTZ:
                return move  # nothing beats the Nertz card to the middle
            rank = 1
        elif kind is Kind.CALL:
            return move
        elif kind is Kind.TURN:
            rank = 4
        elif move.src == NERTZ and kind is not Kind.STUCK:
            rank = 2
        elif move.src == WASTE and kind is not Kind.STUCK:
            rank = 3
        else:
            continue
        if rank < best_rank:
            best, best_rank = move, rank
    return best
