"""Bots: policies that choose a seat's move from what that seat may see.

``Bot`` (policy.py) plays a seat from its view and the table's events; ``LEVELS``
(levels.py) and ``STYLES`` (styles.py) name how; ``parse_seat`` reads a seat spec such
as ``expert``, ``racer`` or ``demon:scorer``. ``greedy_move`` is the simplest policy,
kept as a reference for the terminal demo.
"""

from .greedy import greedy_move
from .levels import DEFAULT_LEVEL, LEVELS, Level
from .policy import Bot, Decision
from .roles import NERTZ_ROLE, ROLES, STOCK_ROLE
from .seats import SeatSpec, parse_seat
from .styles import DEFAULT_STYLE, STYLES, CallSituation, Style

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_STYLE",
    "LEVELS",
    "NERTZ_ROLE",
    "ROLES",
    "STOCK_ROLE",
    "STYLES",
    "Bot",
    "CallSituation",
    "Decision",
    "Level",
    "SeatSpec",
    "Style",
    "greedy_move",
    "parse_seat",
]
