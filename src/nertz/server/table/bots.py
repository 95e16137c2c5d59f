"""Bots in seats: the server's side of the bot protocol (docs/bots.md), timer by timer.

Each place a bot plays has a ``nertz.bots.Driver``, the same driver the simulator
uses: the bot's committed move and when it lands. The table asks ``due``; when the
time comes it submits ``move`` through the same path as a person's play and then
plans again. No clock here: every call carries the table's time in milliseconds.

A driver plays a bot seat for the whole match, or a person's seat while they are away
(``bot_takeover_s``, handed back when they return). ``Bots`` is the table's collaborator
that drives them: it makes a place's driver, has it look at the table (``plan``, at a
partnership seat around its partner, R40, in the role ``nertz.bots.role_for`` gives
it; again when its partner's hold or company changes, ``replan_partner``) and plays
its move when it is due (the ``BOT`` timer, ``fire``) along the path every play takes.
"""

from __future__ import annotations

from nertz.bots import Driver, parse_seat, role_for
from nertz.server.table.commands import Stage
from nertz.server.table.context import Actions, Place, TableContext
from nertz.server.table.partners import Partners, top
from nertz.server.table.practice import Practice

__all__ = ["Bots"]


class Bots:
    """The ``Table``'s bots: each place a bot plays has a ``Driver`` (``Place.driver``)."""

    def __init__(
        self,
        ctx: TableContext,
        actions: Actions,
        partners: Partners,
        practice: Practice,
        seed: int,
    ) -> None:
        self.ctx = ctx
        self.actions = actions
        self.partners = partners
        self.practice = practice
        self._seed = seed
        self._bot_seeds = 0

    def driver(self, place: Place, spec: str) -> Driver:
        """A new bot for ``place``; raises ``ValueError`` on a bad spec."""
        self._bot_seeds += 1
        seed = hash((self._seed, place.number, self._bot_seeds)) & 0xFFFFFFFF
        return Driver.of(place.number, parse_seat(spec), seed, place.partner)

    def due(self, place: Place) -> int | None:
        """When ``place``'s bot acts next (its ``BOT`` timer); a lesson's script, not its
        bot, moves the teacher."""
        driver = place.driver
        if driver is None or self.practice.scripted:
            return None
        return driver.due

    def fire(self, place: Place, now: int) -> None:
        """A bot's timer: its committed move goes in like a person's, or it looks again."""
        driver = place.driver
        assert driver is not None
        move = driver.move
        if move is None:
            self.plan(place, now)
            return
        driver.move = None
        driver.due = None
        self.actions.play(place, move, now, None, 0)
        if self.ctx.stage is Stage.PLAYING and driver.due is None and place.driver is driver:
            self.plan(place, now)  # a person looks at the table again as soon as a card lands

    def _paced(self, driver: Driver, now: int) -> None:
        """A practice table's pace (``Settings.bot_pace``): each delay stretched."""
        pace = self.practice.pace
        if pace < 100 and driver.due is not None:
            driver.due = now + (driver.due - now) * 100 // pace

    def role(self, place: Place) -> str | None:
        """A bot's share of a partnership seat's work (``role_for``, R40): beside a
        person (one plays the other place, no bot standing in) it plays the stock; a
        bot standing in for an absent person takes the role of that person's place."""
        other = self.ctx.partner_of(place)
        if other is None:
            return None
        standing_in = place.bot is None
        return role_for(place.partner, other.driver is None and other.taken and not standing_in)

    def plan(self, place: Place, now: int) -> None:
        """A bot looks at the table: its next move, holding that move's source until
        it lands (R40), and never a move touching what its partner holds."""
        driver = place.driver
        assert driver is not None
        ctx = self.ctx
        if ctx.per_seat == 1:
            driver.plan(now)
            self._paced(driver, now)
            return
        seat, partner = place.number, place.partner
        holds, hand = ctx.holds, ctx.hand
        before = (holds.held(seat)[partner], holds.card(seat, partner))
        mate = ctx.place(seat, 1 - partner).driver
        driver.plan_beside(now, holds, mate, self.role(place), lambda src: top(hand, seat, src))
        self._paced(driver, now)
        if (holds.held(seat)[partner], holds.card(seat, partner)) != before:
            self.partners.send_hold(place)  # everyone sees where the bot's hand is (R40)

    def replan_partner(self, place: Place, now: int) -> None:
        """A bot whose partner just picked up a card its committed move touches, or
        whose partner changed (a person came, a bot stood in), looks again (R40)."""
        ctx = self.ctx
        other = ctx.partner_of(place)
        if other is None or other.driver is None or ctx.stage is not Stage.PLAYING:
            return
        held = ctx.holds.held(place.number)[place.partner]
        if other.driver.stale(held, self.role(other)):
            self.plan(other, now)

    def plan_all(self, now: int) -> None:
        """Every bot looks at the table (Go, R8; a rotation, R25; a restored hand)."""
        for place in self.ctx.places:
            if place.driver is not None:
                self.plan(place, now)
