"""A seat's layout and the deal (R4-R7, R33).

``SeatLayout`` is the mutable state of one seat, owned by a ``Hand``. Lists run
bottom to top, so the card in play is always the last one: ``nertz[-1]`` is the
face-up Nertz card (R4), ``waste[-1]`` the waste's top (R21), ``stock[-1]`` the next
card to turn. A work pile runs from its head (highest card) to its end card (R17).

``Deal`` is the frozen starting position of a hand: dealt from a seed (R4-R7), or
built from explicit layouts in a one-line text form for tests, puzzles and bug
reports::

    nertz: 4D 9C KH; work: KS QH / 7D / - / 2C; stock: AH 2H 3H; waste: -
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from .cards import MAX_SEATS, Card, full_deck
from .moves import PILES
from .rules import Rules

__all__ = ["Deal", "SeatLayout", "deal", "run_fits"]


def run_fits(lower: Card, upper: Card) -> bool:
    """True when ``lower`` may lie on ``upper``: one rank lower, other colour (R17)."""
    return lower.rank + 1 == upper.rank and lower.red != upper.red


class SeatLayout:
    """One seat's cards outside the middle: Nertz pile, four work piles, stock, waste."""

    __slots__ = ("fan", "nertz", "owner", "stock", "stuck", "waste", "work")

    def __init__(
        self,
        owner: int,
        nertz: list[Card],
        work: list[list[Card]],
        stock: list[Card],
        waste: list[Card],
        fan: int = 0,
    ) -> None:
        self.owner = owner
        self.nertz = nertz
        self.work = work
        self.stock = stock
        self.waste = waste
        self.fan = fan if waste else 0
        """How many cards of the last turn still lie on the waste (shown fanned)."""
        self.stuck = False
        """R25: this seat has said it is stuck."""

    def copy(self) -> SeatLayout:
        twin = SeatLayout(
            self.owner,
            self.nertz[:],
            [p[:] for p in self.work],
            self.stock[:],
            self.waste[:],
            self.fan,
        )
        twin.stuck = self.stuck
        return twin

    def cards(self) -> list[Card]:
        """Every card of the layout (not the middle)."""
        out = self.nertz + self.stock + self.waste
        for pile in self.work:
            out += pile
        return out

    def to_text(self) -> str:
        """The one-line text form that ``SeatLayout.parse`` reads back."""

        def cards(seq: Sequence[Card]) -> str:
            return " ".join(map(str, seq)) or "-"

        work = " / ".join(cards(p) for p in self.work)
        return (
            f"nertz: {cards(self.nertz)}; work: {work}; "
            f"stock: {cards(self.stock)}; waste: {cards(self.waste)}"
        )

    @staticmethod
    def parse(text: str, owner: int) -> SeatLayout:
        """Read a layout whose cards all belong to ``owner``; ``ValueError`` names any fault."""
        parts: dict[str, str] = {}
        for chunk in text.split(";"):
            if not chunk.strip():
                continue
            name, sep, body = chunk.partition(":")
            name = name.strip().lower()
            if not sep or name not in ("nertz", "work", "stock", "waste"):
                raise ValueError(
                    f"bad layout part {chunk.strip()!r}: expected 'nertz:', 'work:', "
                    "'stock:' or 'waste:'"
                )
            parts[name] = body

        def cards(body: str) -> list[Card]:
            return [Card.parse(t, owner) for t in body.split() if t != "-"]

        piles = [cards(p) for p in parts.get("work", "").split("/")] if "work" in parts else []
        if len(piles) > PILES:
            raise ValueError(f"a seat has {PILES} work piles, not {len(piles)}")
        piles += [[] for _ in range(PILES - len(piles))]
        for number, pile in enumerate(piles, 1):
            for lower, upper in zip(pile[1:], pile):
                if not run_fits(lower, upper):
                    raise ValueError(
                        f"work pile {number}: {lower} cannot lie on {upper} "
                        "(R17: one rank lower, other colour)"
                    )
        layout = SeatLayout(
            owner,
            cards(parts.get("nertz", "")),
            piles,
            cards(parts.get("stock", "")),
            cards(parts.get("waste", "")),
        )
        layout.fan = min(1, len(layout.waste))
        return layout


@dataclass(frozen=True, slots=True)
class Deal:
    """The starting position of one hand: each seat's layout as text, and any cards
    already in the middle (for puzzles). Dealt hands carry the seed that made them;
    the seed stays on the server (it is never part of a view)."""

    layouts: tuple[str, ...]
    middle: tuple[str, ...] = ()
    """Foundations already started, each as text bottom to top, e.g. ``AH@0 2H@1``."""
    seed: int | None = None
    _start: tuple[SeatLayout, ...] = field(default=(), repr=False, compare=False)
    """The layouts already built, when the deal made them (saves parsing its own text)."""

    @property
    def seats(self) -> int:
        return len(self.layouts)

    @staticmethod
    def from_layouts(layouts: Sequence[str], middle: Sequence[str] = ()) -> Deal:
        """An explicit deal; checks every layout and that no card appears twice."""
        if not 1 <= len(layouts) <= MAX_SEATS:
            raise ValueError(f"a hand has 1 to {MAX_SEATS} seats, not {len(layouts)}")
        result = Deal(tuple(layouts), tuple(middle))
        seen: set[Card] = set()
        for seat in result.build_layouts():
            for card in seat.cards():
                if card in seen:
                    raise ValueError(f"seat {seat.owner + 1} has {card} twice")
                seen.add(card)
        for pile in result.build_middle():
            for card in pile:
                if card in seen:
                    raise ValueError(f"{card.tagged} is both in the middle and elsewhere")
                if card.owner >= len(layouts):
                    raise ValueError(f"{card.tagged}: no seat {card.owner}")
                seen.add(card)
        return result

    def build_layouts(self) -> list[SeatLayout]:
        """Fresh mutable layouts for a new ``Hand``."""
        if self._start:
            return [layout.copy() for layout in self._start]
        return [SeatLayout.parse(text, owner) for owner, text in enumerate(self.layouts)]

    def build_middle(self) -> list[list[Card]]:
        """The starting foundations, checked (R12, R13)."""
        piles = []
        for text in self.middle:
            pile = [Card.parse(t) for t in text.split()]
            if not pile or pile[0].rank != 1:
                raise ValueError(f"foundation {text!r} must start with an ace (R12)")
            for below, above in itertools.pairwise(pile):
                same = above.rank == below.rank and above.owner != below.owner
                if above.suit != below.suit or not (above.rank == below.rank + 1 or same):
                    raise ValueError(f"foundation {text!r}: {above} cannot follow {below} (R13)")
            piles.append(pile)
        return piles


def deal(seats: int, rules: Rules, seed: int) -> Deal:
    """Deal a hand for 1 to 8 seats from ``seed``, each seat from its own deck (R1, R4-R6).

    Each seat's deck is shuffled by its own generator seeded from ``seed`` and the seat,
    so a seat's cards do not depend on how many others sit at the table.
    """
    if not 1 <= seats <= MAX_SEATS:
        raise ValueError(f"a hand has 1 to {MAX_SEATS} seats, not {seats}")
    texts = []
    layouts = []
    for owner in range(seats):
        deck = full_deck(owner)
        random.Random(f"nertz:{seed}:{owner}").shuffle(deck)
        size = rules.nertz_pile
        layout = SeatLayout(
            owner,
            deck[:size],
            [[c] for c in deck[size : size + PILES]],
            deck[size + PILES :],
            [],
        )
        texts.append(layout.to_text())
        layouts.append(layout)
    return Deal(tuple(texts), (), seed, tuple(layouts))
