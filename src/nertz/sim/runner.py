"""Whole matches of bots (R32, R33), one after another or spread over processes.

A run is a ``Setup`` (seat specs, rules, seed) and a number of matches. Match ``i``
draws everything from ``(seed, i)``: its hand deals and its bots' random choices. So a
match's result does not depend on which process plays it, and ``jobs=N`` returns
exactly what ``jobs=1`` does, in the same order.
"""

from __future__ import annotations

import multiprocessing
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from nertz.bots import Bot, SeatSpec
from nertz.engine import (
    Deal,
    HandText,
    Match,
    MatchText,
    Player,
    Rules,
    SeatScore,
    deal,
    rotated,
    rotation_of,
)

from .table import HandResult, play_hand

__all__ = [
    "MAX_HANDS",
    "MatchResult",
    "Setup",
    "notation",
    "play_match",
    "run",
    "seat_labels",
    "spec_text",
]

MAX_HANDS = 2000
"""A match still going after this many hands is a deadlock: ``play_match`` raises."""


@dataclass(frozen=True, slots=True)
class Setup:
    """What to simulate: who sits where, under which rules, from which seed."""

    seats: tuple[SeatSpec, ...]
    rules: Rules
    seed: int
    partners: tuple[SeatSpec, ...] = ()
    """A partnership table (R40): each seat's second bot, the one that turns the stock
    (``seats[s]`` watches the Nertz pile); empty otherwise."""


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One match: its hands in order, the winners (R32) and the final totals."""

    hands: tuple[HandResult, ...]
    winners: tuple[int, ...]
    totals: tuple[int, ...]


def _seed(*parts: object) -> int:
    """A 48-bit seed from text, stable across processes and Python runs."""
    return random.Random(":".join(map(str, parts))).getrandbits(48)


def play_match(setup: Setup, index: int, keep_logs: bool = False) -> MatchResult:
    """Play match ``index`` of ``setup`` to its end; the same arguments give the same
    result anywhere. Between hands each bot is dealt a new hand (R33) and told the
    running totals. ``keep_logs``: each hand keeps its deal and log (``notation``)."""
    rules = setup.rules
    n = len(setup.seats)
    bots = [
        Bot(seat, spec.level, spec.style, _seed("bot", setup.seed, index, seat))
        for seat, spec in enumerate(setup.seats)
    ]
    partners = [
        Bot(seat, spec.level, spec.style, _seed("partner", setup.seed, index, seat))
        for seat, spec in enumerate(setup.partners)
    ]
    match = Match(n, rules)
    hands: list[HandResult] = []
    dealt: Deal | None = None
    while not match.over:
        if len(hands) >= MAX_HANDS:
            raise RuntimeError(f"match {index} did not end after {MAX_HANDS} hands")
        seed = _seed("deal", setup.seed, index, len(hands))
        fixed = None
        if rules.duplicate:  # R42: each deal once per seat, moved on one seat each hand
            number, shift = rotation_of(len(hands), n)
            if shift == 0:
                dealt = deal(n, rules, _seed("deal", setup.seed, index, number))
            assert dealt is not None
            fixed = rotated(dealt, shift)
        result = play_hand(
            bots, rules, seed, match.totals, fixed, partners=partners, keep_log=keep_logs
        )
        hands.append(result)
        match.record(_seat_scores(result, rules), result.caller)
    return MatchResult(tuple(hands), match.winners, tuple(match.totals))


def notation(setup: Setup, result: MatchResult, title: str | None = None) -> MatchText:
    """A match played with ``keep_logs`` in the match notation (``engine/match_text.py``):
    ``nertz replay`` reads it, and ``replay`` rebuilds every hand of it."""
    paired = bool(setup.partners)
    seats = tuple(
        (Player(None, str(spec)), Player(None, str(setup.partners[seat])))
        if paired
        else (Player(None, str(spec)),)
        for seat, spec in enumerate(setup.seats)
    )
    hands = []
    for number, hand in enumerate(result.hands, 1):
        if hand.deal is None:
            raise ValueError("the match was played without keep_logs: it has no logs to write")
        hands.append(HandText(number, hand.deal, hand.log))
    return MatchText(setup.rules, seats, tuple(hands), title)


def _seat_scores(result: HandResult, rules: Rules) -> list[SeatScore]:
    out = []
    for score, middle, left in zip(result.scores, result.middle, result.nertz_left, strict=True):
        bonus = score - (middle - rules.penalty * left)
        out.append(SeatScore(middle, left, bonus, score))
    return out


def run(
    setup: Setup,
    matches: int,
    jobs: int = 1,
    progress: Callable[[MatchResult], None] | None = None,
) -> list[MatchResult]:
    """Play ``matches`` matches on ``jobs`` processes; results in match order.
    ``progress`` is called once per finished match, in order."""
    play = partial(play_match, setup)
    results: list[MatchResult] = []
    if jobs <= 1 or matches <= 1:
        for index in range(matches):
            results.append(play(index))
            if progress:
                progress(results[-1])
        return results
    chunk = max(1, min(16, matches // (jobs * 8)))
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for result in pool.imap(play, range(matches), chunksize=chunk):
            results.append(result)
            if progress:
                progress(result)
    return results


def seat_labels(seats: Sequence[SeatSpec], partners: Sequence[SeatSpec] = ()) -> list[str]:
    """``1 expert:balanced`` ...: how tables and plots name the seats; a partnership
    seat (R40) is ``1 expert:balanced+casual:balanced``."""
    return [f"{i + 1} {spec_text(i, seats, partners)}" for i in range(len(seats))]


def spec_text(seat: int, seats: Sequence[SeatSpec], partners: Sequence[SeatSpec] = ()) -> str:
    """One seat's spec as text: ``level:style``, or both partners' joined by ``+``."""
    return f"{seats[seat]}+{partners[seat]}" if partners else str(seats[seat])
