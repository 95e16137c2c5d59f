"""Cards: small immutable values with a text form that round-trips (R1, R3).

A card is a rank (1 = ace ... 13 = king), a suit, and the seat that owns it: every
seat plays its own deck with its own back (R1), so the owner travels with the card.
Cards are interned: ``Card.of(rank, suit, owner)`` always returns the same object, so
the engine can compare cards by identity on its hot path.

Text forms: ASCII ``AS``, ``10H`` (``TH`` is accepted for ten), ``QD``; and symbols
``10♥``, ``Q♦``. ``str(card)`` is the ASCII form without the owner;
``repr(card)`` is code that builds the same card, owner included.

Jokers (R41) are rank 0: a deck with jokers has two, ``JK1`` (suit clubs, the black
one) and ``JK2`` (suit hearts, the red one). A joker's suit only tells the two apart:
what a joker stands for is decided where it lies (``jokers.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final

__all__ = ["JOKER", "MAX_SEATS", "RANK_NAMES", "Card", "Suit", "full_deck"]

MAX_SEATS: Final = 8
"""R2: at most eight seats."""


class Suit(IntEnum):
    """The four suits (R3); hearts and diamonds are red."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]

    @property
    def red(self) -> bool:
        return self is Suit.DIAMONDS or self is Suit.HEARTS


JOKER: Final = 0
"""R41: the rank of a joker."""
_JOKER_SUITS: Final = (Suit.CLUBS, Suit.HEARTS)
"""``JK1`` and ``JK2``: the suit only tells a deck's two jokers apart."""

RANK_NAMES: Final = ("JK", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_RANK_OF: Final = {name: i for i, name in enumerate(RANK_NAMES) if i} | {"T": 10, "1": 1}
_SUIT_OF: Final = (
    {s.letter: s for s in Suit}
    | {s.symbol: s for s in Suit}
    # Symbol variants people type: the white suits and emoji forms.
    | {"♡": Suit.HEARTS, "♢": Suit.DIAMONDS, "♤": Suit.SPADES, "♧": Suit.CLUBS}
)


@dataclass(frozen=True, slots=True)
class Card:
    """One card of one seat's deck (R1).

    ``key`` packs suit and rank (``suit * 16 + rank``) and ``red`` caches the colour,
    so fit checks are integer comparisons.
    """

    rank: int
    suit: Suit
    owner: int = 0
    red: bool = field(init=False, repr=False, compare=False)
    """Hearts and diamonds are red (R3)."""
    key: int = field(init=False, repr=False, compare=False)
    """Suit and rank packed in one int, the same for every owner's copy."""
    place: int = field(init=False, repr=False, compare=False)
    """Rank and colour packed (``rank * 2 + red``): what a work pile asks of a card."""
    accepts: int = field(init=False, repr=False, compare=False)
    """The ``place`` of the cards that may lie on this one (R17)."""
    under: int = field(init=False, repr=False, compare=False)
    """The ``place`` of the cards that may slide under this one (R19)."""

    def __post_init__(self) -> None:
        red = self.suit.red
        rank = self.rank
        if rank == JOKER:
            # Nothing asks for a joker's place and it slides under nothing by its own
            # rank: every fit with a joker is decided by the joker rules (R41).
            object.__setattr__(self, "red", red)
            object.__setattr__(self, "key", self.suit * 16)
            object.__setattr__(self, "place", -1)
            object.__setattr__(self, "accepts", -2)
            object.__setattr__(self, "under", -3)
            return
        object.__setattr__(self, "red", red)
        object.__setattr__(self, "key", self.suit * 16 + rank)
        object.__setattr__(self, "place", rank * 2 + red)
        object.__setattr__(self, "accepts", (rank - 1) * 2 + (not red))
        object.__setattr__(self, "under", (rank + 1) * 2 + (not red))

    @staticmethod
    def of(rank: int, suit: Suit, owner: int = 0) -> Card:
        """The interned card of that rank, suit and owner."""
        return _CARDS[owner][suit][rank]

    @staticmethod
    def joker(number: int, owner: int = 0) -> Card:
        """Joker 1 or 2 of ``owner``'s deck (R41)."""
        if number not in (1, 2):
            raise ValueError(f"a deck has jokers 1 and 2, not {number}")
        return _CARDS[owner][_JOKER_SUITS[number - 1]][JOKER]

    @property
    def is_joker(self) -> bool:
        """R41: a joker stands for any card."""
        return self.rank == JOKER

    @staticmethod
    def parse(text: str, owner: int = 0) -> Card:
        """Read ``AS``, ``10H``, ``TH``, ``Q♦``, ``JK1`` ...; raise ``ValueError`` quoting
        bad text.

        ``QH@2`` names the owner in the text and overrides ``owner``.
        """
        token = text.strip().upper()
        if "@" in token:
            token, _, seat = token.partition("@")
            if not seat.isdigit():
                raise ValueError(f"not a card: {text!r} (the owner after '@' is a seat number)")
            owner = int(seat)
        if token in ("JK1", "JK2"):
            if not 0 <= owner < MAX_SEATS:
                raise ValueError(
                    f"card owner must be a seat from 0 to {MAX_SEATS - 1}, not {owner}"
                )
            return Card.joker(int(token[2]), owner)
        if len(token) < 2:
            raise ValueError(f"not a card: {text!r} (expected rank then suit, e.g. 'QH' or '10♥')")
        rank = _RANK_OF.get(token[:-1])
        suit = _SUIT_OF.get(token[-1])
        if rank is None or suit is None:
            raise ValueError(
                f"not a card: {text!r} (ranks A 2-10 J Q K, T for ten; suits C D H S or ♣ ♦ ♥ ♠;"
                " jokers JK1 JK2)"
            )
        if not 0 <= owner < MAX_SEATS:
            raise ValueError(f"card owner must be a seat from 0 to {MAX_SEATS - 1}, not {owner}")
        return _CARDS[owner][suit][rank]

    @property
    def tagged(self) -> str:
        """The text form with the owner, e.g. ``QH@2``; ``Card.parse`` reads it back."""
        return f"{self}@{self.owner}"

    @property
    def symbol(self) -> str:
        """The symbol form, e.g. ``10♥``; a joker is ``🃏1`` or ``🃏2``."""
        if self.rank == JOKER:
            return f"🃏{self._joker_number}"
        return RANK_NAMES[self.rank] + self.suit.symbol

    @property
    def _joker_number(self) -> int:
        return _JOKER_SUITS.index(self.suit) + 1

    @property
    def name(self) -> str:
        """A spoken name for screen readers and messages, e.g. ``queen of hearts``."""
        if self.rank == JOKER:
            return f"joker {self._joker_number}"
        words = ("", "ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")
        return f"{words[self.rank]} of {self.suit.name.lower()}"

    def __str__(self) -> str:
        if self.rank == JOKER:
            return f"JK{self._joker_number}"
        return RANK_NAMES[self.rank] + self.suit.letter

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r}, owner={self.owner})"


_CARDS: Final[tuple[tuple[tuple[Card, ...], ...], ...]] = tuple(
    tuple(tuple(Card(r, s, o) for r in range(14)) for s in Suit) for o in range(MAX_SEATS)
)


def full_deck(owner: int, jokers: bool = False) -> list[Card]:
    """The 52 cards of one seat's deck, clubs to spades, ace to king (R1), then its two
    jokers when ``jokers`` (R41: 54 cards)."""
    deck = [_CARDS[owner][s][r] for s in Suit for r in range(1, 14)]
    if jokers:
        deck += [_CARDS[owner][s][JOKER] for s in _JOKER_SUITS]
    return deck
