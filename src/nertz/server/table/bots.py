"""Bots in seats: the server's side of the bot protocol (docs/bots.md), timer by timer.

Each place a bot plays has a ``nertz.bots.Driver``, the same driver the simulator
uses: the bot's committed move and when it lands. The table asks ``due``; when the
time comes it submits ``move`` through the same path as a person's play and then
plans again. No clock here: every call carries the table's time in milliseconds.

A driver plays a bot seat for the whole match, or a person's seat while they are away
(``bot_takeover_s``, handed back when they return). ``BotSeats`` is the table's part
that drives them: it makes a place's driver, has it look at the table (``_plan``, at a
partnership seat around its partner, R40, in the role ``nertz.bots.role_for`` gives
it) and plays its move when it is due (``_bot``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nertz.bots import Driver, parse_seat, role_for
from nertz.engine import Hand, Holds, Move
from nertz.server.table.commands import Stage
from nertz.server.table.partners import top

if TYPE_CHECKING:
    from nertz.server.table.seats import Place

__all__ = ["BotSeats"]


class BotSeats:
    """The ``Table``'s bots: each place a bot plays has a ``Driver`` (``driver``)."""

    per_seat: int
    holds: Holds
    hand: Hand | None
    stage: Stage
    _seed: int
    _bot_seeds: int

    if TYPE_CHECKING:

        def place(self, seat: int, partner: int = 0) -> Place: ...

        def partner_of(self, place: Place) -> Place | None: ...

        def _send_hold(self, place: Place) -> None: ...

        def _play(self, place: Place, move: Move, now: int, conn: int | None, seq: int) -> bool: ...

        @property
        def pace(self) -> int: ...

    def _driver(self, place: Place, spec: str) -> Driver:
        """A new bot for ``place``; raises ``ValueError`` on a bad spec."""
        self._bot_seeds += 1
        seed = hash((self._seed, place.number, self._bot_seeds)) & 0xFFFFFFFF
        return Driver.of(place.number, parse_seat(spec), seed, place.partner)

    def _bot(self, place: Place, now: int) -> None:
        """A bot's timer: its committed move goes in like a person's, or it looks again."""
        driver = place.driver
        assert driver is not None
        move = driver.move
        if move is None:
            self._plan(place, now)
            return
        driver.move = None
        driver.due = None
        self._play(place, move, now, None, 0)
        if self.stage is Stage.PLAYING and driver.due is None and place.driver is driver:
            self._plan(place, now)  # a person looks at the table again as soon as a card lands

    def _paced(self, driver: Driver, now: int) -> None:
        """A practice table's pace (``Settings.bot_pace``): each delay stretched."""
        pace = self.pace
        if pace < 100 and driver.due is not None:
            driver.due = now + (driver.due - now) * 100 // pace

    def _role(self, place: Place) -> str | None:
        """A bot's share of a partnership seat's work (``role_for``, R40): beside a
        person (one plays the other place, no bot standing in) it plays the stock; a
        bot standing in for an absent person takes the role of that person's place."""
        other = self.partner_of(place)
        if other is None:
            return None
        standing_in = place.bot is None
        return role_for(place.partner, other.driver is None and other.taken and not standing_in)

    def _plan(self, place: Place, now: int) -> None:
        """A bot looks at the table: its next move, holding that move's source until
        it lands (R40), and never a move touching what its partner holds."""
        driver = place.driver
        assert driver is not None
        if self.per_seat == 1:
            driver.plan(now)
            self._paced(driver, now)
            return
        seat, partner = place.number, place.partner
        holds, hand = self.holds, self.hand
        before = (holds.held(seat)[partner], holds.card(seat, partner))
        mate = self.place(seat, 1 - partner).driver
        driver.plan_beside(now, holds, mate, self._role(place), lambda src: top(hand, seat, src))
        self._paced(driver, now)
        if (holds.held(seat)[partner], holds.card(seat, partner)) != before:
            self._send_hold(place)  # everyone sees where the bot's hand is (R40)
