"""Seat specs: the text that names a bot, e.g. ``expert``, ``racer``, ``demon:scorer``.

A spec is ``level``, ``style`` or ``level:style``. A level alone plays the default
style (``balanced``); a style alone plays at the default level (``skilled``), so
``racer`` means ``skilled:racer``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .levels import DEFAULT_LEVEL, LEVELS
from .styles import DEFAULT_STYLE, STYLES

__all__ = ["SeatSpec", "parse_seat"]


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A bot's level and style by name; ``str`` gives back ``level:style``."""

    level: str = DEFAULT_LEVEL
    style: str = DEFAULT_STYLE

    def __str__(self) -> str:
        return f"{self.level}:{self.style}"


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
