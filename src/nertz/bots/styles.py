"""Styles: what a bot goes for and when it calls Nertz (R27).

* ``racer`` goes straight at its Nertz pile: it keeps its work piles as landing spots
  for the Nertz card (sends a work-pile card to the middle only when that empties a
  space or the card is an ace or a two) and builds on work piles from the waste only
  to make a landing for the Nertz card, unless it is getting nowhere. It calls the
  moment its Nertz pile is empty.
* ``prompt`` plays like the balanced bot but, like the racer, calls the moment its
  pile is empty: the control for "call at once or play on?" (docs/strategy.md).
* ``scorer`` plays wide: every card the middle takes goes there. With an empty Nertz
  pile it plays on (R27), turning its stock, until a whole pass finds nothing to play,
  and calls only then, or when an opponent is down to one Nertz card.
* ``balanced`` (the default) plays like the scorer but weighs the call: it calls when
  calling wins the match, when the caller bonus is worth protecting, when an opponent
  is close to calling, when it has no card ready for the middle; it plays on (its
  ready cards to the middle first) only when the race is nearly lost: the leader is
  within ``TRAILING`` points of the target and more than ``TRAILING`` ahead of it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_STYLE", "STYLES", "CallSituation", "Style"]


TRAILING = 20
"""Points (match total plus hand) that make a race nearly lost for a balanced bot."""


@dataclass(frozen=True, slots=True)
class CallSituation:
    """What a bot with an empty Nertz pile weighs before calling (all public facts)."""

    ready_plays: int
    """Cards it could send to the middle right now."""
    out_of_plays: bool
    """It has passed through its stock without finding a play."""
    opponent_nertz: int
    """The smallest Nertz pile among the other seats (99 when alone)."""
    caller_bonus: int
    my_total: int
    """Match total plus this hand's score as it stands (bonus included if it calls)."""
    best_other_total: int
    """The best other seat's match total plus its hand score as it stands."""
    target: int
    """Race target (R32); 0 when the match mode is not a race."""


@dataclass(frozen=True, slots=True)
class Style:
    """A named way to play. ``wide`` sends every card the middle takes; ``call`` is
    ``now``, ``late`` or ``weigh`` (see the module docstring)."""

    name: str
    wide: bool
    call: str

    def should_call(self, s: CallSituation) -> bool:
        """Call now (R27)? Only asked when the bot's Nertz pile is empty."""
        if self.call == "now" or s.out_of_plays:
            return True
        if self.call == "late":
            return s.opponent_nertz <= 1  # else on until a pass finds nothing

        if s.target and s.my_total >= s.target and s.my_total > s.best_other_total:
            return True  # calling now wins the race (R32)
        if s.ready_plays == 0 or s.caller_bonus >= 10 or s.opponent_nertz <= 3:
            return True
        # Playing on costs points on average (docs/strategy.md): while the bot earns 1 a
        # card, the others play Nertz cards worth penalty + 1 each (R30). Only a seat
        # well behind when the leader is about to win the race takes the gamble.
        desperate = s.target and s.best_other_total >= s.target - TRAILING
        return not (desperate and s.my_total < s.best_other_total - TRAILING)


STYLES: dict[str, Style] = {
    style.name: style
    for style in (
        Style("racer", wide=False, call="now"),
        Style("prompt", wide=True, call="now"),
        Style("balanced", wide=True, call="weigh"),
        Style("scorer", wide=True, call="late"),
    )
}
"""Every style by name."""

DEFAULT_STYLE = "balanced"
"""The style of a seat spec that names only a level."""
