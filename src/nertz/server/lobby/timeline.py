"""A hand as the replay viewer reads it (``GET /api/matches/{id}/replay``,
``web/js/replay/timeline.js``): where every card lay at Go, then each seat's input and
each time the table itself changed, with its time since Go, its seat, its move and what
it changed, so that a browser rebuilds any moment by applying the changes in order.

Made by replaying the stored deal and inputs with the engine (``engine.replay.apply``,
R8-R28, R41): nothing new is stored, and what the engine did is what the viewer shows,
whatever the move (a run between work piles, a slide under, a stock turned, the table
rotated, a joker landing when its window ends). The answer is only ever made for a
finished match: it holds every face-down card (the Nertz piles, the stocks), never the
deck seeds.

Cards are written as the engine writes them (``7H``, ``JK1``); a card in the middle
with its owner (``7H@2``, the seat whose deck it is, R1) and, for a joker, the card it
stands for (``JK1@2=7H``, R41). Piles of a seat: ``N`` (the Nertz pile), ``1``-``4``
(the work piles, head first), ``S`` (the stock, the next card to turn last), ``W`` (the
waste, its top last); of the middle: ``F1``, ``F2`` ... in the order they were started.

A change is one of

* ``[seat, pile, keep, "cards"]``: the pile keeps its first ``keep`` cards and then
  gets ``cards`` (space-separated, bottom to top) on top; seat -1 for the middle;
* ``[seat, "fan", n]``: how many cards of the last turn lie fanned on the waste (R21);
* ``[seat, "stuck", 0 | 1]``: the seat said it is stuck (R25), or no longer is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nertz.engine import Card, Deal, EndReason, Hand, LogEntry, Rules, apply
from nertz.engine.foundations import Foundation
from nertz.engine.layout import SeatLayout

__all__ = ["SEAT_PILES", "hand_timeline"]

SEAT_PILES = ("N", "1", "2", "3", "4", "S", "W")
"""A seat's piles as the timeline names them, in the order ``_seat_piles`` lists them."""

Piles = list[list[Card]]
Middle = list[tuple[list[Card], dict[int, Card]]]


def hand_timeline(deal: Deal, rules: Rules, log: Sequence[LogEntry]) -> dict[str, Any]:
    """The timeline of the hand dealt ``deal`` under ``rules`` and played as ``log``
    (``Hand.log``'s entries): ``start`` (each seat's piles and fan, the middle's
    foundations), ``steps`` (``[ms since Go, seat, move, changes]``: every seat's input,
    and each ``TICK`` of the table, seat -1, that changed it), ``end_ms`` (the last
    input's time since Go), and the hand's ``scores`` (R29-R31), ``caller`` (R27) and
    ``end``. Raises ``ValueError`` for a log the engine refuses (a corrupt one)."""
    hand = Hand(deal, rules)
    seats = [_seat_piles(layout) for layout in hand.seats]
    fans = [layout.fan for layout in hand.seats]
    stuck = [layout.stuck for layout in hand.seats]
    middle = _middle(hand.foundations)
    laid = hand.centre.version
    start = {
        "seats": [
            {**dict(zip(SEAT_PILES, map(_cards, piles), strict=True)), "fan": fan}
            for piles, fan in zip(seats, fans, strict=True)
        ],
        "middle": [_foundation_text(cards, jokers) for cards, jokers in middle],
    }
    go: int | None = None
    last = 0
    steps: list[list[Any]] = []
    for entry in log:
        at_ms, seat, text = entry
        outcome = apply(hand, entry)
        if not outcome.ok:
            raise ValueError(f"log entry {tuple(entry)} does not replay: {outcome}")
        if go is None:
            go = at_ms  # the table's Go (R8) comes first; the clock runs from it
        last = at_ms - go
        changes: list[list[Any]] = []
        for n, layout in enumerate(hand.seats):
            now = _seat_piles(layout)
            for name, before, after in zip(SEAT_PILES, seats[n], now, strict=True):
                if before != after:
                    changes.append([n, name, *_change(before, after)])
            seats[n] = now
            if layout.fan != fans[n]:
                fans[n] = layout.fan
                changes.append([n, "fan", layout.fan])
            if layout.stuck != stuck[n]:
                stuck[n] = layout.stuck
                changes.append([n, "stuck", int(layout.stuck)])
        if hand.centre.version != laid:  # a card was laid in the middle (else it is as it was)
            laid = hand.centre.version
            now_middle = _middle(hand.foundations)
            for number, (cards, jokers) in enumerate(now_middle):
                old_cards, old_jokers = middle[number] if number < len(middle) else ([], {})
                if cards != old_cards or jokers != old_jokers:
                    keep = _kept(old_cards, cards)
                    for i, stands_for in jokers.items():  # a joker landed (R41)
                        if i < keep and old_jokers.get(i) is not stands_for:
                            keep = i
                    on_top = " ".join(
                        _middle_card(cards[i], jokers.get(i)) for i in range(keep, len(cards))
                    )
                    changes.append([-1, f"F{number + 1}", keep, on_top])
            middle = now_middle
        if changes or seat >= 0:  # a seat's call or announcement (R27, R41) moves no card
            steps.append([last, seat, text, changes])
    caller = hand.caller if hand.end_reason is EndReason.CALLED else None
    return {
        "seats": len(hand.seats),
        "penalty": rules.penalty,
        "start": start,
        "steps": steps,
        "end_ms": last,
        "scores": [s.as_dict() for s in hand.scores()],
        "caller": caller,
        "end": hand.end_reason.value if hand.end_reason is not None else None,
    }


def _seat_piles(layout: SeatLayout) -> Piles:
    """A seat's piles in ``SEAT_PILES`` order, copied."""
    return [layout.nertz[:], *(pile[:] for pile in layout.work), layout.stock[:], layout.waste[:]]


def _middle(foundations: Sequence[Foundation]) -> Middle:
    """The middle's foundations, copied: their cards and the jokers' stand-ins (R41)."""
    return [(f.cards[:], dict(f.jokers)) for f in foundations]


def _cards(pile: Sequence[Card]) -> str:
    return " ".join(map(str, pile))


def _kept(before: Sequence[object], after: Sequence[object]) -> int:
    """How many cards at the bottom of a pile stayed as they were."""
    keep = 0
    for a, b in zip(before, after, strict=False):
        if a != b:
            break
        keep += 1
    return keep


def _change(before: Sequence[Card], after: Sequence[Card]) -> tuple[int, str]:
    """A seat pile's change: the cards it kept, and those on top of them now."""
    keep = _kept(before, after)
    return keep, _cards(after[keep:])


def _middle_card(card: Card, stands_for: Card | None) -> str:
    """A card in the middle with its owner (R1), a joker with what it stands for (R41)."""
    text = card.tagged
    return text if stands_for is None else f"{text}={stands_for}"


def _foundation_text(cards: Sequence[Card], jokers: dict[int, Card]) -> str:
    """A foundation, bottom to top, each card with its owner."""
    return " ".join(_middle_card(c, jokers.get(i)) for i, c in enumerate(cards))
