"""The match: running totals and how it ends (R32, R33; options ``match``, ``tie_break``).

``Match`` records each finished hand's scores and says when the match is over and who
won. Modes:

* ``race``: after a hand in which a seat reaches or passes ``target``, the highest
  total wins (R32);
* ``single``: one hand; the highest hand score wins;
* ``rounds``: each hand's highest score wins that hand; the first seat to win
  ``rounds_to_win`` hands wins;
* ``gap``: the match ends when highest minus lowest total reaches ``gap_to_win``;
  the highest total wins.

``tie_break``: ``share`` (equal winners share the win) or ``caller`` (the caller of the
deciding hand wins when among the equal winners; in ``race``, when among those who
reached the target in that hand).

``duplicate`` (R42-R46): the match is played in whole rotations of a deal, and is
decided only at the end of one (R45): ``race`` ends after the rotation in which a seat's
total reaches the target, ``single`` after one rotation, ``rounds`` counts each
rotation's best duplicate score as a round won; the highest duplicate total (the
rounds won, in ``rounds``) wins, ``tie_break`` among equal ones as above with the
caller of the rotation's last hand. ``duplicate`` holds each hand's duplicate scores
and ``duplicate_totals`` their sums (``duplicate.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .duplicate import DuplicateScore, duplicate_refusal, duplicate_scores
from .rules import Rules
from .scoring import SeatScore

__all__ = ["HandRecord", "Match"]


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One finished hand as the match keeps it."""

    scores: tuple[SeatScore, ...]
    caller: int | None
    winners: tuple[int, ...] = ()
    """``match=rounds``: the seats that won this hand (with ``duplicate``, the last hand
    of a rotation: the seats that won the rotation)."""


class Match:
    """Running totals over hands. Mutable; owned by whoever runs the table."""

    def __init__(self, seats: int, rules: Rules | None = None) -> None:
        self.rules = rules or Rules()
        if seats < 1:
            raise ValueError(f"a match needs at least one seat, not {seats}")
        if self.rules.match == "gap" and seats < 2:
            raise ValueError("match 'gap' needs at least two seats")
        refused = duplicate_refusal(self.rules, seats)
        if refused is not None:
            raise ValueError(refused)
        self.seats = seats
        self.totals = [0] * seats
        self.round_wins = [0] * seats
        self.hands: list[HandRecord] = []
        self.winners: tuple[int, ...] = ()
        """Empty while the match goes on; the winning seat(s) once it is over."""
        self.duplicate: list[list[DuplicateScore]] = []
        """``duplicate``: each hand's duplicate scores by seat, None until its rotation
        is complete (R44)."""
        self.duplicate_totals: list[Fraction] = [Fraction(0)] * seats
        """``duplicate``: each seat's settled duplicate scores added up (R44)."""

    @property
    def over(self) -> bool:
        return bool(self.winners)

    def record(self, scores: Sequence[SeatScore], caller: int | None) -> None:
        """Add one finished hand (R32) and decide whether the match is over."""
        if self.over:
            raise ValueError("the match is over; start a new one")
        if len(scores) != self.seats:
            raise ValueError(f"expected {self.seats} scores, got {len(scores)}")
        for seat, s in enumerate(scores):
            self.totals[seat] += s.score
        rules = self.rules
        hand_winners: tuple[int, ...] = ()
        if rules.duplicate:
            self.hands.append(
                HandRecord(tuple(scores), caller, self._rotation_done(scores, caller))
            )
            self.winners = self._decide_duplicate(caller)
            return
        if rules.match == "rounds":
            hand_winners = self._best([s.score for s in scores], range(self.seats), caller)
            for seat in hand_winners:
                self.round_wins[seat] += 1
        self.hands.append(HandRecord(tuple(scores), caller, hand_winners))
        self.winners = self._decide(caller)

    @property
    def rotation_complete(self) -> bool:
        """``duplicate``: the last hand recorded finished its deal's rotation (R42)."""
        return bool(self.hands) and len(self.hands) % self.seats == 0

    def _rotation_done(self, scores: Sequence[SeatScore], caller: int | None) -> tuple[int, ...]:
        """After the hand just scored (not yet in ``hands``): settle its rotation's
        duplicate scores if it completes it (R44); with ``rounds``, the seats that won
        the rotation (R45)."""
        n = self.seats
        self.duplicate.append([None] * n)
        if len(self.duplicate) % n:
            return ()
        first = len(self.duplicate) - n
        played = [[s.score for s in h.scores] for h in self.hands[first:]]
        played.append([s.score for s in scores])
        settled = duplicate_scores(played, n)
        self.duplicate[first:] = settled
        rotation = [Fraction(0)] * n
        for hand in settled:
            for seat, value in enumerate(hand):
                assert value is not None
                rotation[seat] += value
                self.duplicate_totals[seat] += value
        if self.rules.match != "rounds":
            return ()
        won = self._best(rotation, range(n), caller)
        for seat in won:
            self.round_wins[seat] += 1
        return won

    def _decide_duplicate(self, caller: int | None) -> tuple[int, ...]:
        """R45: only at the end of a rotation; the best duplicate total wins."""
        if not self.rotation_complete:
            return ()
        rules, everyone = self.rules, range(self.seats)
        if rules.match == "rounds":
            done = [s for s in everyone if self.round_wins[s] >= rules.rounds_to_win]
            return self._best(self.round_wins, done, caller) if done else ()
        if rules.match == "race" and max(self.totals) < rules.target:
            return ()
        return self._best(self.duplicate_totals, everyone, caller)

    def _decide(self, caller: int | None) -> tuple[int, ...]:
        rules, totals, everyone = self.rules, self.totals, range(self.seats)
        if rules.match == "single":
            return self._best(totals, everyone, caller)
        if rules.match == "rounds":
            done = [s for s in everyone if self.round_wins[s] >= rules.rounds_to_win]
            return self._best(self.round_wins, done, caller) if done else ()
        if rules.match == "gap":
            if max(totals) - min(totals) >= rules.gap_to_win:
                return self._best(totals, everyone, caller)
            return ()
        reached = [s for s in everyone if totals[s] >= rules.target]
        if not reached:
            return ()
        if rules.tie_break == "caller" and len(reached) >= 2 and caller in reached:
            return (caller,)  # R32 with tie_break caller
        return self._best(totals, everyone, caller)

    def _best(
        self,
        values: Sequence[int] | Sequence[Fraction],
        among: Sequence[int] | range,
        caller: int | None,
    ) -> tuple[int, ...]:
        """The seats with the highest value among ``among``, after the tie break."""
        top = max(values[s] for s in among)
        best = tuple(s for s in among if values[s] == top)
        if len(best) > 1 and self.rules.tie_break == "caller" and caller in best:
            return (caller,)
        return best
