"""The bots' fixed, published ratings at rated tables (issue 26, point 2).

A bot of a level (``nertz.bots.LEVELS``) plays every rated match at the rating below:
it takes part in each update as the player it is, so the people at its table gain or
lose against a known strength, and it is never updated itself. A bot's seat
calibrates; it cannot be farmed (beating it many times gains what beating any player
of that rating gains, and its rating never drops).

The numbers are measured, not guessed: ``bench/rating.py``'s calibration run rates
bots of every level among simulated players of continuous strength and publishes each
level's mean ``mu`` at the end of it (docs/rating.md). ``BOT_SIGMA`` is small: the
level's strength is known, it is the people's that is being found.
"""

from __future__ import annotations

__all__ = ["BOT_RATINGS", "BOT_SIGMA", "bot_for"]

BOT_SIGMA = 1.0
"""The uncertainty every bot plays at: far below a person's (``model.SIGMA``)."""

BOT_RATINGS: dict[str, tuple[float, float]] = {
    "beginner": (-0.48, BOT_SIGMA),
    "casual": (8.80, BOT_SIGMA),
    "skilled": (29.98, BOT_SIGMA),
    "expert": (39.71, BOT_SIGMA),
    # expert's plus master's mean lead over expert in seven calibration runs (seeds
    # 26-32, docs/rating.md): one run measures a level within a few mu.
    "master": (41.36, BOT_SIGMA),
    "demon": (47.36, BOT_SIGMA),
}
"""Each bot level's ``(mu, sigma)`` at rated tables, slowest level first."""


def bot_for(mu: float) -> str:
    """The level whose fixed rating is nearest ``mu``: the bot a table of players
    around ``mu`` is filled with (ties go to the gentler level)."""
    return min(BOT_RATINGS, key=lambda level: abs(BOT_RATINGS[level][0] - mu))
