"""A seat's view kept up to date from the table's events, as the browser client keeps
its own (``web/js/table/state.js``): the engine's view (``nertz.engine.view``, face-up
cards and counts only) of the last deal or ``state``, each engine event applied to it.

``engine_event`` reads the server's events (``nertz.server.protocol``, docs/protocol.md)
back into the engine's ``Event`` values, which ``KeptView.apply`` puts on the view and
which a bot of ``nertz.bots`` observes (docs/bots.md, "The driver protocol")."""

from __future__ import annotations

from typing import Any

from nertz.engine import (
    NERTZ,
    WASTE,
    Called,
    Card,
    CardsMoved,
    EndReason,
    Event,
    HandEnded,
    JokerAnnounced,
    JokerStayed,
    Kind,
    Move,
    Rotated,
    SaidStuck,
    Started,
    StockTurned,
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

__all__ = ["KeptView", "engine_event"]

KING = 13


def engine_event(e: TableEvent) -> Event | None:
    """A play's event from the wire as the engine's ``Event`` (cards owned by the seat
    that played them; foundations 0-based again), or None for an event of the table
    around the hand (seats, readiness, scores...)."""
    if type(e) is MovedEvent:
        return CardsMoved(
            e.seat,
            Move.parse(e.move),
            tuple(Card.parse(c, e.seat) for c in e.cards),
            e.foundation - 1 if e.foundation is not None else -1,
            e.tie,
            Card.parse(e.revealed, e.seat) if e.revealed else None,
        )
    if type(e) is TurnedEvent:
        return StockTurned(e.seat, tuple(Card.parse(c, e.seat) for c in e.cards))
    if type(e) is GoEvent:
        return Started(e.at_ms)
    if type(e) is CalledEvent:
        return Called(e.seat)
    if type(e) is StuckEvent:
        return SaidStuck(e.seat)
    if type(e) is RotatedEvent:
        return Rotated(e.number, e.idle)
    if type(e) is EndedEvent:
        return HandEnded(EndReason(e.reason), e.caller)
    if type(e) is AnnouncedEvent:
        found = e.foundation - 1 if e.foundation is not None else -1
        return JokerAnnounced(
            e.seat, Move.parse(e.move), Card.parse(e.joker, e.seat), found, e.until_ms
        )
    if type(e) is JokerStayedEvent:
        return JokerStayed(e.seat, Move.parse(e.move), Card.parse(e.joker, e.seat), e.reason)
    return None


class KeptView:
    """A seat's view (``view``, the engine's dict: ``nertz.engine.view``) kept up to
    date event by event. Besides the view it keeps every waste card each seat turned up
    since the view was made (the ``turned`` events carry them all): when a seat plays the
    last card of its turn's fan, the card beneath shows again (R21), as the engine's
    view shows it. A joker's words on a work pile (``pinned``) are not worked out: they
    read null until the next ``state``."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view
        self.wastes: list[list[str]] = [list(s["waste"]) for s in view["seats"]]
        """Each seat's waste as far as it was seen, bottom to top (the fan at least)."""

    def apply(self, event: Event) -> bool:
        """Put one engine event on the view; True when the view can no longer show what
        the engine's would (a waste card beneath the fan that was never seen: the view
        was made mid-hand), and a full ``state`` should replace it."""
        view = self.view
        if type(event) is CardsMoved:
            return self._moved(event)
        if type(event) is StockTurned:
            seat, waste = view["seats"][event.seat], self.wastes[event.seat]
            if event.cards:
                seat["stock_count"] -= len(event.cards)
                seat["waste_count"] += len(event.cards)
                seat["waste"] = [str(c) for c in event.cards]  # R21: the last turn's fan
                waste += seat["waste"]
            else:  # R23: the waste turned over as the new stock
                seat["stock_count"] += seat["waste_count"]
                seat["waste_count"], seat["waste"] = 0, []
                waste.clear()
        elif type(event) is Rotated:  # R25: every stock and waste turned over
            for seat, waste in zip(view["seats"], self.wastes, strict=True):
                seat["stock_count"] += seat["waste_count"]
                seat["waste_count"], seat["waste"], seat["stuck"] = 0, [], False
                waste.clear()
            view["rotations"] = event.number
        elif type(event) is Started:
            view["phase"] = "playing"
        elif type(event) is Called:
            view["caller"], view["phase"] = event.seat, "landing"
        elif type(event) is SaidStuck:
            view["seats"][event.seat]["stuck"] = True
        elif type(event) is HandEnded:
            view["phase"], view["end"] = "over", event.reason.value
        elif type(event) is JokerAnnounced:
            view.setdefault("announcements", []).append(
                {
                    "seat": event.seat,
                    "move": event.move.text,
                    "joker": str(event.joker),
                    "as": str(event.move.announced),
                    "foundation": event.foundation + 1 if event.foundation >= 0 else None,
                    "until_ms": event.until_ms,
                }
            )
        elif type(event) is JokerStayed:
            self._close(event.seat, event.move.text)
        return False

    def _close(self, seat: int, move: str) -> None:
        self.view["announcements"] = [
            a for a in self.view.get("announcements", ()) if (a["seat"], a["move"]) != (seat, move)
        ]

    def _moved(self, e: CardsMoved) -> bool:
        seat, move, count = self.view["seats"][e.seat], e.move, len(e.cards)
        lost = False
        if move.src == NERTZ:
            seat["nertz_count"] -= 1
            seat["nertz_top"] = str(e.revealed) if e.revealed is not None else None
        elif move.src == WASTE:
            waste = self.wastes[e.seat]
            if waste:
                waste.pop()
            seat["waste_count"] -= 1
            seat["waste"] = seat["waste"][:-1]
            if not seat["waste"] and seat["waste_count"]:  # R21: the card beneath shows
                seat["waste"] = waste[-1:]
                lost = not waste
        else:
            pile = seat["work"][move.src]
            del pile[len(pile) - count :]
            seat["pinned"][move.src] = seat["pinned"][move.src][: len(pile)]
        seat["stuck"] = False
        texts = [str(c) for c in e.cards]
        if move.kind in (Kind.FOUNDATION, Kind.ANNOUNCE):
            self._to_foundation(e, texts[0])
            seat["middle"] += 1
        elif move.kind is Kind.UNDER:  # R19: slid under the pile's head
            seat["work"][move.dst].insert(0, texts[0])
            seat["pinned"][move.dst].insert(0, None)
        else:
            seat["work"][move.dst].extend(texts)
            seat["pinned"][move.dst].extend([None] * count)
        return lost

    def _to_foundation(self, e: CardsMoved, card: str) -> None:
        view = self.view
        number, announced = e.foundation + 1, e.move.announced
        stands_for = announced if announced is not None else e.cards[0]
        found = next((f for f in view["foundations"] if f["number"] == number), None)
        if found is None:  # an ace (or a joker announced as one) starts a foundation
            found = {"number": number, "suit": stands_for.suit.letter, "count": 0, "owners": []}
            view["foundations"].append(found)
            view["foundations"].sort(key=lambda f: f["number"])
        found["top"], found["count"] = card, found["count"] + 1
        found["top_as"] = str(announced) if announced is not None else None
        found["owners"].append(e.seat)
        found["finished"] = stands_for.rank == KING
        if announced is not None:
            self._close(e.seat, e.move.text)  # the announced joker landed
