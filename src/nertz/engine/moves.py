"""Moves: frozen values with a text notation that round-trips (R10-R27).

Sources are ``N`` (the top of the Nertz pile), ``W`` (the top of the waste) and the
work piles ``1``-``4``. Foundations are numbered ``F1``, ``F2`` ... in the order they
were started. Work piles and foundations are 1-based in text and 0-based in a ``Move``.

=========  ==========================================================  ======
text       meaning                                                     rule
=========  ==========================================================  ======
``N>F``    Nertz top to any foundation that takes it (an ace starts     R12-14
           a new one)
``W>F3``   waste top to foundation 3                                   R13
``2>F``    end card of work pile 2 to a foundation                      R14
``N>2``    Nertz top onto work pile 2, or into it when it is empty      R17-20
``3>1``    end card of work pile 3 onto work pile 1                    R17
``3/2>1``  the last two cards of work pile 3 onto work pile 1          R17-18
``W<2``    waste top slid under the head of work pile 2                R19
``N>F3=7H`` announce the Nertz top, a joker, as the 7H for foundation  R41
           3 (``N>F=AS``: as an ace, for a new foundation)
``T``      turn the stock (or turn the waste over when it is empty)    R21-23
``NERTZ``  call Nertz                                                  R27
``STUCK``  say this seat is stuck                                      R25
=========  ==========================================================  ======

``Move.parse(str(m)) == m`` for every move; bad text raises ``ValueError`` quoting it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final

from .cards import Card, Suit

__all__ = [
    "ANY",
    "CALL",
    "FOUNDATION_MOVES",
    "NERTZ",
    "PILES",
    "PILE_MOVES",
    "SOURCES",
    "STUCK",
    "TURN",
    "UNDER_MOVES",
    "WASTE",
    "Kind",
    "Move",
    "announce_key",
    "parse_source",
    "source_name",
    "source_text",
]

PILES: Final = 4
"""R5: four work piles per seat."""
NERTZ: Final = 4
"""Source code of the Nertz pile's top card."""
WASTE: Final = 5
"""Source code of the waste's top card."""
ANY: Final = -1
"""Foundation target meaning "whichever takes it" (for an ace: a new foundation)."""

MAX_RUN: Final = 54
"""The longest run a work pile can hold: a whole deck with its jokers (R41 lets any card
lie on a joker, so a pile is not limited to thirteen)."""

MAX_FOUNDATIONS: Final = 4 * 8
"""At most one foundation per ace in play: four per seat, eight seats."""


class Kind(IntEnum):
    """What a move does."""

    FOUNDATION = 0
    PILE = 1
    UNDER = 2
    TURN = 3
    CALL = 4
    STUCK = 5
    ANNOUNCE = 6
    """R41: a joker announced as a card for a foundation; it lands when the window ends."""


SOURCES: Final[tuple[tuple[str, str], ...]] = (
    ("1", "work pile 1"),
    ("2", "work pile 2"),
    ("3", "work pile 3"),
    ("4", "work pile 4"),
    ("N", "Nertz pile"),
    ("W", "waste"),
)
"""Every source by its code (work piles 0-3, ``NERTZ``, ``WASTE``): its notation and its
name in words. The one list of them: moves, refusals and the server read it here."""
_SOURCE_TEXT: Final = tuple(text for text, _ in SOURCES)


def source_name(src: int) -> str:
    """A source in words, e.g. ``work pile 2`` or ``Nertz pile``."""
    return SOURCES[src][1] if 0 <= src < len(SOURCES) else f"source {src}"


def source_text(src: int) -> str:
    """A source's notation: ``1``-``4``, ``N`` or ``W``."""
    return _SOURCE_TEXT[src]


def parse_source(text: str) -> int | None:
    """The source code written ``text`` (``1``-``4``, ``N``, ``W``), or None."""
    return _SOURCE_TEXT.index(text) if text in _SOURCE_TEXT else None


@dataclass(frozen=True, slots=True)
class Move:
    """One action of one seat. Build with the helpers or ``Move.parse``.

    ``src`` is a work pile 0-3, ``NERTZ`` or ``WASTE``; ``count`` is how many cards
    leave a work pile (a run, R17); ``dst`` is a work pile 0-3 or a foundation number
    (``ANY`` for whichever fits). ``card`` is the ``Card.key`` a joker is announced as
    (R41), 0 for every other move.
    """

    kind: Kind
    src: int = 0
    count: int = 1
    dst: int = ANY
    card: int = 0
    text: str = field(init=False, repr=False, compare=False)
    """The notation of the move (as ``str``), computed once."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", self._notation())

    @staticmethod
    def to_foundation(src: int, foundation: int = ANY) -> Move:
        """A card to the middle (R12-R14)."""
        return FOUNDATION_MOVES[src][foundation + 1]

    @staticmethod
    def to_pile(src: int, pile: int, count: int = 1) -> Move:
        """A card, or a run of ``count`` from a work pile, onto or into a work pile."""
        return PILE_MOVES[src][pile][count - 1]

    @staticmethod
    def under(src: int, pile: int) -> Move:
        """The slide-under shortcut (R19)."""
        return UNDER_MOVES[src][pile]

    @staticmethod
    def announce(src: int, card: Card, foundation: int = ANY) -> Move:
        """Announce the joker at ``src`` as ``card`` for ``foundation`` (R41); an ace is
        announced for a new foundation (``ANY``)."""
        if card.rank == 0:
            raise ValueError("a joker is announced as a real card, not as a joker (R41)")
        return announce_key(src, card.key, foundation)

    @property
    def announced(self) -> Card | None:
        """The card a joker is announced as (owner 0: only rank and suit count), if any."""
        if self.kind is not Kind.ANNOUNCE:
            return None
        return Card.of(self.card & 15, Suit(self.card >> 4))

    def __str__(self) -> str:
        return self.text

    def _notation(self) -> str:
        k = self.kind
        if k is Kind.FOUNDATION or k is Kind.ANNOUNCE:
            text = f"{_SOURCE_TEXT[self.src]}>F" + ("" if self.dst == ANY else str(self.dst + 1))
            if k is Kind.ANNOUNCE:
                text += f"={Card.of(self.card & 15, Suit(self.card >> 4))}"
            return text
        if k is Kind.PILE:
            run = f"/{self.count}" if self.count > 1 else ""
            return f"{_SOURCE_TEXT[self.src]}{run}>{self.dst + 1}"
        if k is Kind.UNDER:
            return f"{_SOURCE_TEXT[self.src]}<{self.dst + 1}"
        return ("T", "NERTZ", "STUCK")[k - Kind.TURN]

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    @staticmethod
    def parse(text: str) -> Move:
        """Read the notation above; raise ``ValueError`` quoting the bad text."""
        token = "".join(text.split()).upper()
        simple = {"T": TURN, "NERTZ": CALL, "STUCK": STUCK}
        if token in simple:
            return simple[token]
        try:
            if "=" in token:
                base_text, _, card_text = token.partition("=")
                base = Move.parse(base_text)
                if base.kind is not Kind.FOUNDATION:
                    raise ValueError
                return Move.announce(base.src, Card.parse(card_text), base.dst)
            if "<" in token:
                src_text, dst_text = token.split("<")
                return UNDER_MOVES[_parse_src(src_text)][_parse_pile(dst_text)]
            src_text, dst_text = token.split(">")
            if dst_text.startswith("F"):
                number = int(dst_text[1:]) if dst_text[1:] else 0
                if not (0 if dst_text == "F" else 1) <= number <= MAX_FOUNDATIONS:
                    raise ValueError
                return FOUNDATION_MOVES[_parse_src(src_text)][number]
            count = 1
            if "/" in src_text:
                src_text, count_text = src_text.split("/")
                count = int(count_text)
                if not 1 <= count <= MAX_RUN or src_text in ("N", "W"):
                    raise ValueError
            return PILE_MOVES[_parse_src(src_text)][_parse_pile(dst_text)][count - 1]
        except (ValueError, IndexError, KeyError):
            raise ValueError(
                f"not a move: {text!r} (e.g. 'N>F', 'W>F3', '3/2>1', 'W<2', 'T', 'NERTZ', "
                "'STUCK', 'N>F2=7H'; see docs/engine.md)"
            ) from None


def _parse_src(text: str) -> int:
    return _SOURCE_TEXT.index(text)


def _parse_pile(text: str) -> int:
    pile = int(text) - 1
    if not 0 <= pile < PILES or not text.isdigit():
        raise ValueError
    return pile


# Every move is interned: legal-move generation looks moves up instead of building them.
def announce_key(src: int, key: int, foundation: int = ANY) -> Move:
    """``Move.announce`` for a real card given by its ``Card.key`` (never a joker's):
    the legal-move lists ask it for every card a foundation takes next, and each such
    move is made once and kept."""
    at = (src, foundation, key)
    move = _ANNOUNCE.get(at)
    if move is None:
        move = _ANNOUNCE[at] = Move(Kind.ANNOUNCE, src, 1, foundation, key)
    return move


FOUNDATION_MOVES: Final = tuple(
    tuple(Move(Kind.FOUNDATION, src, 1, f) for f in range(ANY, MAX_FOUNDATIONS)) for src in range(6)
)
"""``FOUNDATION_MOVES[src][foundation + 1]``: every card-to-the-middle move (``ANY`` first)."""
PILE_MOVES: Final = tuple(
    tuple(
        tuple(Move(Kind.PILE, src, n, pile) for n in range(1, MAX_RUN + 1)) for pile in range(PILES)
    )
    for src in range(6)
)
"""``PILE_MOVES[src][pile][count - 1]``: every move onto or into a work pile."""
UNDER_MOVES: Final = tuple(
    tuple(Move(Kind.UNDER, src, 1, pile) for pile in range(PILES)) for src in range(6)
)
"""``UNDER_MOVES[src][pile]``: every slide-under move (R19)."""
_ANNOUNCE: Final[dict[tuple[int, int, int], Move]] = {}
"""Announcements, interned as they are first made (there are thousands of possible ones)."""
TURN: Final = Move(Kind.TURN)
CALL: Final = Move(Kind.CALL)
STUCK: Final = Move(Kind.STUCK)
