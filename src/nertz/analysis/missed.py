"""The plays a seat let wait: each stretch in which one of its cards could have gone
to the middle (R12-R14) and did not for a while, how long, where the card lay, and how
the chance ended.

A card counts from the moment the engine would have taken it (its place wanted it and
it lay face up on top of a source) until it went to the middle, moved elsewhere, was
covered, its place was taken by another seat, or the hand ended (R28). Only stretches
of at least ``MISSED_MS`` are listed: a person needs about a second to see and reach a
card (the bots' reaction times, ``nertz.bots.levels``, are 0.35-2.5 s a card), so
shorter waits are playing speed, not a missed play.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from nertz.analysis.timeline import Step, go_ms, middle_cards, steps
from nertz.engine import Card, HandText, Kind, Move, Phase, Rules, source_name

__all__ = ["MISSED_MS", "Ended", "MissedPlay", "MissedWatch", "missed_plays"]

MISSED_MS = 2000
"""A card that waited this long (ms) for its seat to play it is a missed play."""


class Ended(StrEnum):
    """How a chance to play a card to the middle ended."""

    PLAYED = "played"
    """The seat played it to the middle, late."""
    MOVED = "moved"
    """The seat moved it elsewhere (onto a work pile) or covered it (turned the stock)."""
    TAKEN = "taken"
    """Another seat's card took its place in the middle first (R16)."""
    HAND_END = "hand_end"
    """The hand ended with the card still waiting (R28)."""


@dataclass(frozen=True, slots=True)
class MissedPlay:
    """One card that could have gone to the middle from ``from_ms`` to ``until_ms``
    (ms since Go, R8) and did not; ``source`` is where it lay (``source_name``)."""

    card: Card
    source: str
    from_ms: int
    until_ms: int
    ended: Ended

    @property
    def waited_ms(self) -> int:
        """How long the card waited."""
        return self.until_ms - self.from_ms

    def as_dict(self) -> dict[str, object]:
        """Plain data for the wire (the card in its notation, e.g. ``7H``)."""
        return {
            "card": str(self.card),
            "source": self.source,
            "from_ms": self.from_ms,
            "until_ms": self.until_ms,
            "waited_ms": self.waited_ms,
            "ended": self.ended.value,
        }


def missed_plays(
    rules: Rules, hand_text: HandText, seat: int, least_ms: int = MISSED_MS
) -> tuple[MissedPlay, ...]:
    """Every card of ``seat`` that could have gone to the middle for at least
    ``least_ms`` and did not, in the order the chances began."""
    watch = MissedWatch(seat, go_ms(hand_text), least_ms)
    for step in steps(rules, hand_text):
        watch.see(step)
    return watch.plays()


class MissedWatch:
    """``missed_plays`` one step at a time, for a caller that walks the hand itself
    (``summary.summarise``: one replay for all its figures)."""

    def __init__(self, seat: int, start_ms: int, least_ms: int = MISSED_MS) -> None:
        self.seat = seat
        self.start = start_ms
        self.least_ms = least_ms
        self._waiting: dict[tuple[int, Card], int] = {}
        self._found: list[tuple[int, MissedPlay]] = []
        self._last_ms = start_ms

    def see(self, step: Step) -> None:
        """The hand just after ``step``: chances that ended, chances that began."""
        at_ms, who, _ = step.entry
        self._last_ms = at_ms
        now = middle_cards(step.hand, self.seat)
        for (src, card), since in list(self._waiting.items()):
            if now.get(src) == card:
                continue
            del self._waiting[(src, card)]
            ended = _ended(who == self.seat, step.move, src, step.hand.phase)
            if at_ms - since >= self.least_ms:
                missed = _missed(card, src, since - self.start, at_ms - self.start, ended)
                self._found.append((since, missed))
        for src, card in now.items():
            self._waiting.setdefault((src, card), at_ms)

    def plays(self) -> tuple[MissedPlay, ...]:
        """The missed plays so far, a chance still open counted to the last step (the
        hand's end, once every step is seen), in the order the chances began."""
        found = list(self._found)
        for (src, card), since in self._waiting.items():
            if self._last_ms - since >= self.least_ms:
                until = self._last_ms - self.start
                found.append((since, _missed(card, src, since - self.start, until, Ended.HAND_END)))
        found.sort(key=lambda pair: pair[0])
        return tuple(missed for _, missed in found)


def _ended(by_seat: bool, move: Move | None, src: int, phase: Phase) -> Ended:
    """Why the card at ``src`` stopped being playable after this input."""
    if move is not None and by_seat:
        if move.src == src and move.kind in (Kind.FOUNDATION, Kind.ANNOUNCE):
            return Ended.PLAYED
        if move.kind is not Kind.CALL:
            return Ended.MOVED
    if phase is not Phase.PLAYING:
        return Ended.HAND_END  # a call (R28), or the table ending the hand
    return Ended.TAKEN


def _missed(card: Card, src: int, from_ms: int, until_ms: int, ended: Ended) -> MissedPlay:
    return MissedPlay(card, source_name(src), from_ms, until_ms, ended)
