"""What working the Nertz pile first would have left: the seat's hand played again at
the seat's own pace by a policy that puts the Nertz pile before everything else.

The other seats' inputs are replayed at their own times; the seat's own inputs keep
their times but each becomes the move the Nertz-first policy picks then (one move per
input, so the pace is the player's). The middle therefore moves as it did, save for the
seat's own cards: another seat's play that the changed middle no longer takes is
dropped (counted in ``others_refused``), so the figure is an estimate, closest when
that count is small. R29: each Nertz card left counts twice against the seat, which is
why emptying the pile first is the first thing players are taught.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nertz.engine import NERTZ, WASTE, Hand, HandText, Kind, Move, Rules
from nertz.engine.replay import apply

__all__ = ["NertzFirst", "nertz_first", "nertz_first_move"]


@dataclass(frozen=True, slots=True)
class NertzFirst:
    """The seat's Nertz cards left as played (``left``) and had it worked the Nertz
    pile first at the same pace (``first_left``), whether it would then have called
    Nertz (R28), and how many other seats' inputs the changed middle refused."""

    left: int
    first_left: int
    first_called: bool
    others_refused: int

    @property
    def could_have_played(self) -> int:
        """Nertz cards the seat left that working the pile first would have played."""
        return max(0, self.left - self.first_left)

    def as_dict(self) -> dict[str, object]:
        """Plain data for the wire."""
        return {
            "left": self.left,
            "first_left": self.first_left,
            "could_have_played": self.could_have_played,
            "first_called": self.first_called,
            "others_refused": self.others_refused,
        }


def nertz_first(
    rules: Rules, hand_text: HandText, seat: int, left: int | None = None
) -> NertzFirst:
    """Replay ``hand_text`` with ``seat`` played Nertz-first (see the module). ``left``:
    the Nertz cards ``seat`` really had left at the end, when the caller knows it (else
    the hand is replayed as played to find it)."""
    if left is None:
        left = len(hand_text.replay(rules).seats[seat].nertz)
    hand = Hand(hand_text.deal, rules)
    refused = 0
    for entry in hand_text.inputs:
        at_ms, who, _ = entry
        if who != seat:
            outcome = apply(hand, entry)
            if not outcome.ok and who >= 0:
                refused += 1
            continue
        move = nertz_first_move(hand.legal_moves(seat), hand, seat)
        if move is None:
            hand.tick(at_ms)
        else:
            hand.play(seat, move, at_ms)
    return NertzFirst(left, len(hand.seats[seat].nertz), hand.caller == seat, refused)


def nertz_first_move(moves: Sequence[Move], hand: Hand, seat: int) -> Move | None:
    """The Nertz-first choice among ``moves`` (``seat``'s legal moves): call when the
    pile is empty (R28); the Nertz card to the middle, else onto a work pile; any other
    card to the middle; when the Nertz card has nowhere to go, a run that empties a work
    pile for it (R17, R18); the waste onto a work pile; else turn the stock (R20)."""
    best: Move | None = None
    best_rank = 9
    work = hand.seats[seat].work
    room = any(not pile for pile in work)  # the Nertz card already has an empty pile
    for move in moves:
        kind = move.kind
        if kind is Kind.CALL:
            return move
        if kind is Kind.STUCK:
            continue
        to_middle = kind is Kind.FOUNDATION or kind is Kind.ANNOUNCE
        if move.src == NERTZ:
            rank = 0 if to_middle else 1
        elif to_middle:
            rank = 2
        elif kind is Kind.TURN:
            rank = 5
        elif move.src == WASTE:
            rank = 4
        elif not room and move.count == len(work[move.src]):
            rank = 3  # empties a work pile: worth it only for the Nertz card
        else:
            continue
        if rank < best_rank:
            best, best_rank = move, rank
    return best
