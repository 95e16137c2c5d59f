"""Is a seat blocked? (R24)

A seat is blocked when no sequence of its own moves can send a card to the middle,
take the top card off its Nertz pile, or take a card off its waste, with the middle as
it stands. The search is exact:

* the cards that can reach the waste's top by turning, turning over and turning again
  (R21-R23) are computed from the stock and waste without simulating every turn;
* the work piles are explored by a search over their rearrangements (runs between
  piles, R17-R19), which in real positions has a handful of states at most. Cards
  never enter or leave the work piles during this search: either is already progress.

With jokers (R41) a joker within reach is progress by itself: it can always be
announced as an ace for a new foundation. The joker rules (``jokers.lies_on``) then
decide which runs move between the work piles.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from .cards import Card, Suit
from .foundations import Foundation
from .jokers import lies_on, pin
from .layout import SeatLayout

__all__ = ["is_blocked", "waste_reachable"]

_BLACK: Final = (Suit.CLUBS, Suit.SPADES)
_RED: Final = (Suit.DIAMONDS, Suit.HEARTS)


def waste_reachable(stock: Sequence[Card], waste: Sequence[Card], draw: int) -> list[Card]:
    """Every card that can become the waste's top by turning alone, in the order met.

    Stock and waste run bottom to top. After the stock runs out the waste is turned over
    unchanged (R23), so every later pass turns the same sequence: the waste from its
    bottom, then the stock from its top.
    """
    if draw == 1:
        return [*waste[-1:], *reversed(stock), *waste[:-1]]
    out = list(waste[-1:])
    rest = stock[::-1]  # the order the stock is turned in
    out += rest[draw - 1 :: draw]
    if len(rest) % draw:
        out.append(rest[-1])  # R22: the last one or two cards turn alone
    cycle = [*waste, *rest]
    out += cycle[draw - 1 :: draw]
    if len(cycle) % draw:
        out.append(cycle[-1])
    return out


def is_blocked(
    layout: SeatLayout, wants: Mapping[int, list[Foundation]], draw: int, jokers: bool = False
) -> bool:
    """R24: True when no sequence of this seat's moves makes progress.

    ``wants`` maps a ``Card.key`` to the foundations that take that card next; ``jokers``
    says the table plays with jokers (R41). A card of rank 1 or less (an ace, or a joker
    announced as one) always goes to the middle.
    """
    nertz_top = layout.nertz[-1] if layout.nertz else None
    # The common case first: a card in plain sight goes to the middle or a work pile.
    ends = {p[-1].accepts for p in layout.work if p}
    for pile in (layout.nertz, layout.waste):
        if pile:
            card = pile[-1]
            if card.rank <= 1 or card.key in wants or card.place in ends:
                return False
    anything_to_place = bool(layout.nertz or layout.waste or layout.stock)
    for pile in layout.work:
        if pile:
            if pile[-1].rank <= 1 or pile[-1].key in wants:
                return False
        elif anything_to_place:
            return False
    movers = waste_reachable(layout.stock, layout.waste, draw)
    if nertz_top is not None:
        movers.append(nertz_top)
    targets: set[int] = set()
    for card in movers:
        if card.rank <= 1 or wants.get(card.key):
            return False
        if card.rank < 13:
            for suit in _RED if not card.red else _BLACK:
                targets.add(suit * 16 + card.rank + 1)

    start = tuple(tuple(p) for p in layout.work)
    seen = {frozenset(p for p in start if p)}
    todo = [start]
    while todo:
        piles = todo.pop()
        for stack in piles:
            if not stack:
                if movers:
                    return False  # an empty space takes the Nertz card or a waste card
                continue
            end = stack[-1]
            if end.key in targets or end.rank <= 1 or wants.get(end.key):
                return False
        for i, source in enumerate(piles):
            if not source:
                continue
            if jokers:
                for j, k in _joker_cuts(piles, i):
                    nxt = list(piles)
                    nxt[i] = source[:k]
                    nxt[j] = piles[j] + source[k:]
                    key = frozenset(p for p in nxt if p)
                    if key not in seen:
                        seen.add(key)
                        todo.append(tuple(nxt))
                continue
            head_rank = source[0].rank
            for j, dest in enumerate(piles):
                if i == j:
                    continue
                if dest:
                    end = dest[-1]
                    k = head_rank - end.rank + 1
                    if not 0 <= k < len(source) or source[k].red == end.red:
                        continue
                    cuts: tuple[int, ...] = (k,)
                else:
                    cuts = tuple(range(1, len(source)))
                for k in cuts:
                    nxt = list(piles)
                    nxt[i] = source[:k]
                    nxt[j] = dest + source[k:]
                    key = frozenset(p for p in nxt if p)
                    if key not in seen:
                        seen.add(key)
                        todo.append(tuple(nxt))
    return True


def _joker_cuts(piles: Sequence[tuple[Card, ...]], i: int) -> list[tuple[int, int]]:
    """``(dest, cut)`` for every run of pile ``i`` that may move to another pile under
    the joker rules (R17, R18, R41): ``source[cut:]`` moves onto pile ``dest``."""
    source = piles[i]
    out = []
    for j, dest in enumerate(piles):
        if j == i:
            continue
        if dest:
            end = dest[-1]
            out += [(j, k) for k in range(len(source)) if lies_on(source[k], pin(source, k), end)]
        else:
            out += [(j, k) for k in range(1, len(source))]
    return out
