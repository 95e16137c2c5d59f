"""What a player can learn from a finished hand: the plays they let wait, what working
the Nertz pile first would have left, and the bots' choice at any moment.

Pure over the engine and the bots: a hand's deal and inputs in (``HandText``, as the
match notation and the store keep them), plain frozen values out. The server serves it
for finished matches only (``GET /api/matches/{id}/analysis``, ``.../advice``); nothing
here reads a clock, a disk or a socket.
"""

from nertz.analysis.advice import Advice, bots_choice
from nertz.analysis.missed import MISSED_MS, MissedPlay, missed_plays
from nertz.analysis.nertz_first import NertzFirst, nertz_first
from nertz.analysis.summary import HandSummary, summarise

__all__ = [
    "MISSED_MS",
    "Advice",
    "HandSummary",
    "MissedPlay",
    "NertzFirst",
    "bots_choice",
    "missed_plays",
    "nertz_first",
    "summarise",
]
