"""What a table leaves behind: its store records, and engine events in their public form.

A table's durable state is small and append-only: who holds each place
(``SeatRecord``), each hand's deal (``DealRecord``, R33), each hand's accepted inputs
(``InputRecord``, ``Hand.log``), each hand's scores (``ScoreRecord``, R29-R31), the
match's end (``MatchRecord``, R32), each hand's races won and lost per seat
(``RacesRecord``), every public event exactly as it was sent (``EventRecord``) and the
table's chat, line by line (``ChatRecord``, ``chat.py``). The store writes them;
``read_records`` groups them back for ``Table.restore``. No table here: the store
imports this module, not the table.

``public_event`` turns an engine event into the event a table sends
(``protocol.TableEvent``): the engine's events carry face-up cards only, so it is the
same for everyone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nertz.engine import (
    Called,
    CardsMoved,
    Deal,
    EndReason,
    Event,
    Hand,
    HandEnded,
    JokerAnnounced,
    JokerStayed,
    Kind,
    Rotated,
    Rules,
    SaidStuck,
    Started,
    StockTurned,
    deal,
)
from nertz.server.protocol import (
    AnnouncedEvent,
    CalledEvent,
    EndedEvent,
    GoEvent,
    JokerStayedEvent,
    MovedEvent,
    RotatedEvent,
    StuckEvent,
    TableEvent,
    TurnedEvent,
)

__all__ = [
    "ChatRecord",
    "DealRecord",
    "DiscardRecord",
    "EventRecord",
    "InputRecord",
    "MatchBegunRecord",
    "MatchRecord",
    "RacesRecord",
    "Record",
    "ScoreRecord",
    "SeatRecord",
    "StoredHand",
    "hand_caller",
    "hand_scores",
    "public_event",
    "read_records",
    "rebuild_deal",
]


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """Who holds a place: a seat, or one partner of a partnership seat (R40)."""

    seat: int
    name: str
    token_hash: str | None
    bot: str | None
    partner: int = 0
    outside: bool = False
    """An outside bot's place (a registered program, not a server bot): marked a bot."""


@dataclass(frozen=True, slots=True)
class DealRecord:
    """A hand's deal (R33): its layouts in ``Deal.from_layouts`` form and the seed that
    dealt them (None for an explicit deal)."""

    hand: int
    layouts: tuple[str, ...]
    seed: int | None
    middle: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class InputRecord:
    """One accepted input of a hand (``Hand.log[index]``): the time the engine was handed
    it, seat, move; and for a play at a table with ``fair_races``, when it arrived and
    the time it was credited (docs/fairness.md), the times its races were decided by."""

    hand: int
    index: int
    at_ms: int
    seat: int
    text: str
    arrival_ms: int | None = None
    credited_ms: int | None = None

    def row(self) -> dict[str, Any]:
        """Its columns in the ``inputs`` table (the store adds the table's id)."""
        return {
            "hand": self.hand,
            "idx": self.index,
            "at_ms": self.at_ms,
            "seat": self.seat,
            "text": self.text,
            "arrival_ms": self.arrival_ms,
            "credited_ms": self.credited_ms,
        }

    @staticmethod
    def of_row(row: Any) -> InputRecord:
        """The record of a row read back from the ``inputs`` table."""
        return InputRecord(
            row.hand, row.idx, row.at_ms, row.seat, row.text, row.arrival_ms, row.credited_ms
        )


@dataclass(frozen=True, slots=True)
class ScoreRecord:
    """A finished hand's scores (R29-R31), its caller (R27) and how it ended."""

    hand: int
    scores: tuple[dict[str, int], ...]
    caller: int | None
    end: str


@dataclass(frozen=True, slots=True)
class RacesRecord:
    """A finished hand's races per seat (R16, R27; ``fair.py``): how many each seat won
    (a rival's play was beaten by its own) and lost, and which match of the table's
    series the hand was part of."""

    hand: int
    match: int
    won: tuple[int, ...]
    lost: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One public event message, the bytes every connection was sent."""

    version: int
    body: bytes


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """The match is over (R32): the ``number``-th of the table's series, which began
    with hand ``first_hand``; ``players``, who held each place at its end (seat,
    partner, name, bot spec), so its records name them whatever happens to the seats
    afterwards."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]
    number: int = 1
    first_hand: int = 1
    players: tuple[tuple[int, int, str | None, str | None], ...] = ()
    away: tuple[tuple[int, int], ...] = ()
    """The places (seat, partner) of people a bot played for at the match's end (a
    takeover or the host's stand-in): a rated match ranks them last (issue 26)."""


@dataclass(frozen=True, slots=True)
class MatchBegunRecord:
    """The table's next match began (a series, ``series.py``): the table plays again."""

    number: int
    first_hand: int


@dataclass(frozen=True, slots=True)
class ChatRecord:
    """One line of table chat (``chat.py``): its number at the table, the match of the
    series it was said in, who said it and what."""

    n: int
    match: int
    seat: int
    partner: int
    name: str
    text: str


@dataclass(frozen=True, slots=True)
class DiscardRecord:
    """A table that ended before its first deal: nothing of it is worth keeping (the
    store forgets it, so it never comes back after a restart)."""


Record = (
    SeatRecord
    | DealRecord
    | InputRecord
    | ScoreRecord
    | RacesRecord
    | EventRecord
    | MatchRecord
    | MatchBegunRecord
    | DiscardRecord
    | ChatRecord
)

StoredHand = tuple[DealRecord, Sequence[tuple[int, int, str]]]
"""A hand as stored: its deal and its inputs in order (``Hand.log`` entries)."""


def read_records(
    records: Sequence[Record],
) -> tuple[list[SeatRecord], list[StoredHand], list[bytes]]:
    """A table's records in the order they were produced (the store's rows), grouped
    for ``Table.restore``: the latest record of each place (each partner of a seat,
    R40), each hand's deal with its inputs in order, every event body. Raises
    ``ValueError`` on inputs or events out of order."""
    seats: dict[tuple[int, int], SeatRecord] = {}
    hands: dict[int, tuple[DealRecord, list[tuple[int, int, str]]]] = {}
    events: list[bytes] = []
    for record in records:
        if type(record) is SeatRecord:
            seats[(record.seat, record.partner)] = record
        elif type(record) is DealRecord:
            hands[record.hand] = (record, [])
        elif type(record) is InputRecord:
            log = hands[record.hand][1]
            if record.index != len(log):
                raise ValueError(f"hand {record.hand}: input {record.index} out of order")
            log.append((record.at_ms, record.seat, record.text))
        elif type(record) is EventRecord:
            if record.version != len(events) + 1:
                raise ValueError(f"event {record.version} out of order")
            events.append(record.body)
    return list(seats.values()), [hands[n] for n in sorted(hands)], events


def rebuild_deal(record: DealRecord, rules: Rules) -> Deal:
    """The deal of a stored hand: from its seed, checked against its stored layouts."""
    if record.seed is not None:
        dealt = deal(len(record.layouts), rules, record.seed)
        if dealt.layouts == tuple(record.layouts):
            return dealt
    return Deal.from_layouts(record.layouts, record.middle)


def hand_caller(hand: Hand) -> int | None:
    """Who called Nertz to end a finished hand (R27), if anyone did."""
    return hand.caller if hand.end_reason is EndReason.CALLED else None


def hand_scores(hand: Hand) -> tuple[dict[str, int], ...]:
    """Each seat's score of a finished hand (R29-R31), as stored and sent."""
    return tuple(s.as_dict() for s in hand.scores())


def public_event(event: Event) -> TableEvent:
    """An engine event as the table sends it (face-up cards only, as the engine
    guarantees)."""
    if type(event) is CardsMoved:
        return MovedEvent(
            seat=event.seat,
            move=event.move.text,
            cards=[str(c) for c in event.cards],
            foundation=event.foundation + 1 if event.foundation >= 0 else None,
            tie=event.tie,
            revealed=str(event.revealed) if event.revealed is not None else None,
            # R41: an announced joker landed; it stands for the announced card there.
            as_=str(event.move.announced) if event.move.kind is Kind.ANNOUNCE else None,
        )
    if type(event) is JokerAnnounced:
        return AnnouncedEvent(
            seat=event.seat,
            move=event.move.text,
            joker=str(event.joker),
            as_=str(event.move.announced),
            foundation=event.foundation + 1 if event.foundation >= 0 else None,
            until_ms=event.until_ms,
        )
    if type(event) is JokerStayed:
        return JokerStayedEvent(
            seat=event.seat, move=event.move.text, joker=str(event.joker), reason=event.reason
        )
    if type(event) is StockTurned:
        return TurnedEvent(seat=event.seat, cards=[str(c) for c in event.cards])
    if type(event) is Started:
        return GoEvent(at_ms=event.at_ms)
    if type(event) is Called:
        return CalledEvent(seat=event.seat)
    if type(event) is SaidStuck:
        return StuckEvent(seat=event.seat)
    if type(event) is Rotated:
        return RotatedEvent(number=event.number, idle=event.idle)
    if type(event) is HandEnded:
        return EndedEvent(reason=event.reason.value, caller=event.caller)
    raise TypeError(f"unknown engine event {event!r}")
