"""The bots as a person chooses them: four plain choices and a human name per seat.

A newcomer should not have to know levels and styles (``levels.py``, ``styles.py``).
The home page, ``make play`` and ``nertz serve --play --bots CHOICE`` offer four
choices, each a list of seat specs (``seats.py``) for the bot seats, in seat order:

* ``relaxed``: a first-timer's table, where a person acting every 2 seconds wins a
  fair share of hands and the hand still ends in a few minutes;
* ``even``: a table for someone who knows the game;
* ``sharp``: ``master`` bots, an expert's speed with better choices: a table for
  someone who wants to be out-thought rather than out-run;
* ``fierce``: fast bots that a quick player (more than one action a second) rarely
  beats.

Each choice was calibrated by measurement against a scripted player
(``bench/pace.py``; docs/bots.md has the table). A table with more bot seats than a
choice lists takes its specs in turn.

Bots are named like people (``bot_name``): "Ada", not "Bot 2 (skilled:balanced)".
"""

from __future__ import annotations

from dataclasses import dataclass

from .seats import SeatSpec, parse_seat

__all__ = ["BOT_NAMES", "CHOICES", "DEFAULT_CHOICE", "Choice", "bot_name", "choice", "specs_of"]


@dataclass(frozen=True, slots=True)
class Choice:
    """One plain choice of bots: ``label`` and ``blurb`` for people, ``specs`` (seat
    specs, ``seats.py``) for the bot seats in turn."""

    name: str
    label: str
    blurb: str
    specs: tuple[str, ...]

    def spec_for(self, index: int) -> str:
        """The spec of the ``index``-th bot seat (0 for the first), taken in turn."""
        return self.specs[index % len(self.specs)]

    def as_dict(self) -> dict[str, object]:
        """As ``GET /api/rules`` serves it: each spec written out as ``level:style``."""
        specs = [str(parse_seat(s)) for s in self.specs]
        return {"name": self.name, "label": self.label, "blurb": self.blurb, "specs": specs}


CHOICES: dict[str, Choice] = {
    c.name: c
    for c in (
        Choice(
            "relaxed",
            "Relaxed",
            "Slow, forgiving bots: for your first hands.",
            ("beginner", "beginner", "beginner"),
        ),
        Choice(
            "even",
            "Even",
            "Bots that play like people who know the game.",
            ("casual", "skilled", "casual"),
        ),
        Choice(
            "sharp",
            "Sharp",
            "Bots at an expert's pace that think a move further.",
            ("master", "master", "master"),
        ),
        Choice(
            "fierce",
            "Fierce",
            "Fast bots that race for the call.",
            ("expert", "expert:racer", "demon"),
        ),
    )
}
"""The four choices, gentlest first."""

DEFAULT_CHOICE = "relaxed"
"""The choice of ``make play``: a table a first-timer can enjoy."""

# Checked once at import: a choice naming a bad spec is a bug, not a refusal.
for _choice in CHOICES.values():
    for _spec in _choice.specs:
        parse_seat(_spec)

BOT_NAMES = ("Ada", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun")
"""Bots' names: seat ``n`` (0-based) is ``BOT_NAMES[n]``; a second partner (R40)
takes one from the second half."""


def bot_name(seat: int, partner: int = 0) -> str:
    """A bot's name at ``seat`` (and place ``partner`` of a partnership seat, R40)."""
    half = len(BOT_NAMES) // 2
    return BOT_NAMES[(seat + partner * half) % len(BOT_NAMES)]


def choice(name: str) -> Choice:
    """The choice called ``name`` (any case); ``ValueError`` naming the choices."""
    found = CHOICES.get(name.strip().lower())
    if found is None:
        raise ValueError(f"unknown bots {name!r}; choose one of: {', '.join(CHOICES)}")
    return found


def specs_of(name: str) -> tuple[SeatSpec, ...]:
    """The parsed seat specs of the choice ``name``."""
    return tuple(parse_seat(s) for s in choice(name).specs)
