"""What a joker stands for on the work piles (R41).

A joker stands for any card. On a work pile it may be placed on any end card or into
an empty space, and anything may be placed on it. A real card laid on a joker *pins* it:
the joker then stands for the card one rank above, of the other colour, until that card
is lifted off. Jokers lying on jokers pin in a chain: each is one rank above and of the
other colour from the card it carries. A joker with only jokers (or nothing) on it is
free.

A pin matters when the joker moves with the cards on it (a run whose first card is a
pinned joker lands only where that card would, R17), and when it is the head of a pile
something slides under (R19). The other direction never constrains: the card under a
joker does not decide what it stands for.

In the middle a joker stands for the card announced for it (``Foundation.jokers``);
``announcements`` takes it there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from .cards import JOKER, Card

__all__ = ["Pin", "describe", "lies_on", "misfit", "pin"]


Pin = tuple[int, bool]
"""What a pinned joker stands for: a rank (14 and up above a king: nothing real) and
whether it is red. Only rank and colour are pinned, never the suit (R41)."""


def pin(pile: Sequence[Card], index: int) -> Pin | None:
    """What the joker at ``pile[index]`` stands for, or None while it is free (R41).
    ``pile`` runs from its head to its end card, like a work pile."""
    steps = 1
    for card in pile[index + 1 :]:
        if card.rank != JOKER:
            return card.rank + steps, card.red if steps % 2 == 0 else not card.red
        steps += 1
    return None


def lies_on(card: Card, card_pin: Pin | None, below: Card) -> bool:
    """True when ``card`` (carrying ``card_pin`` if it is a pinned joker) may lie on
    ``below``: one rank lower and of the other colour (R17), or anything on a joker, or
    a free joker on anything (R41)."""
    if below.rank == JOKER:
        return True
    if card.rank == JOKER:
        if card_pin is None:
            return True
        rank, red = card_pin
        return rank + 1 == below.rank and red != below.red
    return card.rank + 1 == below.rank and card.red != below.red


def describe(stands: Pin | None) -> str | None:
    """A pinned joker's meaning in words, e.g. ``red 6``; None when free."""
    if stands is None:
        return None
    rank, red = stands
    colour = "red" if red else "black"
    if rank > 13:
        return f"{colour} above a king (nothing fits under it)"
    words = ("", "ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")
    return f"{colour} {words[rank]}"


def misfit(card: Card, stands: Pin | None, other: Card, how: Literal["on", "under"]) -> str:
    """Why ``card`` may not go ``on`` ``other`` (R17), or slide ``under`` the head
    ``other`` (R19), in words; ``stands`` is the pin of the joker among them (R41)."""
    if how == "on":
        if card.rank == JOKER:
            return (
                f"the joker stands for a {describe(stands)} (R41: a card lies on it), "
                f"which cannot go on the {other.name} (R17)"
            )
        return f"the {card.name} cannot go on the {other.name} (R17: one rank lower, other colour)"
    if other.rank == JOKER:
        return (
            f"the joker at the head of that pile stands for a {describe(stands)} (R41), "
            f"so the {card.name} cannot go under it (R19)"
        )
    return f"the {card.name} cannot go under the {other.name} (R19: one rank higher, other colour)"
