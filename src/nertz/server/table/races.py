"""Races for one place in the middle, settled by credited time (R16, R27; docs/fairness.md).

Pure bookkeeping, no table: ``contest`` says whether a play can be contested; an
``Arbiter`` keeps the plays waiting for their race to be decided and orders them.

A play can be contested when another seat could take the same place now: it sends a
card to the foundation place (foundation, next card) that another seat's card, face
up and playable now (R14), also fits; a joker's announcement for a place another
seat's face-up joker could be announced for too (R41); or a
call while another seat's Nertz pile is empty too (R27). Such a play waits, with its
rivals, until no earlier play can still arrive: its credited time, plus the tie window
(R16), plus the longest trip any rival connection may be credited, and never more than
``WAIT_CAP_MS`` after it arrived. Then the race is decided in credited order: the
earliest wins, plays within ``tie_window_ms`` of it tie (R16), the rest are beaten by
so many ms. A play nobody can contest is not held at all, and a decided place stays
decided: a late play for it is beaten (or tied) by its credited time against the
winner's.

A seat's plays keep their order: while one is waiting, the seat's later plays wait
behind it (they may depend on the card it moves).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from nertz.engine import NERTZ, PILES, WASTE, Hand, Kind, Move, Phase

__all__ = [
    "CALL_PLACE",
    "WAIT_CAP_MS",
    "Arbiter",
    "Contest",
    "Race",
    "Stamped",
    "Verdict",
    "contest",
    "place_of",
]

WAIT_CAP_MS = 250
"""The longest a contested play waits for its rivals (a fixed cap)."""

Contest = tuple[int, int]
"""The place a race is for: (foundation number, ``Card.key`` of the card it takes)."""
CALL_PLACE: Contest = (-1, -1)
"""The race to call first (R27)."""

_SOURCES = (*range(PILES), NERTZ, WASTE)


class Stamped(NamedTuple):
    """A play with its times: who (``place_no``, its index in the table's places, and
    ``seat``), what, the connection to answer (None: a bot), and when it arrived and is
    credited. (A named tuple, not a frozen dataclass: one is made per play, in a fifth
    of the time.)"""

    place_no: int
    seat: int
    move: Move
    conn: int | None
    seq: int
    arrival_ms: int
    credited_ms: int


class Verdict(StrEnum):
    WON = "won"
    TIED = "tied"
    """R16: within ``tie_window_ms`` of the winner's credited time: both stay."""
    LOST = "lost"


@dataclass(slots=True)
class Race:
    """The plays for one place, waiting until ``settle_ms``."""

    place: Contest
    settle_ms: int
    cap_ms: int
    plays: list[Stamped] = field(default_factory=list)


def place_of(hand: Hand, seat: int, move: Move) -> Contest | None:
    """The place ``move`` of ``seat`` would take now: its foundation and the card's key
    (``CALL_PLACE`` for a call); None for a move that takes no contested place (a move
    of the seat's own cards, an ace, R12, or a move the engine would refuse)."""
    kind = move.kind
    if kind is Kind.CALL:
        return CALL_PLACE if hand.phase is Phase.PLAYING else None
    if kind is Kind.FOUNDATION:
        card = hand.top(seat, move.src)
        if card is None or card.rank <= 1:  # an ace starts its own foundation (R12)
            return None
        key = card.key
    elif kind is Kind.ANNOUNCE:
        key = move.card
        if key % 16 == 1:
            return None
    else:
        return None
    if move.dst >= 0:
        if move.dst >= len(hand.foundations) or hand.foundations[move.dst].needs != key:
            return None
        return move.dst, key
    fits = hand.wants.get(key)
    return (fits[0].number, key) if fits else None


def contest(hand: Hand, seat: int, move: Move) -> Contest | None:
    """The place ``move`` of ``seat`` would take if another seat could take it now, else
    None (module docstring)."""
    place = place_of(hand, seat, move)
    if place is None:
        return None
    if place == CALL_PLACE:
        for other, layout in enumerate(hand.seats):
            if other != seat and not layout.nertz:
                return place
        return None
    # A real card races real cards; a joker's announcement races other jokers' (a real
    # card beats an announced joker within its window, R41, which the engine keeps).
    joker = move.kind is Kind.ANNOUNCE
    key = place[1]
    for other in range(len(hand.seats)):
        if other == seat:
            continue
        for src in _SOURCES:
            card = hand.top(other, src)
            if card is not None and (card.rank == 0 if joker else card.key == key):
                return place
    return None


class Arbiter:
    """The plays waiting for their races, and the places decided this hand."""

    def __init__(self, tie_window_ms: int) -> None:
        self.tie_window_ms = tie_window_ms
        self.races: dict[Contest, Race] = {}
        self.behind: dict[int, list[Stamped]] = {}
        """Place index -> that place's later plays, waiting behind its play in a race."""
        self.decided: dict[Contest, int] = {}
        """Place -> the winner's credited time, this hand."""

    def waiting(self, index: int) -> bool:
        """Whether this place has a play in a race (its next plays queue behind it)."""
        return index in self.behind

    def queue(self, play: Stamped) -> None:
        self.behind[play.place_no].append(play)

    def join(self, place: Contest, play: Stamped, wait_ms: int) -> Race:
        """Enter ``play`` in the race for ``place``; it may wait ``wait_ms`` past its
        credited time for its rivals (capped at ``WAIT_CAP_MS`` after arrival)."""
        race = self.races.get(place)
        settle = play.credited_ms + wait_ms
        if race is None:
            cap = play.arrival_ms + WAIT_CAP_MS
            race = self.races[place] = Race(place, min(settle, cap), cap)
        elif play.credited_ms < min(p.credited_ms for p in race.plays):
            race.settle_ms = min(settle, race.cap_ms)  # a new leader: wait for its rivals
        race.plays.append(play)
        self.behind.setdefault(play.place_no, [])
        return race

    def due(self) -> int | None:
        """When the next race is decided, if any is waiting."""
        if not self.races:  # as nearly always: asked after every command
            return None
        return min(r.settle_ms for r in self.races.values())

    def settle(self, now_ms: int) -> tuple[Race, list[tuple[Stamped, Verdict, int]]] | None:
        """Take out the next race due by ``now_ms`` and its plays in credited order, each
        with its verdict and the ms it lost by (0 unless lost)."""
        due = [r for r in self.races.values() if r.settle_ms <= now_ms]
        if not due:
            return None
        race = min(due, key=lambda r: r.settle_ms)
        del self.races[race.place]
        plays = sorted(race.plays, key=lambda p: (p.credited_ms, p.arrival_ms))
        first = plays[0].credited_ms
        self.decided[race.place] = first
        ordered = [(plays[0], Verdict.WON, 0)]
        for play in plays[1:]:
            ordered.append(self._against(play, first))
        return race, ordered

    def placed(self, place: Contest, credited_ms: int) -> None:
        """``place`` was taken outside a race, by a play credited ``credited_ms`` that could
        have been contested but was placed the moment it came (its wait was already over):
        decided all the same, so a later play for it is judged by credited time too."""
        self.decided[place] = credited_ms

    def late(self, key: int, dst: int, play: Stamped) -> tuple[Verdict, int, Contest] | None:
        """A play of the card ``key`` for a foundation (``dst``, or -1 for any) whose
        place was raced for earlier this hand: tied or lost (by so many ms) by its
        credited time against the winner's, and that place; None when no race was for it."""
        best: tuple[int, Contest] | None = None
        for place, at in self.decided.items():
            fits = place[1] == key and place[0] >= 0 and dst in (-1, place[0])
            if fits and (best is None or at > best[0]):
                best = (at, place)
        if best is None:
            return None
        _, verdict, by = self._against(play, best[0])
        return verdict, by, best[1]

    def release(self, index: int) -> list[Stamped]:
        """The plays that waited behind this place's raced play, in order; unless it
        still has a play in another race."""
        if any(p.place_no == index for r in self.races.values() for p in r.plays):
            return []
        return self.behind.pop(index, [])

    def clear(self) -> list[Stamped]:
        """A new hand: every race forgotten; returns the plays still waiting (to refuse)."""
        left = [p for r in self.races.values() for p in r.plays]
        left += [p for queued in self.behind.values() for p in queued]
        self.races.clear()
        self.behind.clear()
        self.decided.clear()
        return left

    def _against(self, play: Stamped, first: int) -> tuple[Stamped, Verdict, int]:
        gap = play.credited_ms - first
        if self.tie_window_ms > 0 and gap <= self.tie_window_ms:
            return play, Verdict.TIED, 0
        return play, Verdict.LOST, max(gap, 1)
