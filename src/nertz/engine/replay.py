"""Rebuild a hand from its deal and its log (the basis of persistence and replays)."""

from __future__ import annotations

from collections.abc import Iterable

from .hand import Hand, LogEntry
from .layout import Deal
from .moves import Move
from .outcome import Outcome
from .rules import Rules

__all__ = ["apply", "replay"]


def replay(deal: Deal, rules: Rules, log: Iterable[LogEntry]) -> Hand:
    """Apply every logged input in order to a fresh hand. Raises ``ValueError`` if an
    entry is refused: a log that does not replay is corrupt."""
    hand = Hand(deal, rules)
    for entry in log:
        outcome = apply(hand, entry)
        if not outcome.ok:
            raise ValueError(f"log entry {tuple(entry)} does not replay: {outcome}")
    return hand


def apply(hand: Hand, entry: LogEntry) -> Outcome:
    """Apply one logged input ``(at_ms, seat, text)`` to ``hand``: a seat's move (R10-R27)
    or, for seat -1, the table's ``GO`` (R8) or ``TICK`` (time passing). Returns the
    outcome, a refusal included (a step-by-step replay shows it); raises ``ValueError``
    for text that is no input at all."""
    at_ms, seat, text = entry
    if seat < 0:
        if text == "GO":
            return hand.start(at_ms)
        if text != "TICK":
            raise ValueError(f"unknown table input {text!r} in log")
        return hand.tick(at_ms)
    return hand.play(seat, Move.parse(text), at_ms)
