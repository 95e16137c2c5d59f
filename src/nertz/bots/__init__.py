"""Bots: policies that choose a seat's move from what that seat may see.

``Bot`` (policy.py) plays a seat from its view and the table's events; ``LEVELS``
(levels.py) and ``STYLES`` (styles.py) name how; ``parse_seat`` reads a seat spec such
as ``expert``, ``racer`` or ``demon:scorer`` (``parse_places`` a partnership seat's
``A+B``, R40); ``Driver`` (driver.py) is the loop both tables drive a bot with, and
``role_for`` (roles.py) the share of a partnership seat's work it plays.
``CHOICES`` (choices.py) are the four plain choices people pick bots by ("Relaxed",
"Even", "Sharp", "Fierce") and ``bot_name`` a bot's human name. ``greedy_move`` is the simplest
policy, kept as a reference for the terminal demo.
"""

from .choices import BOT_NAMES, CHOICES, DEFAULT_CHOICE, Choice, bot_name, choice
from .driver import Driver, suggest
from .greedy import greedy_move
from .levels import DEFAULT_LEVEL, LEVELS, Level
from .policy import Bot, Decision
from .roles import NERTZ_ROLE, ROLES, STOCK_ROLE, role_for
from .seats import PAIR_SEP, SeatSpec, parse_places, parse_seat
from .styles import DEFAULT_STYLE, STYLES, CallSituation, Style

__all__ = [
    "BOT_NAMES",
    "CHOICES",
    "DEFAULT_CHOICE",
    "DEFAULT_LEVEL",
    "DEFAULT_STYLE",
    "LEVELS",
    "NERTZ_ROLE",
    "PAIR_SEP",
    "ROLES",
    "STOCK_ROLE",
    "STYLES",
    "Bot",
    "CallSituation",
    "Choice",
    "Decision",
    "Driver",
    "Level",
    "SeatSpec",
    "Style",
    "bot_name",
    "choice",
    "greedy_move",
    "parse_places",
    "parse_seat",
    "role_for",
    "suggest",
]
