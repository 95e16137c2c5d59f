"""A seat's view kept up to date from the table's events, as the browser client keeps
its own (``web/js/table/state.js``): the engine's view (``nertz.engine.view``, face-up
cards and counts only) of the last deal or ``state``, each engine event applied to it.

``wire_events`` reads the server's events (``nertz.server.protocol``, docs/protocol.md)
back into the engine's ``Event`` values, which ``apply`` puts on the view and which a
bot of ``nertz.bots`` observes (docs/bots.md, "The driver protocol")."""

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

__all__ = ["apply", "engine_event"]

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


def apply(view: dict[str, Any], event: Event) -> None:
    """Put one engine event on ``view`` (changed in place), as the engine's own view of
    the hand after it would read. A joker's words on a work pile (``pinned``) are not
    worked out: they read null until the next ``state``."""
    if type(event) is CardsMoved:
        _moved(view, event)
    elif type(event) is StockTurned:
        seat = view["seats"][event.seat]
        if event.cards:
            seat["stock_count"] -= len(event.cards)
            seat["waste_count"] += len(event.cards)
            seat["waste"] = [str(c) for c in event.cards]  # R21: the last turn's fan
        else:  # R22: the waste turned over
            seat["stock_count"] += seat["waste_count"]
            seat["waste_count"], seat["waste"] = 0, []
    elif type(event) is Rotated:  # R25: every stock and waste turned over
        for seat in view["seats"]:
            seat["stock_count"] += seat["waste_count"]
            seat["waste_count"], seat["waste"], seat["stuck"] = 0, [], False
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
        _close(view, event.seat, event.move.text)


def _close(view: dict[str, Any], seat: int, move: str) -> None:
    view["announcements"] = [
        a for a in view.get("announcements", ()) if (a["seat"], a["move"]) != (seat, move)
    ]


def _moved(view: dict[str, Any], e: CardsMoved) -> None:
    seat, move, count = view["seats"][e.seat], e.move, len(e.cards)
    if move.src == NERTZ:
        seat["nertz_count"] -= 1
        seat["nertz_top"] = str(e.revealed) if e.revealed is not None else None
    elif move.src == WASTE:
        seat["waste_count"] -= 1
        seat["waste"] = seat["waste"][:-1]
    else:
        pile = seat["work"][move.src]
        del pile[len(pile) - count :]
        seat["pinned"][move.src] = seat["pinned"][move.src][: len(pile)]
    seat["stuck"] = False
    texts = [str(c) for c in e.cards]
    if move.kind in (Kind.FOUNDATION, Kind.ANNOUNCE):
        _to_foundation(view, e, texts[0])
        seat["middle"] += 1
    elif move.kind is Kind.UNDER:  # R19: slid under the pile's head
        seat["work"][move.dst].insert(0, texts[0])
        seat["pinned"][move.dst].insert(0, None)
    else:
        seat["work"][move.dst].extend(texts)
        seat["pinned"][move.dst].extend([None] * count)


def _to_foundation(view: dict[str, Any], e: CardsMoved, card: str) -> None:
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
        _close(view, e.seat, e.move.text)  # the announced joker landed
