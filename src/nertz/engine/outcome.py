"""What a play returns: accepted with events, or refused with a code and a sentence.

A refused play changes nothing. Events carry only what every seat may see: cards
that moved face up, never a face-down card or the stock's order.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from .cards import Card
from .moves import NERTZ, Move, source_name

__all__ = [
    "LATE_REFUSALS",
    "Called",
    "CardsMoved",
    "EndReason",
    "Event",
    "HandEnded",
    "JokerAnnounced",
    "JokerStayed",
    "Outcome",
    "Refusal",
    "Rotated",
    "SaidStuck",
    "Started",
    "StockTurned",
]


class Refusal(StrEnum):
    """Why a play was refused (the code a client sees)."""

    NOT_STARTED = "not_started"
    """R8: a move before Go."""
    HAND_OVER = "hand_over"
    """R28: the hand has ended, or the move came after the landing window."""
    NO_SUCH_SEAT = "no_such_seat"
    NOT_AVAILABLE = "not_available"
    """R14: the named source has no such card (empty pile, run longer than the pile)."""
    DOES_NOT_FIT = "does_not_fit"
    """R13, R17: the card does not go there."""
    BEATEN = "beaten"
    """R16: another card of that rank got to the foundation first."""
    NO_SUCH_FOUNDATION = "no_such_foundation"
    NO_EMPTY_SPACE = "no_empty_space"
    """R19: the slide-under needs an empty work space."""
    SAME_PILE = "same_pile"
    NOTHING_TO_TURN = "nothing_to_turn"
    """R21-R23: stock and waste are both empty."""
    NERTZ_NOT_EMPTY = "nertz_not_empty"
    """R27: a call with cards still in the Nertz pile."""
    ALREADY_CALLED = "already_called"
    """R28: somebody has called; only cards in the air may still land."""
    ALREADY_STUCK = "already_stuck"
    JOKER_ANNOUNCED = "joker_announced"
    """R41: that joker is already announced; it lands or stays when the window ends."""
    PARTNER_HOLDS = "partner_holds"
    """R40: the seat's other partner has picked up that card (``holds.Holds``)."""


LATE_REFUSALS: Final = frozenset({Refusal.BEATEN, Refusal.HAND_OVER, Refusal.ALREADY_CALLED})
"""The refusals a correct player can still get: the table moved on while its move was on
its way (a lost race, R16; the call and the end of the landing window, R28). Any other
refusal of a bot's move is a bug in the bot."""


# Events and outcomes are made on every play, so each writes its own ``__init__``: a
# frozen dataclass's generated one is interpreted Python even in the compiled build
# (``object.__setattr__`` per field, about 0.5-0.9 us each), where this one compiles to a
# few stores. ``Final`` keeps them frozen: mypy refuses any later assignment, and the
# compiled build makes the attributes read-only. The dataclass still gives equality,
# hashing, ``repr`` and ``fields``.


@dataclass(init=False, unsafe_hash=True, slots=True)
class Event:
    """Base of everything that happened at the table."""


@dataclass(init=False, unsafe_hash=True, slots=True)
class Started(Event):
    """R8: Go."""

    at_ms: Final[int]

    def __init__(self, at_ms: int) -> None:
        self.at_ms = at_ms


@dataclass(init=False, unsafe_hash=True, slots=True)
class CardsMoved(Event):
    """Cards left a seat's pile for a work pile or the middle.

    ``foundation`` is the foundation number for a play to the middle (else -1);
    ``tie`` marks a true tie (R16); ``revealed`` is the Nertz card turned face up (R4).
    """

    seat: Final[int]
    move: Final[Move]
    cards: Final[tuple[Card, ...]]
    foundation: Final[int]
    tie: Final[bool]
    revealed: Final[Card | None]

    def __init__(
        self,
        seat: int,
        move: Move,
        cards: tuple[Card, ...],
        foundation: int = -1,
        tie: bool = False,
        revealed: Card | None = None,
    ) -> None:
        self.seat = seat
        self.move = move
        self.cards = cards
        self.foundation = foundation
        self.tie = tie
        self.revealed = revealed


@dataclass(init=False, unsafe_hash=True, slots=True)
class StockTurned(Event):
    """R21-R23: cards turned onto the waste, or the waste turned over (``cards`` empty)."""

    seat: Final[int]
    cards: Final[tuple[Card, ...]]

    def __init__(self, seat: int, cards: tuple[Card, ...]) -> None:
        self.seat = seat
        self.cards = cards


@dataclass(init=False, unsafe_hash=True, slots=True)
class JokerAnnounced(Event):
    """R41: ``seat`` announced the joker on its ``move.src`` as ``move.announced`` for
    ``foundation`` (-1: a new one, for an ace). Until ``until_ms`` any seat may play that
    real card there first; then the joker lands (``CardsMoved``) or stays
    (``JokerStayed``)."""

    seat: Final[int]
    move: Final[Move]
    joker: Final[Card]
    foundation: Final[int]
    until_ms: Final[int]

    def __init__(self, seat: int, move: Move, joker: Card, foundation: int, until_ms: int) -> None:
        self.seat = seat
        self.move = move
        self.joker = joker
        self.foundation = foundation
        self.until_ms = until_ms


@dataclass(init=False, unsafe_hash=True, slots=True)
class JokerStayed(Event):
    """R41: an announced joker did not land and stays where it was; ``reason`` says why."""

    seat: Final[int]
    move: Final[Move]
    joker: Final[Card]
    reason: Final[str]

    def __init__(self, seat: int, move: Move, joker: Card, reason: str) -> None:
        self.seat = seat
        self.move = move
        self.joker = joker
        self.reason = reason


@dataclass(init=False, unsafe_hash=True, slots=True)
class Called(Event):
    """R27: a seat called Nertz."""

    seat: Final[int]

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(init=False, unsafe_hash=True, slots=True)
class SaidStuck(Event):
    """R25: a seat said it is stuck."""

    seat: Final[int]

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(init=False, unsafe_hash=True, slots=True)
class Rotated(Event):
    """R25: every seat's stock rotated; ``idle`` when the idle timer caused it."""

    number: Final[int]
    idle: Final[bool]

    def __init__(self, number: int, idle: bool) -> None:
        self.number = number
        self.idle = idle


class EndReason(StrEnum):
    CALLED = "called"
    """R27-R28: a seat called and the landing window closed."""
    BLOCKED = "blocked"
    """R26: still blocked after ``max_rotations`` rotations."""


@dataclass(init=False, unsafe_hash=True, slots=True)
class HandEnded(Event):
    """The hand is over; ``caller`` is the seat that called, if any."""

    reason: Final[EndReason]
    caller: Final[int | None]

    def __init__(self, reason: EndReason, caller: int | None) -> None:
        self.reason = reason
        self.caller = caller


@dataclass(init=False, unsafe_hash=True, slots=True)
class Outcome:
    """The answer to a play: ``ok`` with events, or a refusal code and a sentence."""

    ok: Final[bool]
    events: Final[tuple[Event, ...]]
    code: Final[Refusal | None]
    reason: Final[str]

    def __init__(
        self,
        ok: bool,
        events: tuple[Event, ...] = (),
        code: Refusal | None = None,
        reason: str = "",
    ) -> None:
        self.ok = ok
        self.events = events
        self.code = code
        self.reason = reason

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return "ok" if self.ok else f"{self.code.value if self.code else '?'}: {self.reason}"


def refuse(code: Refusal, reason: str) -> Outcome:
    """A refused play."""
    return Outcome(False, (), code, reason)


def nothing_to_play(move: Move) -> Outcome:
    """The refusal of a move whose source has no card (R14)."""
    src = move.src
    where = source_name(src) if src < NERTZ else f"your {source_name(src)}"
    return refuse(Refusal.NOT_AVAILABLE, f"{where} has no card to play")
