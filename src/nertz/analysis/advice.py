"""The bots' choice at a moment of a finished hand: what the expert policy
(``nertz.bots``) would play from the seat's view then, for a player asking "what should
I have done here?".

The bot is given only the seat's view at that moment (``view``: counts for hidden
cards, as any seat sees them), with its overlooking turned off, since the question is
what the policy picks, not what a hurried player would see. It begins afresh at that
moment: cards the seat saw earlier in the stock are not in its memory.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from nertz.analysis.timeline import go_ms
from nertz.bots.driver import Driver
from nertz.bots.levels import LEVELS
from nertz.bots.policy import Bot
from nertz.engine import Hand, HandText, Phase, Rules, view
from nertz.engine.replay import apply

__all__ = ["ADVISING_LEVEL", "Advice", "bots_choice"]

ADVISING_LEVEL = "expert"
"""The level whose choices are offered (its planning depth, ``nertz.bots.levels``)."""


@dataclass(frozen=True, slots=True)
class Advice:
    """The policy's move in the engine's notation (None: it would wait), when (ms since
    Go) and why there is none, if the hand was not being played then."""

    at_ms: int
    move: str | None
    reason: str | None = None

    def as_dict(self) -> dict[str, object]:
        """Plain data for the wire."""
        return {"at_ms": self.at_ms, "move": self.move, "reason": self.reason}


def bots_choice(rules: Rules, hand_text: HandText, seat: int, at_ms: int) -> Advice:
    """The expert policy's move for ``seat`` ``at_ms`` ms after Go (R8): the hand as it
    stood after every input up to that moment."""
    start = go_ms(hand_text)
    moment = start + at_ms
    hand = Hand(hand_text.deal, rules)
    for entry in hand_text.inputs:
        if entry[0] > moment:
            break
        apply(hand, entry)
    if hand.phase is not Phase.PLAYING:
        reason = "the hand had not started" if hand.phase is Phase.WAITING else "the hand was over"
        return Advice(at_ms, None, reason)
    level = replace(LEVELS[ADVISING_LEVEL], overlook=0.0)
    driver = Driver(Bot(seat, level, "balanced", seed=0))  # the one way a bot decides
    driver.begin(view(hand, seat))
    driver.plan(moment)
    return Advice(at_ms, None if driver.move is None else str(driver.move))
