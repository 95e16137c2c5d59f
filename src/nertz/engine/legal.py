"""Legal moves: every move ``Hand.play`` would accept from a seat now, ties aside
(R12-R27, R41).

Pure functions of one seat's layout and the middle's ``wants`` (``Card.key`` -> the
foundations that take that card next). ``Hand.legal_moves`` checks the phase and keeps,
per seat, what the work piles allow (``PileMoves``) until they change: most moves come
from there, and the work piles change far less often than the middle. Moves are looked
up in the interned tables of ``moves``, never built.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .announcements import Announcement
from .cards import Card, Suit
from .foundations import Foundation
from .jokers import Pin, lies_on, pin
from .layout import SeatLayout
from .moves import (
    CALL,
    FOUNDATION_MOVES,
    NERTZ,
    PILE_MOVES,
    PILES,
    STUCK,
    TURN,
    UNDER_MOVES,
    WASTE,
    Move,
    announce_key,
)

__all__ = [
    "JokerPiles",
    "PileMoves",
    "joker_moves",
    "joker_pile_moves",
    "legal_moves",
    "pile_moves",
]

PileMoves = tuple[
    list[tuple[tuple[Move, ...], int]],
    list[Move],
    dict[int, list[Move]],
    dict[int, list[int]],
    list[int],
    dict[int, list[int]],
]
"""What a seat's work piles allow, from ``pile_moves``: ``(ends, fixed, places, takes,
empty, unders)``. ``ends``: each end card's moves to the middle (by foundation number
+ 1) with its ``Card.key``; ``fixed``: the moves that do not depend on the middle (aces
to it, runs between piles); ``places``: filled in by ``legal_moves``, the moves of the
Nertz or waste top into the piles by ``src * 32 + Card.place``; ``takes``: which piles
take a card, by its ``Card.place``; ``empty``: the empty spaces; ``unders``: the piles
whose head a card may slide under, by its ``Card.place`` (only when a space is empty)."""

_RANGE: Final = tuple(range(PILES))
_ACE_KEYS: Final = tuple(Card.of(1, suit).key for suit in Suit)
"""The aces a joker may be announced as, for a new foundation, in suit order."""


def legal_moves(
    layout: SeatLayout,
    piles: PileMoves,
    wants: dict[int, list[Foundation]],
    playing: bool,
) -> list[Move]:
    """Every move the seat with ``layout`` may make, jokers off: to the middle (R12-R14),
    onto, into and under the work piles (R17-R20), a turn of the stock (R21-R23), and
    while ``playing`` (not after a call, R28) the call (R27) and *stuck* (R25).
    ``piles`` is ``pile_moves(layout.work)``, possibly kept from an earlier call."""
    ends, fixed, places, takes, empty, unders = piles
    moves: list[Move] = []
    add = moves.append
    for src, pile in ((NERTZ, layout.nertz), (WASTE, layout.waste)):
        if not pile:
            continue
        card = pile[-1]
        if card.rank == 1:
            add(FOUNDATION_MOVES[src][0])
        elif card.key in wants:  # ``in`` first: most cards fit no foundation
            by_src = FOUNDATION_MOVES[src]
            for f in wants[card.key]:
                add(by_src[f.number + 1])
        code = src * 32 + card.place
        if code in places:
            moves += places[code]
        else:
            # Where this card may go in the work piles (R17-R20), kept with the piles.
            to_pile = PILE_MOVES[src]
            placed = [to_pile[j][0] for j in takes.get(card.place, ())]
            placed += [to_pile[j][0] for j in empty]
            placed += [UNDER_MOVES[src][j] for j in unders.get(card.place, ())]
            places[code] = placed
            moves += placed
    for by_src, key in ends:
        if key in wants:
            for f in wants[key]:
                add(by_src[f.number + 1])
    moves += fixed
    _add_seat_moves(layout, playing, moves)
    return moves


def pile_moves(work: list[list[Card]]) -> PileMoves:
    """What the work piles allow, to keep until they change: the end cards to check
    against the middle, the moves that do not depend on it (aces to the middle, runs
    between piles, R12, R17-R19), and which pile takes which card (by ``Card.place``),
    the empty spaces and the heads a card may slide under (R19)."""
    takes: dict[int, list[int]] = {}
    empty: list[int] = []
    unders: dict[int, list[int]] = {}
    for j in _RANGE:
        pile = work[j]
        if pile:
            takes.setdefault(pile[-1].accepts, []).append(j)
        else:
            empty.append(j)
    if empty:
        for j in _RANGE:
            pile = work[j]
            if pile:
                unders.setdefault(pile[0].under, []).append(j)
    ends: list[tuple[tuple[Move, ...], int]] = []
    fixed: list[Move] = []
    add = fixed.append
    for i in _RANGE:
        source = work[i]
        if not source:
            continue
        end = source[-1]
        if end.rank == 1:
            add(FOUNDATION_MOVES[i][0])
        else:
            ends.append((FOUNDATION_MOVES[i], end.key))
        size = len(source)
        head_rank = source[0].rank
        to_pile = PILE_MOVES[i]
        for j in _RANGE:
            if j == i:
                continue
            dest = work[j]
            if dest:
                top = dest[-1]
                k = head_rank - top.rank + 1
                if 0 <= k < size and source[k].red != top.red:
                    add(to_pile[j][size - k - 1])
            else:
                fixed += to_pile[j][:size]  # every run fits an empty space (R18)
        if unders:
            for j in unders.get(end.place, ()):
                if j != i:
                    add(UNDER_MOVES[i][j])
    return ends, fixed, {}, takes, empty, unders


JokerPiles = tuple[list[Move], dict[int, list[Move]], list[int], list[tuple[int, Card, Pin | None]]]
"""What a seat's work piles allow at a table with jokers, from ``joker_pile_moves``:
``(runs, unders, empty, heads)``. ``runs``: the moves of runs between piles (R17-R18,
R41); ``unders``: each work pile's end card's moves under another pile's head (R19), by
pile; ``empty``: the empty spaces; ``heads``: each pile's head with its pin, for the Nertz
and waste tops to slide under (only when a space is empty)."""


def joker_pile_moves(work: list[list[Card]]) -> JokerPiles:
    """``pile_moves`` for a table with jokers (R41): what the work piles allow, to keep
    until they change. Pins are worked out here, once per change, not per question."""
    empty = [j for j in _RANGE if not work[j]]
    heads = [(j, work[j][0], pin(work[j], 0)) for j in _RANGE if work[j]] if empty else []
    unders: dict[int, list[Move]] = {}
    runs: list[Move] = []
    for i in _RANGE:
        source = work[i]
        if not source:
            continue
        if empty:
            card = source[-1]
            unders[i] = [
                UNDER_MOVES[i][j]
                for j, head, stands in heads
                if j != i and lies_on(head, stands, card)
            ]
        size = len(source)
        to_pile = PILE_MOVES[i]
        for k in range(size):
            first, stands = source[k], pin(source, k)
            for j in _RANGE:
                if j != i and (not work[j] or lies_on(first, stands, work[j][-1])):
                    runs.append(to_pile[j][size - k - 1])
    return runs, unders, empty, heads


def joker_moves(
    layout: SeatLayout,
    piles: JokerPiles,
    wants: dict[int, list[Foundation]],
    announcements: Sequence[Announcement],
    playing: bool,
) -> list[Move]:
    """``legal_moves`` for the seat with ``layout`` at a table with jokers (R41): the
    same moves, found with the joker rules (``piles`` is ``joker_pile_moves(layout.work)``,
    possibly kept from an earlier call), plus announcing each joker not already announced
    as any card a foundation takes next, or as an ace for a new one (only while
    ``playing``), except for a place an open announcement has claimed (the first
    announcement has it, R41)."""
    runs, unders, empty, heads = piles
    announced = {a.joker for a in announcements}
    claimed = {(a.foundation, a.move.card) for a in announcements}
    work = layout.work
    moves: list[Move] = []
    add = moves.append
    tops = [(src, pile[-1]) for src, pile in enumerate(work) if pile]
    tops += [
        (src, pile[-1]) for src, pile in ((NERTZ, layout.nertz), (WASTE, layout.waste)) if pile
    ]
    for src, card in tops:
        if card.rank == 0:
            if playing and card not in announced:
                for key, fits in wants.items():  # a real card's key: its suit and rank
                    moves += [
                        announce_key(src, key, f.number)
                        for f in fits
                        if (f.number, key) not in claimed
                    ]
                moves += [announce_key(src, key) for key in _ACE_KEYS]
        elif card.rank == 1:
            add(FOUNDATION_MOVES[src][0])
        else:
            moves += [FOUNDATION_MOVES[src][f.number + 1] for f in wants.get(card.key, ())]
        if src < NERTZ:
            if empty:
                moves += unders[src]
            continue
        for j in _RANGE:
            if not work[j] or lies_on(card, None, work[j][-1]):
                add(PILE_MOVES[src][j][0])
        for j, head, stands in heads:
            if lies_on(head, stands, card):
                add(UNDER_MOVES[src][j])
    moves += runs
    _add_seat_moves(layout, playing, moves)
    return moves


def _add_seat_moves(layout: SeatLayout, playing: bool, moves: list[Move]) -> None:
    """The moves of the whole seat, with or without jokers: turn the stock (R21), and
    while the hand is on, call Nertz (R27) and say stuck (R24)."""
    if layout.stock or layout.waste:
        moves.append(TURN)
    if playing:
        if not layout.nertz:
            moves.append(CALL)
        if not layout.stuck:
            moves.append(STUCK)
