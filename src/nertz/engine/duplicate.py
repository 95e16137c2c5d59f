"""Duplicate Nertz (option ``duplicate``, R42-R46 of docs/rules-decisions.md).

Every deal is played once per seat: at a table of ``n`` seats a deal is played on ``n``
successive hands, its *rotation*, and on the ``k``-th of them (``k`` from 0) seat ``s``
plays the cards dealt to seat ``(s + k) % n`` (R42). A seat's *duplicate score* for a
hand is its score minus the average score of everyone who played the same cards of
the same deal in that rotation, its own included (R43); it is settled only when the
rotation is complete, so each layout's duplicate scores sum to zero.

Pure and deterministic: ``rotated`` re-deals a dealt hand for a later hand of its
rotation, ``duplicate_scores`` computes the scores from the hand scores, as exact
fractions (``Fraction``; a table of three seats has thirds), and ``duplicate_refusal`` says
why a table cannot play duplicate. ``Match`` (``match.py``) decides the end of a
duplicate match with them (R45).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from .cards import Card
from .layout import Deal, SeatStart
from .rules import Rules

__all__ = [
    "DuplicateScore",
    "dealt_seat",
    "duplicate_refusal",
    "duplicate_scores",
    "duplicate_totals",
    "rotated",
    "rotation_of",
]

DuplicateScore = Fraction | None
"""A seat's duplicate score for one hand: None while its rotation is still being
played (R44)."""


def duplicate_refusal(rules: Rules, seats: int, practice: bool = False) -> str | None:
    """Why a table of ``seats`` seats cannot play ``rules`` as duplicate (R46), as a
    sentence naming what to change; None when it can (or duplicate is off)."""
    if not rules.duplicate:
        return None
    if practice:
        return "a practice table is unscored: duplicate needs a scored table of friends (R46)"
    if seats < 2:
        return (
            f"duplicate needs at least two seats to compare the same cards, not {seats} (R46);"
            " add a seat or a bot, or turn duplicate off"
        )
    return None


def rotation_of(hand_index: int, seats: int) -> tuple[int, int]:
    """``(deal, shift)`` of the match's ``hand_index``-th hand (from 0): which deal of the
    match it plays and how many seats that deal has moved on (R42)."""
    if seats < 1 or hand_index < 0:
        raise ValueError(f"no hand {hand_index} at a table of {seats} seats")
    return divmod(hand_index, seats)


def dealt_seat(seat: int, shift: int, seats: int) -> int:
    """The seat whose dealt cards ``seat`` plays on a hand ``shift`` seats into its
    rotation (R42): ``(seat + shift) % seats``."""
    return (seat + shift) % seats


def rotated(dealt: Deal, shift: int) -> Deal:
    """``dealt`` moved on by ``shift`` seats (R42): seat ``s`` gets the cards dealt to
    seat ``(s + shift) % n``, with its own backs (each card's owner is the seat playing
    it, R1, so R29's sort by back still scores it to the player). Shift 0 is the deal
    itself. A deal with cards already in the middle (a puzzle) is refused."""
    if dealt.middle:
        raise ValueError("a deal with cards already in the middle cannot be rotated")
    n = dealt.seats
    if shift % n == 0:
        return dealt
    starts = tuple(_owned(dealt.starts[dealt_seat(seat, shift, n)], seat) for seat in range(n))
    return Deal(starts)


def _owned(start: SeatStart, owner: int) -> SeatStart:
    return tuple(tuple(Card.of(c.rank, c.suit, owner) for c in pile) for pile in start)


def duplicate_scores(hands: Sequence[Sequence[int]], seats: int) -> list[list[DuplicateScore]]:
    """Every hand's duplicate scores (R43, R44), per hand and seat, from each hand's
    scores in the order the match played them (``hands[i][s]``: seat ``s``'s score on
    hand ``i``, the caller bonus included). A hand of a rotation not yet complete has
    None for every seat."""
    out: list[list[DuplicateScore]] = []
    for first in range(0, len(hands), seats):
        rotation = hands[first : first + seats]
        if len(rotation) < seats:
            out += [[None] * seats for _ in rotation]
            break
        for hand in rotation:
            if len(hand) != seats:
                raise ValueError(f"expected {seats} scores a hand, got {len(hand)}")
        # layout d of the deal was played on hand k by seat (d - k) % seats
        average = [
            Fraction(sum(rotation[k][(d - k) % seats] for k in range(seats)), seats)
            for d in range(seats)
        ]
        for k, hand in enumerate(rotation):
            settled: list[DuplicateScore] = [
                hand[s] - average[dealt_seat(s, k, seats)] for s in range(seats)
            ]
            out.append(settled)
    return out


def duplicate_totals(hands: Sequence[Sequence[int]], seats: int) -> list[Fraction]:
    """Each seat's duplicate total: the sum of its settled duplicate scores (R44)."""
    totals = [Fraction(0)] * seats
    for hand in duplicate_scores(hands, seats):
        for s, value in enumerate(hand):
            if value is not None:
                totals[s] += value
    return totals
