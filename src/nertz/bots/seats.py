"""Seat specs: the text that names a bot, e.g. ``expert``, ``racer``, ``demon:scorer``.

A spec is ``level``, ``style`` or ``level:style``. A level alone plays the default
style (``balanced``); a style alone plays at the default level (``skilled``), so
``racer`` means ``skilled:racer``.

A partnership seat (R40) has two places, written ``A+B`` (``parse_places``): two bots,
or, where people may sit, ``A+`` or ``+B`` (a bot and a person's place).
"""

from __future__ import annotations

from dataclasses import dataclass

from .levels import DEFAULT_LEVEL, LEVELS
from .styles import DEFAULT_STYLE, STYLES

__all__ = ["PAIR_SEP", "SeatSpec", "parse_places", "parse_seat"]

PAIR_SEP = "+"
"""Between the two partners of one seat in a bot spec: ``expert+casual``."""


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A bot's level and style by name; ``str`` gives back ``level:style``."""

    level: str = DEFAULT_LEVEL
    style: str = DEFAULT_STYLE

    def __str__(self) -> str:
        return f"{self.level}:{self.style}"

    def __reduce__(self) -> tuple[type[SeatSpec], tuple[str, str]]:
        # Pickled to the simulator's worker processes: rebuilt through __init__, since
        # the compiled (mypyc) frozen class refuses the attribute-by-attribute default.
        return (SeatSpec, (self.level, self.style))


def parse_seat(text: str) -> SeatSpec:
    """Read a seat spec; raise ``ValueError`` naming the bad part and the allowed values."""
    token = text.strip().lower()
    level, sep, style = token.partition(":")
    if not sep:
        if token in STYLES:
            level, style = DEFAULT_LEVEL, token
        else:
            style = DEFAULT_STYLE
    if level not in LEVELS:
        raise ValueError(
            f"unknown level {level!r} in seat {text!r}; levels are: {', '.join(LEVELS)}; "
            f"styles are: {', '.join(STYLES)}"
        )
    if style not in STYLES:
        raise ValueError(
            f"unknown style {style!r} in seat {text!r}; styles are: {', '.join(STYLES)}"
        )
    return SeatSpec(level, style)


def parse_places(text: str, partnerships: bool, people: bool = True) -> tuple[SeatSpec | None, ...]:
    """One seat's bots, one per place; None for a place left to a person. A seat at
    a table without partnerships takes one spec; a partnership seat (R40) takes
    ``A+B`` (two bots) and, when ``people`` may sit, ``A+`` or ``+B`` (a bot and a
    person's place). Raises ``ValueError`` with a sentence naming what is wrong."""
    if not partnerships:
        if PAIR_SEP in text:
            raise ValueError(
                f"{text!r} names two partners, but this table has no partnerships "
                "(set the option partnerships on, R40)"
            )
        return (parse_seat(text),)
    parts = text.split(PAIR_SEP)
    if not people:
        if len(parts) != 2 or not all(p.strip() for p in parts):
            raise ValueError(
                "with partnerships on every seat is two bots, 'level+level' "
                "(e.g. expert+casual,skilled+skilled; R40)"
            )
    elif len(parts) != 2:
        raise ValueError(
            f"at a partnership table a seat's bots are 'A+B' (two bots), 'A+' or '+B' "
            f"(a bot and a person's place), not {text!r} (R40)"
        )
    places = tuple(parse_seat(p) if p.strip() else None for p in parts)
    if places == (None, None):
        raise ValueError(f"{text!r} names no bot")
    return places
