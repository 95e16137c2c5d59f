"""The simulator: bots play whole matches in virtual time (``nertz simulate``).

``table.play_hand`` is the discrete-event loop of one hand; ``runner`` plays matches,
on several processes if asked; ``stats`` reduces them to figures; ``plot`` draws them;
``cli`` is the command. Everything goes through the engine's public API.
"""

from .runner import MatchResult, Setup, play_match, run
from .stats import SeatStats, Summary, TableStats, summarize
from .table import HandResult, play_hand

__all__ = [
    "HandResult",
    "MatchResult",
    "SeatStats",
    "Setup",
    "Summary",
    "TableStats",
    "play_hand",
    "play_match",
    "run",
    "summarize",
]
