"""A hand's inputs walked one at a time over a live ``Hand``: the one loop the
analyses share, so each looks at the hand exactly as the engine had it after every
input (R8-R28)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from nertz.engine import Card, Hand, HandText, Kind, LogEntry, Move, Rules
from nertz.engine.replay import apply

__all__ = ["Step", "go_ms", "middle_cards", "steps"]


@dataclass(frozen=True, slots=True)
class Step:
    """One input just applied: the entry, the move when a seat made one, and the hand
    after it (the same live object every step: read it, never keep it)."""

    entry: LogEntry
    move: Move | None
    hand: Hand


def steps(rules: Rules, hand_text: HandText) -> Iterator[Step]:
    """Apply the hand's inputs in order and yield after each. A stored hand replays
    without refusal; an input the engine refuses here means the record is corrupt
    (``ValueError``, as ``replay``)."""
    hand = Hand(hand_text.deal, rules)
    for entry in hand_text.inputs:
        outcome = apply(hand, entry)
        if not outcome.ok:
            raise ValueError(f"input {tuple(entry)} does not replay: {outcome}")
        move = Move.parse(entry[2]) if entry[1] >= 0 else None
        yield Step(entry, move, hand)


def go_ms(hand_text: HandText) -> int:
    """When the hand's Go was given (R8): times shown to players count from it."""
    for at_ms, seat, text in hand_text.inputs:
        if seat < 0 and text == "GO":
            return at_ms
    return hand_text.inputs[0][0] if hand_text.inputs else 0


def middle_cards(hand: Hand, seat: int) -> dict[int, Card]:
    """The cards ``seat`` could send to the middle now (R12-R14, R41), by source (a
    work pile 0-3, the Nertz pile or the waste)."""
    found: dict[int, Card] = {}
    for move in hand.legal_moves(seat):
        if move.kind is Kind.FOUNDATION or move.kind is Kind.ANNOUNCE:
            card = hand.top(seat, move.src)
            if card is not None:
                found[move.src] = card
    return found
