"""Observations: a seat's view of the table as one fixed-size array of small integers.

It holds what ``nertz.engine.view`` shows that seat and nothing more: face-down cards
appear as counts only, even to their owner (the Nertz pile shows its top card and its
size, R4; the stock its size, R6; the waste the cards of its last turn that still lie
on it, R21). Every seat's layout is public at a real table, so every seat's is in it,
the observer's own first and then the others in seat order after it.

A card is a code: 0 for none, ``suit * 13 + rank`` for a real card (1-52: clubs,
diamonds, hearts, spades, ace to king) and 53, 54 for the jokers (R41). The layout:

* per seat (``seat_size`` numbers): the Nertz top, the Nertz pile's size, the stock's
  size, the waste's size, the seat's cards in the middle (R29), stuck (R25, 0/1), the
  waste's visible cards (``draw`` of them, top first), and the four work piles
  (``max_run`` cards each, head first; a longer pile shows its last ``max_run``);
* per foundation, in the order they were started (R12): the card it stands at (for a
  joker, the card announced for it) and how many cards it holds;
* the phase (1 playing, 2 landing after a call, 3 over, R28), the caller (0 none, else
  1 + its place counted from the observer), the rotations so far (R25) and the seconds
  since Go;
* with jokers, each open announcement (R41): its seat (1 + place from the observer),
  the card announced, the foundation (1-based; 0 a new one) and the milliseconds left.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from nertz.engine import PILES, Card, Hand, Phase, Rules

__all__ = ["Observer"]

_PHASE: Final = {Phase.WAITING: 0, Phase.PLAYING: 1, Phase.LANDING: 2, Phase.OVER: 3}
_CLIP: Final = 32767
"""The largest number an observation holds (int16): seconds and milliseconds stop there."""

Obs = npt.NDArray[np.int16]


class Observer:
    """Builds the observations of every seat at a table of ``seats`` under ``rules``."""

    def __init__(self, seats: int, rules: Rules, max_run: int) -> None:
        self.seats = seats
        self.draw = rules.draw
        self.max_run = max_run
        self.jokers = rules.jokers
        self.seat_size = 6 + self.draw + PILES * max_run
        self.foundations = seats * (6 if rules.jokers else 4)
        """At most one foundation per ace, and with jokers one per joker announced as an
        ace (R41)."""
        self.announcements = 2 * seats if rules.jokers else 0
        self.size = seats * self.seat_size + 2 * self.foundations + 4 + 4 * self.announcements
        deck = 54 if rules.jokers else 52
        seat_high = [54, deck, deck, deck, deck * seats, 1] + [54] * (self.draw + PILES * max_run)
        high = seat_high * seats + [54, deck * seats] * self.foundations
        high += [3, seats, _CLIP, _CLIP] + [seats, 52, self.foundations, _CLIP] * self.announcements
        self.high: Obs = np.array(high, dtype=np.int16)
        """The largest value of each number (the low is 0)."""
        public = seats * self.seat_size
        self._caller_at = public + 2 * self.foundations + 1
        self._announced_at = self._caller_at + 3
        rest = np.arange(public, self.size)
        by_seat = np.arange(public).reshape(seats, -1)
        self._order = [
            np.concatenate([by_seat[np.roll(np.arange(seats), -seat)].ravel(), rest])
            for seat in range(seats)
        ]
        """Per observer: the indexes that put its own seat first, the others after it."""
        self._orders: dict[tuple[int, ...], tuple[Obs, Obs]] = {}
        """Per list of observers: their ``_order`` rows stacked, and their seats."""
        self._head_size = 6 + self.draw
        self._public_size = public
        self._table: Obs = np.zeros(self.size, dtype=np.int16)
        """The table in seat order, kept from step to step: each part is written again
        only when an event says it may have changed."""

    def observe_all(
        self, hand: Hand, seats: Sequence[int], changed: set[int], seats_changed: set[int]
    ) -> list[Obs]:
        """The observations of ``seats``, in that order. The table's public part is
        kept in one array and each seat's observation is that array with the seats
        turned so its own comes first (one NumPy index for all), and the other seats
        counted from it.
        ``changed``: the seats whose work piles may have changed since the last call
        (or every seat, for a new hand), ``seats_changed`` those whose layout may have;
        both emptied here."""
        table = self._table
        size, head, public = self.seat_size, self._head_size, self._public_size
        # Only what changed is written: converting Python ints to NumPy's is most of
        # the cost of an observation.
        for seat in changed:
            at = seat * size + head
            table[at : at + size - head] = self._work(hand.seats[seat].work)
        changed.clear()
        for seat in seats_changed:
            at = seat * size
            table[at : at + head] = self._head(hand, seat)
        seats_changed.clear()
        table[public:] = self._middle(hand)
        key = tuple(seats)
        order = self._orders.get(key)
        if order is None:
            order = self._orders[key] = (
                np.stack([self._order[seat] for seat in seats]),
                np.array(seats, dtype=np.int16),
            )
        # One NumPy index turns the table for every observer at once: row i is seats[i]'s.
        rows = table[order[0]]
        n = self.seats
        caller = hand.caller
        if caller is not None:
            rows[:, self._caller_at] = 1 + (caller - order[1]) % n
        if self.announcements:
            at = self._announced_at
            for k, a in enumerate(hand.announcements[: self.announcements]):
                rows[:, at + 4 * k] = 1 + (a.seat - order[1]) % n
        return list(rows)

    def observe(self, hand: Hand, seat: int) -> Obs:
        """``seat``'s observation alone, everything read afresh."""
        every = range(self.seats)
        return self.observe_all(hand, (seat,), set(every), set(every))[0]

    def _work(self, work: list[list[Card]]) -> list[int]:
        """A seat's four work piles, ``max_run`` codes each, head first."""
        run = self.max_run
        codes = _CODES
        values: list[int] = []
        for pile in work:
            if len(pile) > run:
                pile = pile[-run:]
            values += [codes[c.key] for c in pile]
            values += _ZEROS[run - len(pile)]
        return values

    def _head(self, hand: Hand, seat: int) -> list[int]:
        """One seat's layout but its work piles, as the table shows it (R4, R6, R21)."""
        draw = self.draw
        codes = _CODES
        layout = hand.seats[seat]
        nertz, waste = layout.nertz, layout.waste
        values = [
            codes[nertz[-1].key] if nertz else 0,
            len(nertz),
            len(layout.stock),
            len(waste),
            hand.middle[seat],
            1 if layout.stuck else 0,
        ]
        fan = min(layout.fan, draw)
        if fan:
            values += [codes[c.key] for c in reversed(waste[len(waste) - fan :])]
        values += _ZEROS[draw - fan]
        return values

    def _middle(self, hand: Hand) -> list[int]:
        """The middle and the hand's state (the relative seats are filled in per
        observer)."""
        zeros = _ZEROS
        values: list[int] = []
        foundations = hand.foundations
        for f in foundations[: self.foundations]:
            values += (int(f.suit) * 13 + f.top_rank, len(f.cards))
        values += zeros[2 * max(0, self.foundations - len(foundations))]
        values += (_PHASE[hand.phase], 0, min(hand.rotations_total, _CLIP))
        values.append(min(hand.now // 1000, _CLIP))
        if self.announcements:
            now = hand.now
            shown = hand.announcements[: self.announcements]
            for a in shown:
                card = a.move.announced
                values += (
                    0,
                    0 if card is None else int(card.suit) * 13 + card.rank,
                    a.foundation + 1,
                    max(0, min(a.until_ms - now, _CLIP)),
                )
            values += zeros[4 * (self.announcements - len(shown))]
        return values


_CODES: Final = [0] * 64
"""A card's code by its ``Card.key`` (``suit * 16 + rank``): 1-52, jokers 53 and 54
(JK1 is a club, JK2 a heart, R41)."""
for _suit in range(4):
    for _rank in range(1, 14):
        _CODES[_suit * 16 + _rank] = _suit * 13 + _rank
_CODES[0], _CODES[32] = 53, 54
_ZEROS: Final = [[0] * k for k in range(400)]
"""Padding: ``_ZEROS[k]`` is k zeros."""
