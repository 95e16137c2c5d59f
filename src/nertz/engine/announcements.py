"""A joker's way to the middle (R41): announced, a window, then it lands or stays home.

A joker goes to the middle only announced as a real card for a foundation (``N>F2=7H``;
an ace for a new one, ``N>F=AS``). ``announce`` checks the announcement; it then waits,
open, in ``Hand.announcements`` for ``joker_announce_ms``, while the joker stays on its
pile and any seat holding the real card may play it there first. When the window ends
(``due``) the joker lands as that card, unless ``stays_home`` gives a reason: the real
card got there first, or the joker left its pile. A call closes every window at once
(R28). What is decided here ``Hand`` carries out: it alone moves cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card
from .foundations import Foundation, Wants, not_taken
from .moves import ANY, Move
from .outcome import Outcome, Refusal, refuse

__all__ = ["Announcement", "announce", "due", "stays_home"]


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


def announce(
    seat: int,
    move: Move,
    joker: Card,
    until_ms: int,
    pending: Sequence[Announcement],
    foundations: Sequence[Foundation],
    wants: Wants,
) -> Announcement | Outcome:
    """The announcement ``move`` makes of ``joker``, the card on its source, with its
    window ending at ``until_ms``; or the refusal: not a joker, a joker already
    announced, or a card no foundation takes now (``beaten`` when that card got there
    first, as a real card's race is lost, R16, or another joker is already announced
    for that place). Announcing for "any" foundation names
    the oldest that takes the card (everyone is told which one)."""
    card = move.announced
    assert card is not None
    if joker.rank != 0:
        return refuse(
            Refusal.DOES_NOT_FIT,
            f"only a joker is announced (R41); the {joker.name} goes to the middle as itself",
        )
    for open_one in pending:
        if open_one.joker is joker:
            return refuse(
                Refusal.JOKER_ANNOUNCED,
                f"this joker is already announced as the {open_one.move.announced}; "
                "it lands or stays when its announcement ends (R41)",
            )
    number = move.dst
    if card.rank == 1:
        if number != ANY:
            return refuse(
                Refusal.DOES_NOT_FIT,
                f"an ace starts a new foundation (R12): announce {card} for F",
            )
    elif number == ANY:
        fits = wants.get(card.key)
        if not fits:
            # ``beaten`` when that card already got there: the same lost race as a
            # real card's (R16), which a player cannot see coming.
            late = not_taken(card, foundations)
            if late.code is Refusal.BEATEN:
                return late
            return refuse(Refusal.DOES_NOT_FIT, f"no foundation takes the {card.name} now (R13)")
        number = fits[0].number
        move = Move.announce(move.src, card, number)
    elif not 0 <= number < len(foundations):
        return refuse(Refusal.NO_SUCH_FOUNDATION, f"there is no foundation F{number + 1}")
    elif foundations[number].needs != card.key:
        late = not_taken(card, (foundations[number],))
        if late.code is Refusal.BEATEN:
            return late
        return refuse(
            Refusal.DOES_NOT_FIT, f"F{number + 1} does not take the {card.name} now (R13)"
        )
    if number >= 0:
        for open_one in pending:
            if open_one.foundation == number and open_one.move.card == card.key:
                # One place, one announcement: the first one made (in the order the
                # table hands them over, by when they were played) has it (R16, R41).
                return refuse(
                    Refusal.BEATEN,
                    f"beaten to it: a joker is already announced as the {card.name} for "
                    f"F{number + 1} (R41)",
                )
    return Announcement(seat, move, joker, number, until_ms)


def due(pending: list[Announcement], at_ms: int, everything: bool = False) -> list[Announcement]:
    """Take out of ``pending`` the announcements whose window has ended by ``at_ms`` (all
    of them when ``everything``: the hand is ending, R28), oldest first."""
    ended: list[Announcement] = []
    while pending and (everything or pending[0].until_ms <= at_ms):
        ended.append(pending.pop(0))
    return ended


def stays_home(
    announced: Announcement, on_source: Card | None, foundations: Sequence[Foundation]
) -> str | None:
    """Why the joker of an announcement whose window has ended does not land, in words,
    or None when it lands (R41). ``on_source`` is the card on its source now."""
    if on_source is not announced.joker:
        return "the joker left its pile before its announcement ended (R41)"
    number = announced.foundation
    if number >= 0 and foundations[number].needs != announced.move.card:
        return f"the {announced.card.name} reached F{number + 1} first (R41)"
    return None
