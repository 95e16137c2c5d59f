"""The middle of the table: its foundations, the jokers announced for them, and what each
place wants next (R7, R11-R16, R41).

``Middle`` is the one object that changes the middle. It holds

* ``foundations``: every foundation, in the order they were started (``F1`` first);
* ``wants``: ``Card.key`` -> the foundations that take that card next, oldest first
  (R13), kept in step with every card laid; the legal moves and the blocked search
  read it;
* ``announcements``: the jokers announced for a place whose window is still open,
  oldest first (R41);
* ``version``: counts the cards laid, so that an answer worked out from ``wants``
  (``Hand.is_blocked`` keeps them) knows when it may be stale.

A real card goes to the middle through ``receive``, which checks it (an ace starts a
foundation, R12; a foundation takes the next rank of its suit, R13; the races, R16) and
lays it. A joker goes in three steps (R41): ``announce`` checks the announcement and
opens its window; while the window is open the joker stays on its pile and any seat
holding the real card may play it there first; when the window ends, ``due`` hands the
announcement back and ``land`` lays the joker as the card announced, unless
``stays_home`` gives a reason. ``Hand`` carries out the rest: it alone moves cards off
the seats' layouts.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterable
from operator import attrgetter
from typing import Final

from .announcements import Announcement
from .cards import Card
from .foundations import Foundation, Wants, not_taken, tie_target
from .moves import ANY, Move
from .outcome import Outcome, Refusal, refuse

__all__ = ["Middle"]

_NUMBER: Final = attrgetter("number")


class Middle:
    """The middle of one hand (see the module's docstring). Mutable, owned by a ``Hand``;
    ``copy`` gives an independent one. ``Middle()`` is the empty middle of R7;
    ``Middle.dealt`` starts one from foundations already dealt (a lesson, a test)."""

    def __init__(
        self,
        foundations: Iterable[Foundation] = (),
        announcements: Iterable[Announcement] = (),
        version: int = 0,
    ) -> None:
        self.foundations: Final[list[Foundation]] = list(foundations)
        """Every foundation, oldest first: ``foundations[n].number == n``."""
        self.wants: Final[Wants] = {}
        """``Card.key`` -> the foundations that take that card next, oldest first (R13)."""
        for f in self.foundations:
            if f.top_rank < 13:
                self.wants.setdefault(f.needs, []).append(f)
        self.announcements: Final[list[Announcement]] = list(announcements)
        """R41: the jokers announced for the middle whose window is still open, oldest
        first."""
        self.version = version
        """How many times a card was laid here: ``wants`` is unchanged while it is."""

    @staticmethod
    def dealt(piles: Iterable[list[Card]]) -> Middle:
        """A middle whose foundations are ``piles``, each a run from its ace up (R12,
        R13), started at time 0 in the order given."""
        return Middle(Foundation(n, cards[0].suit, cards, 0) for n, cards in enumerate(piles))

    def copy(self) -> Middle:
        """An independent copy: its own foundations, ``wants`` and announcements."""
        return Middle([f.copy() for f in self.foundations], self.announcements, self.version)

    # ------------------------------------------------------------------ real cards

    def receive(
        self, card: Card, number: int, at_ms: int, tie_window_ms: int
    ) -> tuple[Foundation, bool] | Outcome:
        """Lay the real ``card`` (a joker goes by ``announce``) on foundation ``number``
        (``ANY``: the oldest that takes it, R13), or start a new foundation with it if it
        is an ace (R12), at ``at_ms``. Returns the foundation and whether the card made a
        true tie there (R16: the same rank within ``tie_window_ms`` of the first); or the
        refusal, and nothing changes: there is no such foundation, an ace is played to a
        foundation, or no foundation takes the card (``beaten`` when its place was taken
        first, R16, else ``does_not_fit``, R13)."""
        foundations = self.foundations
        if number != ANY and not 0 <= number < len(foundations):
            return refuse(Refusal.NO_SUCH_FOUNDATION, f"there is no foundation F{number + 1}")
        if card.rank == 1:
            if number != ANY:
                return refuse(
                    Refusal.DOES_NOT_FIT, f"{card} starts a new foundation (R12); play it to F"
                )
            self.version += 1
            return self._start([card], at_ms), False
        if number == ANY:
            fits = self.wants.get(card.key)
            if fits:
                target = fits[0]
                self._grow(target, card, at_ms)
                self.version += 1
                return target, False
            tied = tie_target(card, at_ms, foundations, tie_window_ms)
            if tied is None:
                return not_taken(card, foundations)
        else:
            target = foundations[number]
            if target.suit == card.suit and target.top_rank == card.rank - 1:
                self._grow(target, card, at_ms)
                self.version += 1
                return target, False
            tied = tie_target(card, at_ms, (target,), tie_window_ms)
            if tied is None:
                return not_taken(card, (target,))
        # A true tie: the foundation holds this rank twice and still wants the next (R16).
        tied.cards.append(card)
        self.version += 1
        return tied, True

    # ------------------------------------------------------------------ jokers (R41)

    def announce(self, seat: int, move: Move, joker: Card, until_ms: int) -> Announcement | Outcome:
        """Open the announcement ``move`` makes of ``joker``, the card on its source, for
        ``seat``, its window ending at ``until_ms``; or the refusal, and nothing changes:
        not a joker, a joker already announced, or a card no foundation takes now
        (``beaten`` when that card got there first, as a real card's race is lost, R16,
        or another joker is already announced for that place). Announcing for "any"
        foundation names the oldest that takes the card (everyone is told which one)."""
        card = move.announced
        assert card is not None
        if joker.rank != 0:
            return refuse(
                Refusal.DOES_NOT_FIT,
                f"only a joker is announced (R41); the {joker.name} goes to the middle as itself",
            )
        pending = self.announcements
        for open_one in pending:
            if open_one.joker is joker:
                return refuse(
                    Refusal.JOKER_ANNOUNCED,
                    f"this joker is already announced as the {open_one.move.announced}; "
                    "it lands or stays when its announcement ends (R41)",
                )
        foundations = self.foundations
        number = move.dst
        if card.rank == 1:
            if number != ANY:
                return refuse(
                    Refusal.DOES_NOT_FIT,
                    f"an ace starts a new foundation (R12): announce {card} for F",
                )
        elif number == ANY:
            fits = self.wants.get(card.key)
            if not fits:
                # ``beaten`` when that card already got there: the same lost race as a
                # real card's (R16), which a player cannot see coming.
                late = not_taken(card, foundations)
                if late.code is Refusal.BEATEN:
                    return late
                return refuse(
                    Refusal.DOES_NOT_FIT, f"no foundation takes the {card.name} now (R13)"
                )
            number = fits[0].number
            move = Move.announce(move.src, card, number)  # everyone is told which one
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
                        f"beaten to it: a joker is already announced as the {card.name} "
                        f"for F{number + 1} (R41)",
                    )
        made = Announcement(seat, move, joker, number, until_ms)
        pending.append(made)
        return made

    def due(self, at_ms: int, everything: bool = False) -> list[Announcement]:
        """Take out the announcements whose window has ended by ``at_ms`` (all of them
        when ``everything``: the hand is ending, R28), oldest first."""
        pending = self.announcements
        ended: list[Announcement] = []
        while pending and (everything or pending[0].until_ms <= at_ms):
            ended.append(pending.pop(0))
        return ended

    def stays_home(self, announced: Announcement, on_source: Card | None) -> str | None:
        """Why the joker of an announcement whose window has ended does not land, in
        words, or None when it lands (R41). ``on_source`` is the card on its source now:
        the joker stays home when it left its pile, or when the real card reached its
        place first."""
        if on_source is not announced.joker:
            return "the joker left its pile before its announcement ended (R41)"
        number = announced.foundation
        if number >= 0 and self.foundations[number].needs != announced.move.card:
            return f"the {announced.card.name} reached F{number + 1} first (R41)"
        return None

    def land(self, announced: Announcement, at_ms: int, tie_window_ms: int) -> Foundation:
        """R41: lay the joker of ``announced`` in the middle, standing for the card
        announced, on its foundation (or a new one, for an ace), as its window ends at
        ``at_ms``. ``stays_home`` must have said it lands."""
        card, number = announced.card, announced.foundation
        if number < 0:
            target = self._start([card], at_ms)
        else:
            target = self.foundations[number]
            self._grow(target, card, at_ms)
            # The real card had the whole window to get there first: arriving now it is
            # beaten, not a true tie (R16) with the joker.
            target.top_ms = at_ms - tie_window_ms - 1
        # The foundation grew by the announced card; the joker lies there in its stead.
        place = len(target.cards) - 1
        target.cards[place] = announced.joker
        target.jokers[place] = card
        self.version += 1
        return target

    # ------------------------------------------------------------------ bookkeeping

    def _start(self, cards: list[Card], at_ms: int) -> Foundation:
        """Start a foundation with ``cards`` (an ace, R12) after the others."""
        f = Foundation(len(self.foundations), cards[0].suit, cards, at_ms)
        self.foundations.append(f)
        if f.top_rank < 13:
            self.wants.setdefault(f.needs, []).append(f)  # the newest: last in order
        return f

    def _grow(self, f: Foundation, card: Card, at_ms: int) -> None:
        """Lay ``card``, the one ``f`` needs, on it at ``at_ms`` (R13), and move ``f`` in
        ``wants`` to the card it needs next (none after its king, R15)."""
        wants = self.wants
        waiting = wants[f.needs]
        waiting.remove(f)
        if not waiting:
            del wants[f.needs]
        f.cards.append(card)
        f.top_rank = card.rank
        f.top_ms = at_ms
        if card.rank < 13:
            # Kept in foundation order: "any foundation" means the oldest that fits.
            insort(wants.setdefault(f.needs, []), f, key=_NUMBER)
