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
from dataclasses import dataclass

from .cards import MAX_SEATS, Card, full_deck
from .jokers import lies_on
from .moves import NERTZ, PILES, WASTE
from .rules import Rules

__all__ = ["Deal", "SeatLayout", "deal"]


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

    def top(self, src: int) -> Card | None:
        """The face-up card a move takes from ``src`` (the Nertz or waste top, or a work
        pile's end card, R14), left where it is; None if there is none."""
        if src == NERTZ:
            pile = self.nertz
        elif src == WASTE:
            pile = self.waste
        elif 0 <= src < PILES:
            pile = self.work[src]
        else:
            return None
        return pile[-1] if pile else None

    def remove_top(self, src: int) -> Card | None:
        """Remove the card ``top(src)`` names; return the Nertz card it reveals, if any
        (R4)."""
        if src == NERTZ:
            self.nertz.pop()
            return self.nertz[-1] if self.nertz else None
        if src == WASTE:
            self.waste.pop()
            self.fan -= 1
            if self.fan <= 0:
                self.fan = 1 if self.waste else 0
        else:
            self.work[src].pop()
        return None

    def rotate(self) -> None:
        """R25: turn the stock onto the waste, turn the waste over and put the new
        stock's top card at the bottom."""
        # Stock and waste bottom-to-top; after turning everything over the new stock is
        # the old stock under the reversed waste; then its top goes to the bottom.
        stock = self.stock + self.waste[::-1]
        if stock:
            stock.insert(0, stock.pop())
        self.stock, self.waste, self.fan = stock, [], 0
        self.stuck = False

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
            for upper, lower in itertools.pairwise(pile):
                # A joker may lie on anything and anything on a joker (R41): it was free
                # when it was placed, whatever later pinned it.
                if not (lower.is_joker or upper.is_joker or lies_on(lower, None, upper)):
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


SeatStart = tuple[tuple[Card, ...], ...]
"""One seat's starting cards: Nertz pile, the four work piles, stock, waste."""


def _start(layout: SeatLayout) -> SeatStart:
    return (tuple(layout.nertz), *map(tuple, layout.work), tuple(layout.stock), tuple(layout.waste))


@dataclass(frozen=True, slots=True)
class Deal:
    """The starting position of one hand: each seat's cards, and any cards already in
    the middle (for puzzles). Dealt hands carry the seed that made them; the seed stays
    on the server (it is never part of a view)."""

    starts: tuple[SeatStart, ...]
    middle: tuple[str, ...] = ()
    """Foundations already started, each as text bottom to top, e.g. ``AH@0 2H@1``."""
    seed: int | None = None

    @property
    def seats(self) -> int:
        return len(self.starts)

    @property
    def layouts(self) -> tuple[str, ...]:
        """Each seat's layout in the text form ``Deal.from_layouts`` reads back."""
        return tuple(layout.to_text() for layout in self.build_layouts())

    @staticmethod
    def from_layouts(layouts: Sequence[str], middle: Sequence[str] = ()) -> Deal:
        """An explicit deal; checks every layout and that no card appears twice."""
        if not 1 <= len(layouts) <= MAX_SEATS:
            raise ValueError(f"a hand has 1 to {MAX_SEATS} seats, not {len(layouts)}")
        seats = [SeatLayout.parse(text, owner) for owner, text in enumerate(layouts)]
        result = Deal(tuple(_start(seat) for seat in seats), tuple(middle))
        seen: set[Card] = set()
        for seat in seats:
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
        return [
            SeatLayout(
                owner,
                list(start[0]),
                [list(pile) for pile in start[1 : 1 + PILES]],
                list(start[1 + PILES]),
                list(start[2 + PILES]),
                min(1, len(start[2 + PILES])),
            )
            for owner, start in enumerate(self.starts)
        ]

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
    """Deal a hand for 1 to 8 seats from ``seed``, each seat from its own deck (R1, R4-R6);
    with ``rules.jokers`` each deck has 54 cards and the stock 37 (R41).

    Each seat's deck is shuffled by its own generator seeded from ``seed`` and the seat,
    so a seat's cards do not depend on how many others sit at the table.
    """
    if not 1 <= seats <= MAX_SEATS:
        raise ValueError(f"a hand has 1 to {MAX_SEATS} seats, not {seats}")
    starts = []
    size = rules.nertz_pile
    for owner in range(seats):
        deck = full_deck(owner, rules.jokers)
        random.Random(f"nertz:{seed}:{owner}").shuffle(deck)
        work = tuple((c,) for c in deck[size : size + PILES])
        starts.append((tuple(deck[:size]), *work, tuple(deck[size + PILES :]), ()))
    return Deal(tuple(starts), (), seed)
