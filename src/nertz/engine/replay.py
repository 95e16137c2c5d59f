"""Rebuild a hand from its deal and its log (the basis of persistence and replays)."""

from __future__ import annotations

from collections.abc import Iterable

from .hand import Hand, LogEntry
from .layout import Deal
from .moves import Move
from .rules import Rules

__all__ = ["replay"]


def replay(deal: Deal, rules: Rules, log: Iterable[LogEntry]) -> Hand:
    """Apply every logged input in order to a fresh hand. Raises ``ValueError`` if an
    entry is refused: a log that does not replay is corrupt."""
    hand = Hand(deal, rules)
    for at_ms, seat, text in log:
        if seat < 0:
            outcome = hand.start(at_ms) if text == "GO" else hand.tick(at_ms)
            if text not in ("GO", "TICK"):
                raise ValueError(f"unknown table input {text!r} in log")
        else:
            outcome = hand.play(seat, Move.parse(text), at_ms)
        if not outcome.ok:
            raise ValueError(f"log entry {(at_ms, seat, text)} does not replay: {outcome}")
    return hand
