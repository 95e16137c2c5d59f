"""The Nertz rules engine: pure, deterministic, and the one source of truth.

No clock, no I/O, no global random state: time comes in as milliseconds with every
input, randomness as a seed. Nothing here imports from the rest of the package.
See ``docs/engine.md``.
"""

from .announcements import Announcement
from .blocked import waste_reachable
from .cards import MAX_SEATS, Card, Suit, full_deck
from .duplicate import (
    DuplicateScore,
    dealt_seat,
    duplicate_refusal,
    duplicate_scores,
    duplicate_totals,
    rotated,
    rotation_of,
)
from .foundations import Foundation
from .hand import SETTLE_MS, Hand, LogEntry, Phase
from .holds import PARTNERS, Holds, picked_up, touches
from .jokers import describe, lies_on, pin
from .layout import Deal, SeatLayout, deal
from .match import HandRecord, Match
from .match_text import HandText, MatchText, NotationError, Player
from .middle import Middle
from .moves import (
    ANY,
    NERTZ,
    PILES,
    SOURCES,
    WASTE,
    Kind,
    Move,
    parse_source,
    source_name,
    source_text,
)
from .outcome import (
    LATE_REFUSALS,
    Called,
    CardsMoved,
    EndReason,
    Event,
    HandEnded,
    JokerAnnounced,
    JokerStayed,
    Outcome,
    Refusal,
    Rotated,
    SaidStuck,
    Started,
    StockTurned,
)
from .replay import apply, replay
from .rules import OPTIONS, PRESETS, Option, Rules, RulesError, preset
from .scoring import SeatScore, hand_scores, score
from .view import spectator_view, view

__all__ = [
    "ANY",
    "LATE_REFUSALS",
    "MAX_SEATS",
    "NERTZ",
    "OPTIONS",
    "PARTNERS",
    "PILES",
    "PRESETS",
    "SETTLE_MS",
    "SOURCES",
    "WASTE",
    "Announcement",
    "Called",
    "Card",
    "CardsMoved",
    "Deal",
    "DuplicateScore",
    "EndReason",
    "Event",
    "Foundation",
    "Hand",
    "HandEnded",
    "HandRecord",
    "HandText",
    "Holds",
    "JokerAnnounced",
    "JokerStayed",
    "Kind",
    "LogEntry",
    "Match",
    "MatchText",
    "Middle",
    "Move",
    "NotationError",
    "Option",
    "Outcome",
    "Phase",
    "Player",
    "Refusal",
    "Rotated",
    "Rules",
    "RulesError",
    "SaidStuck",
    "SeatLayout",
    "SeatScore",
    "Started",
    "StockTurned",
    "Suit",
    "apply",
    "deal",
    "dealt_seat",
    "describe",
    "duplicate_refusal",
    "duplicate_scores",
    "duplicate_totals",
    "full_deck",
    "hand_scores",
    "lies_on",
    "parse_source",
    "picked_up",
    "pin",
    "preset",
    "replay",
    "rotated",
    "rotation_of",
    "score",
    "source_name",
    "source_text",
    "spectator_view",
    "touches",
    "view",
    "waste_reachable",
]
