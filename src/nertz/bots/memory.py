"""A bot's memory of its hand: built from a seat's view, kept up to date by events.

A ``Memory`` holds exactly what a person at the seat knows: its own face-up cards (the
Nertz top, the work piles, every waste card it turned itself, R21), counts of its
face-down cards, what each foundation takes next (R13), and every seat's Nertz pile
size, middle count and stuck flag. It is built from ``view(hand, seat)`` (a JSON-ready
dict) and updated from the public ``Event`` values the table announces. It never sees
a ``Hand``; turning events per action into a compact model is also what makes bots fast
enough for the simulator (a view costs far more than an event).

With jokers (R41) a joker is a ``Card`` of rank 0 wherever it lies; what a foundation
takes next follows the card a landed joker was announced as, and ``announced`` lists
the jokers whose announcement window is open (everyone's, the seat's own included).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from nertz.engine import (
    NERTZ,
    PILES,
    WASTE,
    Called,
    Card,
    CardsMoved,
    Event,
    HandEnded,
    JokerAnnounced,
    JokerStayed,
    Kind,
    Move,
    Rotated,
    SaidStuck,
    StockTurned,
)

__all__ = ["Announced", "Memory"]

_NOTHING_BUSY: dict[int, int] = {}
"""``Memory.busy`` with no announcement open; never changed."""

Announced = tuple[int, int, Card, int, int, int]
"""An open joker announcement (R41): ``(seat, src, joker, key, foundation, until_ms)``,
``key`` the ``Card.key`` it stands for, ``foundation`` 0-based or -1 for a new one."""


class Memory:
    """One seat's knowledge of the hand in progress. Lists run bottom to top."""

    __slots__ = (
        "announced",
        "called",
        "middle",
        "nertz_count",
        "nertz_counts",
        "nertz_top",
        "news",
        "over",
        "pool",
        "progress",
        "seat",
        "seats",
        "stock_count",
        "stuck",
        "version",
        "wants",
        "waste",
        "work",
    )

    def __init__(self, seat_view: Mapping[str, Any]) -> None:
        self.seat: int = seat_view["you"]
        self.seats = len(seat_view["seats"])
        self.nertz_top: Card | None = None
        self.nertz_count = 0
        self.work: list[list[Card]] = [[] for _ in range(PILES)]
        self.waste: list[Card] = []
        """Every waste card the seat has seen land, bottom to top (its memory, R21)."""
        self.stock_count = 0
        self.wants: dict[int, int] = {}
        """``Card.key`` -> how many foundations take that card next (R13)."""
        self.nertz_counts = [0] * self.seats
        self.middle = [0] * self.seats
        self.stuck = [False] * self.seats
        self.called = False
        self.over = False
        self.progress = 0
        """Bumped whenever this seat makes progress in the sense of R24."""
        self.news = 0
        """Bumped whenever the middle starts taking a card this seat holds or has seen
        in its stock."""
        self.version = 0
        """Bumped whenever this seat's work piles or the middle change (for caches)."""
        self.pool: set[int] = set()
        """Keys of the cards seen turned from the stock and still in stock or waste."""
        self.announced: list[Announced] = []
        """R41: jokers announced for the middle whose window is open, oldest first."""
        self.resync(seat_view)

    def resync(self, seat_view: Mapping[str, Any]) -> None:
        """Rebuild from a view (at the deal, or whenever the driver wants certainty).

        Waste cards below the last turn's fan are not in a view; they are kept from
        memory when the visible ones agree with it.
        """
        me = self.seat
        for i, s in enumerate(seat_view["seats"]):
            self.nertz_counts[i] = s["nertz_count"]
            self.middle[i] = s["middle"]
            self.stuck[i] = s["stuck"]
        mine = seat_view["seats"][me]
        top = mine["nertz_top"]
        self.nertz_top = Card.parse(top, me) if top else None
        self.nertz_count = mine["nertz_count"]
        self.work = [[Card.parse(t, me) for t in pile] for pile in mine["work"]]
        fan = [Card.parse(t, me) for t in mine["waste"]]
        if mine["waste_count"] == 0:
            self.waste = []
        elif len(self.waste) != mine["waste_count"] or self.waste[-len(fan) :] != fan:
            self.waste = fan  # memory and table disagree: trust what is visible
        self.pool.update(c.key for c in self.waste)
        self.stock_count = mine["stock_count"]
        wants: dict[int, int] = {}
        for f in seat_view["foundations"]:
            if not f["finished"]:
                # A joker on top stands for the card it was announced as (R41).
                key = Card.parse(f.get("top_as") or f["top"]).key + 1
                wants[key] = wants.get(key, 0) + 1
        self.wants = wants
        self.announced = [
            (
                a["seat"],
                Move.parse(a["move"]).src,
                Card.parse(a["joker"], a["seat"]),
                Card.parse(a["as"]).key,
                a["foundation"] - 1 if a["foundation"] else -1,
                a["until_ms"],
            )
            for a in seat_view.get("announcements", ())
        ]
        self.called = seat_view["caller"] is not None
        self.over = seat_view["phase"] == "over"
        self.version += 1

    def observe(self, events: Iterable[Event]) -> None:
        """Apply what the table announced (every seat's accepted plays, in order)."""
        for event in events:
            if type(event) is CardsMoved:
                self._moved(event)
            elif type(event) is StockTurned:
                if event.seat == self.seat:
                    self._turned(event.cards)
            elif type(event) is SaidStuck:
                self.stuck[event.seat] = True
            elif type(event) is Rotated:
                self._rotated()
            elif type(event) is Called:
                self.called = True
            elif type(event) is HandEnded:
                self.over = True
            elif type(event) is JokerAnnounced:
                self._announced(event)
            elif type(event) is JokerStayed:
                self._closed(event.seat, event.joker)

    def _moved(self, e: CardsMoved) -> None:
        seat, move = e.seat, e.move
        mine = seat == self.seat
        src = move.src
        kind = move.kind
        if kind is Kind.FOUNDATION or kind is Kind.ANNOUNCE:
            self.version += 1
            if kind is Kind.FOUNDATION:
                key = e.cards[0].key
            else:  # a joker landed: the middle goes on from the card announced (R41)
                key = move.card
                self._closed(seat, e.cards[0])
            rank = key & 15
            self.middle[seat] += 1
            if not e.tie:
                wants = self.wants
                if rank > 1:
                    left = wants[key] - 1
                    if left:
                        wants[key] = left
                    else:
                        del wants[key]
                if rank < 13:
                    nxt = key + 1
                    wants[nxt] = wants.get(nxt, 0) + 1
                    if not mine and self._holds(nxt):
                        self.news += 1
        if src == NERTZ:
            self.nertz_counts[seat] -= 1
        self.stuck[seat] = False
        if not mine:
            return
        self.version += 1
        self.progress += src >= NERTZ or kind is Kind.FOUNDATION or kind is Kind.ANNOUNCE
        if src == NERTZ:
            self.nertz_top = e.revealed
            self.nertz_count -= 1
        elif src == WASTE:
            self.pool.discard(self.waste.pop().key)
        else:
            del self.work[src][-len(e.cards) :]
        if kind is Kind.PILE:
            self.work[move.dst] += e.cards
        elif kind is Kind.UNDER:
            self.work[move.dst].insert(0, e.cards[0])

    def _announced(self, e: JokerAnnounced) -> None:
        self.announced.append((e.seat, e.move.src, e.joker, e.move.card, e.foundation, e.until_ms))
        if e.seat == self.seat:
            self.version += 1  # the joker's pile is spoken for until the window closes

    def _closed(self, seat: int, joker: Card) -> None:
        """The announcement of ``joker`` ended: it landed or stayed home (R41)."""
        for i, a in enumerate(self.announced):
            if a[0] == seat and a[2] is joker:
                del self.announced[i]
                if seat == self.seat:
                    self.version += 1
                return

    def busy(self) -> dict[int, int]:
        """The seat's own sources whose joker is announced (R41), each with the time its
        window closes: moving that joker or covering it sends it home."""
        if not self.announced:
            return _NOTHING_BUSY  # the usual case, asked on every look
        me = self.seat
        return {a[1]: a[5] for a in self.announced if a[0] == me}

    def _turned(self, cards: tuple[Card, ...]) -> None:
        if cards:
            self.waste += cards
            self.pool.update(c.key for c in cards)
            self.stock_count -= len(cards)
        else:  # R23: the waste turned over as the new stock
            self.stock_count = len(self.waste)
            self.waste = []

    def _rotated(self) -> None:
        # R25: the stock goes onto the waste, the waste is turned over as the stock.
        self.stock_count += len(self.waste)
        self.waste = []
        self.stuck = [False] * self.seats
        self.progress += 1  # a fresh stock order: start counting passes again

    def _holds(self, key: int) -> bool:
        """Is a card with this key face up in the seat's reach (R14) or in its waste?"""
        top = self.nertz_top
        if top is not None and top.key == key:
            return True
        for pile in self.work:
            if pile and pile[-1].key == key:
                return True
        return key in self.pool

    def passable(self) -> int:
        """Stock plus waste: the cards a pass through the stock shows."""
        return self.stock_count + len(self.waste)
