"""A hand in figures for one seat: cards to the middle, Nertz cards left, missed
plays, races won and lost, and what working the Nertz pile first would have left."""

from __future__ import annotations

from dataclasses import dataclass

from nertz.analysis.missed import MissedPlay, MissedWatch
from nertz.analysis.nertz_first import NertzFirst, nertz_first
from nertz.analysis.timeline import go_ms, steps
from nertz.engine import HandText, Rules

__all__ = ["HandSummary", "summarise"]


@dataclass(frozen=True, slots=True)
class HandSummary:
    """One seat's hand: ``to_middle`` of its cards in the middle and ``nertz_left`` in
    its Nertz pile at the end (R29), its missed plays, the races it won and lost (R16;
    given by the caller, who keeps them) and the Nertz-first estimate."""

    seat: int
    to_middle: int
    nertz_left: int
    missed: tuple[MissedPlay, ...]
    races_won: int
    races_lost: int
    first: NertzFirst

    def as_dict(self) -> dict[str, object]:
        """Plain data for the wire."""
        return {
            "seat": self.seat,
            "to_middle": self.to_middle,
            "nertz_left": self.nertz_left,
            "missed": [m.as_dict() for m in self.missed],
            "missed_count": len(self.missed),
            "races_won": self.races_won,
            "races_lost": self.races_lost,
            "nertz_first": self.first.as_dict(),
        }


def summarise(
    rules: Rules, hand_text: HandText, seat: int, races: tuple[int, int] = (0, 0)
) -> HandSummary:
    """``seat``'s hand in figures; ``races`` is (won, lost), as the table recorded them."""
    to_middle = nertz_left = 0
    missed = MissedWatch(seat, go_ms(hand_text))
    for step in steps(rules, hand_text):  # one replay for every figure of the hand
        to_middle = step.hand.middle[seat]
        nertz_left = len(step.hand.seats[seat].nertz)
        missed.see(step)
    return HandSummary(
        seat,
        to_middle,
        nertz_left,
        missed.plays(),
        races[0],
        races[1],
        nertz_first(rules, hand_text, seat, nertz_left),
    )
