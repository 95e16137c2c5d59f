"""The middle: shared foundations built up in suit from an ace (R12-R16)."""

from __future__ import annotations

from .cards import Card, Suit

__all__ = ["Foundation"]


class Foundation:
    """One foundation in the middle. Mutable, owned by a ``Hand``.

    ``number`` is its place in the order foundations were started (0-based; ``F1`` in
    text is number 0). ``top_ms`` is when the first card of the current top rank
    landed: a card of that same rank arriving within the tie window is a true tie (R16).
    """

    __slots__ = ("cards", "number", "suit", "top_ms", "top_rank")

    def __init__(self, number: int, suit: Suit, cards: list[Card], top_ms: int) -> None:
        self.number = number
        self.suit = suit
        self.cards = cards
        self.top_rank = cards[-1].rank
        self.top_ms = top_ms

    @property
    def finished(self) -> bool:
        """R15: a foundation that reached its king is set aside (its cards still score)."""
        return self.top_rank == 13

    @property
    def needs(self) -> int:
        """The ``Card.key`` of the card that fits next (R13); kings need nothing."""
        return self.suit * 16 + self.top_rank + 1

    def copy(self) -> Foundation:
        return Foundation(self.number, self.suit, self.cards[:], self.top_ms)

    def __repr__(self) -> str:
        return f"<F{self.number + 1} {' '.join(c.tagged for c in self.cards)}>"
