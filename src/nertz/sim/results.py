"""What the simulator reports of one hand (``table.play_hand``).

A module of its own, left interpreted while ``table.py`` is compiled by mypyc: a
``HandResult`` crosses process boundaries (``runner.run`` with ``jobs``), and a frozen
dataclass compiled by mypyc does not unpickle.
"""

from __future__ import annotations

from dataclasses import dataclass

from nertz.engine import Deal, LogEntry

__all__ = ["HandResult"]


@dataclass(frozen=True, slots=True)
class HandResult:
    """What one hand produced, per seat and for the table."""

    scores: tuple[int, ...]
    middle: tuple[int, ...]
    nertz_left: tuple[int, ...]
    caller: int | None
    """The seat that called (R27), None when the hand ended blocked (R26)."""
    races_lost: tuple[int, ...]
    """Plays refused ``beaten`` per seat (R16)."""
    ties: tuple[int, ...]
    """True ties per seat: cards that landed on a rank already there (R16)."""
    length_ms: int
    """Virtual time from Go to the end of the hand."""
    rotations: int
    blocked: bool
    """Ended with no call, still blocked after the rotations allowed (R26)."""
    bad: tuple[str, ...] = ()
    """Unexpected refusals, as ``seat move code``; empty for correct bots."""
    clashes: tuple[int, ...] = ()
    """Per seat (R40): a partner's move refused because the other partner's card got
    there first (e.g. into the one empty space both meant to use)."""
    turns: tuple[int, ...] = ()
    """Stock turns per hand at the table: per seat, or per partner at a partnership
    table (seat-major: seat 0's partners 0 and 1, then seat 1's ...)."""
    card_moves: tuple[int, ...] = ()
    """Card moves (to the middle or between piles) per hand at the table, as ``turns``."""
    jokers_announced: tuple[int, ...] = ()
    """Jokers each seat announced for the middle (R41); empty with jokers off."""
    jokers_landed: tuple[int, ...] = ()
    """Of those, the ones that landed."""
    jokers_stayed: tuple[int, ...] = ()
    """Of those, the ones that stayed home: the real card got there first, or the joker
    left its pile (R41)."""
    answers: tuple[int, ...] = ()
    """Real cards each seat played to a foundation while another seat's joker was
    announced there as that card: the answers that sent a joker home (R41)."""
    deal: Deal | None = None
    log: tuple[LogEntry, ...] = ()
    """With ``keep_log``: the hand's deal and every input the engine accepted
    (``Hand.log``), from which ``replay`` rebuilds it (``runner.notation``)."""
