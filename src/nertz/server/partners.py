"""Partnerships at a table (R40): who may sit where, and how a table pairs people.

A partnership seat has two places, partner 0 and partner 1: one layout, one deck, one
back and one score, two people (or bots). This module holds the table's decisions
about places that do not depend on the table's state: how a seat's bots are written
(``expert+casual``), and which free place a person takes when they do not choose.
"""

from __future__ import annotations

from collections.abc import Sequence

from nertz.bots import parse_seat

__all__ = ["PAIR_SEP", "choose_place", "seat_bots"]

PAIR_SEP = "+"
"""Between the two partners of one seat in a bot spec: ``expert+casual``."""


def seat_bots(spec: str, partnerships: bool) -> tuple[str | None, ...]:
    """The bots of one seat, one per place, normalised (``skilled:balanced``); None
    for a place left to a person. Solo seats take one spec; partnership seats take
    ``A+B`` (two bots), ``A+`` or ``+B`` (a bot and a person's place). Raises
    ``ValueError`` with a sentence naming what is wrong."""
    if not partnerships:
        if PAIR_SEP in spec:
            raise ValueError(
                f"{spec!r} names two partners, but this table has no partnerships "
                "(set the option partnerships on, R40)"
            )
        return (str(parse_seat(spec)),)
    parts = spec.split(PAIR_SEP)
    if len(parts) != 2:
        raise ValueError(
            f"at a partnership table a seat's bots are 'A+B' (two bots), 'A+' or '+B' "
            f"(a bot and a person's place), not {spec!r} (R40)"
        )
    out = tuple(str(parse_seat(p)) if p.strip() else None for p in parts)
    if out == (None, None):
        raise ValueError(f"{spec!r} names no bot")
    return out


def choose_place(free: Sequence[tuple[int, int]], partner_taken: Sequence[bool]) -> tuple[int, int]:
    """The place the table gives a person who did not choose one: next to someone
    already seated without a partner (the lowest such seat), so people are paired in
    the order they come; else the first place of the lowest empty seat. ``free`` lists
    free places ``(seat, partner)`` in order; ``partner_taken[i]`` says whether the
    other place of ``free[i]``'s seat is taken. ``free`` is not empty."""
    for place, taken in zip(free, partner_taken, strict=True):
        if taken:
            return place
    return free[0]
