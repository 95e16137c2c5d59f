"""A joker's way to the middle (R41): announced, a window, then it lands or stays home.

A joker goes to the middle only announced as a real card for a foundation (``N>F2=7H``;
an ace for a new one, ``N>F=AS``). ``Middle.announce`` checks the announcement; it then
waits, open, as an ``Announcement`` in ``Middle.announcements`` for
``joker_announce_ms``, while the joker stays on its pile and any seat holding the real
card may play it there first. When the window ends (``Middle.due``) the joker lands as
that card (``Middle.land``), unless ``Middle.stays_home`` gives a reason: the real card
got there first, or the joker left its pile. A call closes every window at once (R28).
What the middle decides ``Hand`` carries out: it alone moves cards off the layouts.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card
from .moves import Move

__all__ = ["Announcement"]


@dataclass(frozen=True, slots=True)
class Announcement:
    """R41: a joker announced for a foundation, waiting for its window to end.

    ``foundation`` is the foundation's number, -1 for a new one (an ace); ``until_ms``
    is when the window closes and the joker lands, unless the real card got there
    first or the joker left its source."""

    seat: int
    move: Move
    joker: Card
    foundation: int
    until_ms: int

    @property
    def card(self) -> Card:
        """The card announced, as a card of the announcing seat (what the joker stands
        for once it lands)."""
        said = self.move.announced
        assert said is not None
        return Card.of(said.rank, said.suit, self.seat)
