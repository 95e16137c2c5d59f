"""The foundations: shared piles built up in suit from an ace (R12-R16).

``Foundation`` is one pile in the middle; ``tie_target`` and ``not_taken`` answer the
races for a card that arrives where another got first (R16). ``middle.Middle`` owns a
hand's foundations and keeps its ``wants`` index (``Wants``) in step with them.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import Card, Suit
from .outcome import Outcome, Refusal, refuse

__all__ = ["Foundation", "Wants", "not_taken", "tie_target"]


class Foundation:
    """One foundation in the middle. Mutable, owned by a hand's ``Middle``.

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


Wants = dict[int, list[Foundation]]
"""``Card.key`` -> the foundations that take that card next, oldest first (R13)."""


def tie_target(
    card: Card, at_ms: int, candidates: Sequence[Foundation], window_ms: int
) -> Foundation | None:
    """R16: a foundation that got this rank within ``window_ms``: a true tie."""
    if window_ms <= 0:
        return None
    for f in candidates:
        if f.suit == card.suit and f.top_rank == card.rank and at_ms - f.top_ms <= window_ms:
            return f
    return None


def not_taken(card: Card, candidates: Sequence[Foundation]) -> Outcome:
    """Refuse a card the middle does not take: ``beaten`` if its place was taken (R16),
    else ``does_not_fit`` (R13)."""
    for f in candidates:
        if f.suit == card.suit and f.top_rank >= card.rank:
            return refuse(
                Refusal.BEATEN,
                f"beaten to it: F{f.number + 1} already has the {card.name} (R16)",
            )
    where = "any foundation" if len(candidates) != 1 else f"F{candidates[0].number + 1}"
    return refuse(Refusal.DOES_NOT_FIT, f"the {card.name} does not fit on {where} (R13)")
