"""Ratings for rated play (issue 26): pure, below the server and the benchmark.

``model`` is the rating itself (OpenSkill's Plackett-Luce per mode, ties, leavers
last, absence, provisional and established, the shown scale) as one pure function from
the ratings before a match and its result to the ratings after (``rate``; ``fold``
rebuilds them all from stored results); ``bots`` the bot levels' fixed ratings;
``pairing`` quick match's pairing policy. ``RATED_PRESET`` names the rules a rated
table plays (``rated_rules``). Nothing here reads a clock, a database or the network:
times are numbers handed in. docs/rating.md states every threshold.
"""

from nertz.engine import Rules, preset

from .bots import BOT_RATINGS, BOT_SIGMA, bot_for
from .model import (
    ABSENCE_VARIANCE_PER_DAY,
    BETA,
    ESTABLISHED_MATCHES,
    ESTABLISHED_SIGMA,
    MODES,
    MU,
    SIGMA,
    TAU,
    Change,
    MatchResult,
    Rated,
    Rating,
    Side,
    absent,
    established,
    fold,
    mode_of,
    places,
    points,
    rate,
    shown,
)
from .pairing import POLICY, Entry, Pairing, Policy, bots_in, pair, window

__all__ = [
    "ABSENCE_VARIANCE_PER_DAY",
    "BETA",
    "BOT_RATINGS",
    "BOT_SIGMA",
    "ESTABLISHED_MATCHES",
    "ESTABLISHED_SIGMA",
    "MODES",
    "MU",
    "POLICY",
    "RATED_PRESET",
    "SIGMA",
    "TAU",
    "Change",
    "Entry",
    "MatchResult",
    "Pairing",
    "Policy",
    "Rated",
    "Rating",
    "Side",
    "absent",
    "bot_for",
    "bots_in",
    "established",
    "fold",
    "mode_of",
    "pair",
    "places",
    "points",
    "rate",
    "rated_rules",
    "shown",
    "window",
]

RATED_PRESET = "quick"
"""The named preset every rated table plays (RULES.md's ``quick``: an 11-card Nertz pile,
one hand): a short match among strangers, the same for everyone rated, so one rating
means one thing. Only ``partnerships`` may differ (it picks the mode)."""


def rated_rules(partnerships: bool = False) -> Rules:
    """The rules of a rated table: ``RATED_PRESET``, with partnerships on or off (R40)."""
    return preset(RATED_PRESET).with_options(partnerships=partnerships)
