"""Partners' hands over one layout (R40): which card each partner has picked up.

In a partnership two people share one seat: one layout, one deck, one score. Both may
move its cards, each one card (or one run) at a time, and their plays reach the table
as separate inputs settled in arrival order like anyone's. What a kitchen table settles
by eye, that two hands never grab the same card, the table settles with ``Holds``: a
partner *picks up* a source (the Nertz top, the waste top, or a work pile) before
moving it, and while they hold it the other partner's moves that would take or cover
that card are refused with ``partner_holds`` and a sentence naming the card.

Pure and clock-free like the rest of the engine: the table decides when a hold is
picked up, dropped, or lapses. A partner is 0 or 1 within its seat.
"""

from __future__ import annotations

from typing import Final

from .cards import Card
from .moves import WASTE, Kind, Move, source_name
from .outcome import Outcome, Refusal, refuse

__all__ = ["PARTNERS", "Holds", "picked_up", "touches"]

PARTNERS: Final = 2
"""R40: two people share a seat."""

_OK: Final = Outcome(True)


def touches(move: Move) -> frozenset[int]:
    """The sources (work piles 0-3, ``NERTZ``, ``WASTE``) whose top cards ``move`` takes
    or covers: its source, a work pile it lands on or slides under, the waste for a
    turn of the stock. A call or *stuck* touches nothing."""
    kind = move.kind
    if kind is Kind.TURN:
        return frozenset((WASTE,))
    if kind in (Kind.PILE, Kind.UNDER):
        return frozenset((move.src, move.dst))
    if kind in (Kind.CALL, Kind.STUCK):
        return frozenset()
    return frozenset((move.src,))


def picked_up(move: Move) -> int | None:
    """The source a hand holds while ``move`` is on its way: the card's own pile, or
    the waste for a turn of the stock (the turned cards will cover its top, R21). A
    call or *stuck* picks nothing up."""
    kind = move.kind
    if kind is Kind.TURN:
        return WASTE
    if kind in (Kind.CALL, Kind.STUCK):
        return None
    return move.src


class Holds:
    """What each partner of each seat holds now (R40). Mutable, owned by a table."""

    __slots__ = ("_cards", "_held")

    def __init__(self, seats: int) -> None:
        self._held: list[list[int | None]] = [[None] * PARTNERS for _ in range(seats)]
        self._cards: list[list[Card | None]] = [[None] * PARTNERS for _ in range(seats)]

    def pick(self, seat: int, partner: int, src: int, card: Card | None = None) -> Outcome:
        """``partner`` picks up the card at ``src``; refused while the other holds it.
        Picking up again moves the partner's hold (each holds one thing at a time).
        ``card``, the face-up card picked up, only names it in the other's refusals."""
        if not 0 <= partner < PARTNERS:
            return refuse(Refusal.NO_SUCH_SEAT, f"a seat has partners 0 and 1, not {partner}")
        if not 0 <= src <= WASTE:
            return refuse(Refusal.NOT_AVAILABLE, f"there is no source {src} to pick up")
        other = self._held[seat][1 - partner]
        if other == src:
            return refuse(Refusal.PARTNER_HOLDS, _sentence(src, self._cards[seat][1 - partner]))
        self._held[seat][partner] = src
        self._cards[seat][partner] = card
        return _OK

    def drop(self, seat: int, partner: int) -> bool:
        """``partner`` puts their card down (played it, or let go); True if they held one."""
        held = self._held[seat][partner] is not None
        self._held[seat][partner] = None
        self._cards[seat][partner] = None
        return held

    def check(self, seat: int, partner: int, move: Move) -> Outcome:
        """Refuse ``move`` from ``partner`` if it takes or covers what the other partner
        holds (R40); else ok. The engine still judges the move itself."""
        other = self._held[seat][1 - partner]
        if other is not None and other in touches(move):
            return refuse(Refusal.PARTNER_HOLDS, _sentence(other, self._cards[seat][1 - partner]))
        return _OK

    def held(self, seat: int) -> tuple[int | None, ...]:
        """What each partner of ``seat`` holds: a source code, or None."""
        return tuple(self._held[seat])

    def card(self, seat: int, partner: int) -> Card | None:
        """The card ``partner`` of ``seat`` picked up, when the table named it."""
        return self._cards[seat][partner]

    def clear(self) -> None:
        """Everyone's hands are empty (a new hand is dealt, R33; the table rotated, R25)."""
        for seat in self._held:
            seat[:] = [None] * PARTNERS
        for cards in self._cards:
            cards[:] = [None] * PARTNERS


def _sentence(src: int, card: Card | None) -> str:
    where = source_name(src)
    what = f"the {card.name} from your {where}" if card is not None else f"the card on your {where}"
    return f"your partner has picked up {what} (R40); let them play it first"
