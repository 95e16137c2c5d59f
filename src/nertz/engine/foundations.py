"""The middle: shared foundations built up in suit from an ace (R12-R16)."""

from __future__ import annotations

from .cards import Card, Suit

__all__ = ["Foundation"]


class Foundation:
    """One foundation in the middle. Mutable, owned by a ``Hand``.

    ``number`` is its place in the order foundations were started (0-based; ``F1`` in
    text is number 0). ``top_ms`` is when the first card of the current top rank
    landed: a card of that same rank arriving within the tie window is a true tie (R16).
    ``jokers`` maps the place of each joker in ``cards`` to the card announced for it
    (R41).
    """

    __slots__ = ("cards", "jokers", "number", "suit", "top_ms", "top_rank")

    def __init__(
        self,
        number: int,
        suit: Suit,
        cards: list[Card],
        top_ms: int,
        jokers: dict[int, Card] | None = None,
    ) -> None:
        self.number = number
        self.suit = suit
        self.cards = cards
        self.jokers: dict[int, Card] = jokers or {}
        self.top_rank = self.stands_for(len(cards) - 1).rank
        self.top_ms = top_ms

    def stands_for(self, index: int) -> Card:
        """The card at ``index``, or for a joker the card announced for it (R41)."""
        return self.jokers.get(index) or self.cards[index]

    @property
    def finished(self) -> bool:
        """R15: a foundation that reached its king is set aside (its cards still score)."""
        return self.top_rank == 13

    @property
    def needs(self) -> int:
        """The ``Card.key`` of the card that fits next (R13); kings need nothing."""
        return self.suit * 16 + self.top_rank + 1

    def copy(self) -> Foundation:
        return Foundation(self.number, self.suit, self.cards[:], self.top_ms, dict(self.jokers))

    def texts(self) -> list[str]:
        """Each card with its owner, a joker with what it stands for: ``JK1@2=7H``."""
        return [
            c.tagged + (f"={self.jokers[i]}" if i in self.jokers else "")
            for i, c in enumerate(self.cards)
        ]

    def __repr__(self) -> str:
        return f"<F{self.number + 1} {' '.join(self.texts())}>"
