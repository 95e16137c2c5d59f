"""One hand in ticks: learners' moves and bots' moves on the engine, in virtual time.

The environment frames real time (R8: no turns) as ticks of ``step_ms`` virtual
milliseconds. At a tick every learner may play one move, chosen from the table as it
stood at the tick's start; the moves land at that time, in seat order from a learner
drawn at random each tick (two learners racing for one foundation: the first lands,
the other is refused ``beaten``, R16; a rotation drops the tick's moves still to land,
R25). Then the table's time runs on to the next tick: the bots
play their committed moves when they are due, and the engine's own timers fire (the
landing window after a call, R28; the rotations of a blocked or idle table, R25-R26;
a joker's announcement, R41), exactly as in the simulator (``nertz.sim.table``).

Bots are ``nertz.bots.Driver``s, the simulator's and the server's loop around a bot:
they read only their seat's view and the table's events. ``pace`` stretches every
bot delay to 100 / pace of its level's, like a practice table's pace. The engine
decides every move: nothing here knows a rule.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from nertz.bots import Driver, SeatSpec
from nertz.engine import (
    PILES,
    CardsMoved,
    Event,
    Hand,
    Kind,
    Move,
    Outcome,
    Rotated,
    Rules,
    SaidStuck,
    StockTurned,
    deal,
    view,
)

__all__ = ["DROPPED", "MAX_HAND_MS", "Table"]

MAX_HAND_MS = 3 * 3600 * 1000
"""A hand still going after three virtual hours is a deadlock: ``Table`` raises."""


DROPPED = "rotated"
"""The code of a learner's move dropped because the table rotated (R25) earlier in
the same tick."""
_DROPPED = Outcome(False, (), None, "the table rotated (R25) before this move landed")


class Table:
    """A hand of Nertz played by learners (seats without a bot) and bots."""

    def __init__(
        self, rules: Rules, bots: Sequence[SeatSpec | None], step_ms: int, pace: int = 100
    ) -> None:
        if not 1 <= step_ms <= 60_000:
            raise ValueError(f"step_ms must be from 1 to 60000 ms, not {step_ms}")
        if not 1 <= pace <= 1000:
            raise ValueError(
                f"pace must be from 1 to 1000 (percent of a level's speed), not {pace}"
            )
        self.rules = rules
        self.specs = tuple(bots)
        self.step_ms = step_ms
        self.pace = pace
        self.learners = tuple(s for s, spec in enumerate(bots) if spec is None)
        self.hand = Hand(deal(len(bots), rules, 0), rules)
        self.drivers: list[Driver] = []
        self.rng = random.Random(0)
        self.now = 0
        self.piles_changed: set[int] = set(range(len(bots)))
        """The seats whose work piles may have changed since the observer last read
        them (it empties the set): every change comes with a ``CardsMoved`` event."""
        self.seats_changed: set[int] = set(range(len(bots)))
        """The seats whose layout (or cards in the middle) may have changed since the
        observer last read them: each change comes with an event of that seat, or
        one for the whole table (it empties the set)."""
        self.moves_changed: set[int] = set(range(len(bots)))
        """The seats whose legal moves may have changed since the environment last
        asked the engine (it empties the set): a seat's own card moves, turns and
        *stuck* change its own; a card to the middle, a call, a rotation or a joker's
        announcement everyone's (R13, R25, R28, R41)."""

    def reset(self, seed: int) -> None:
        """Deal a new hand from ``seed`` (R33), seat the bots (their random choices drawn
        from it too) and say Go (R8)."""
        rng = random.Random(seed)
        self.rng = rng
        self.hand = hand = Hand(deal(len(self.specs), self.rules, rng.getrandbits(48)), self.rules)
        self.drivers = [
            Driver.of(seat, spec, rng.getrandbits(48))
            for seat, spec in enumerate(self.specs)
            if spec is not None
        ]
        for driver in self.drivers:
            driver.begin(view(hand, driver.seat))
        self.now = 0
        self.piles_changed.update(range(len(self.specs)))
        self.moves_changed.update(range(len(self.specs)))
        self.seats_changed.update(range(len(self.specs)))
        self._announce(hand.start(0).events)
        for driver in self.drivers:
            self._plan(driver, 0)

    def step(self, moves: Sequence[tuple[int, Move]]) -> dict[int, Outcome]:
        """Play the learners' ``(seat, move)`` at this tick, then let the table's time
        run to the next tick. Returns each learner's outcome (a refusal is the engine's,
        with its code and sentence)."""
        hand = self.hand
        now = self.now
        outcomes: dict[int, Outcome] = {}
        order = list(moves)
        if len(order) > 1:
            # Who lands first at this tick: a cyclic order from a learner drawn at
            # random, so each is first as often as the others in a race (R16).
            first = int(self.rng.random() * len(order))
            order = order[first:] + order[:first]
        rotated = False
        for seat, move in order:
            if rotated:
                # The table rotated (R25) under the moves still to land: they were chosen
                # on stocks and wastes that are gone, and are dropped, as every bot
                # drops its committed move.
                outcomes[seat] = _DROPPED
                continue
            outcome = hand.play(seat, move, now)
            outcomes[seat] = outcome
            if outcome.ok:
                rotated = self._accepted(move, outcome, now)
            if hand.over:
                return outcomes
        if rotated:
            self._restart(now)
        self._run(now + self.step_ms)
        return outcomes

    def _run(self, until: int) -> None:
        """The table's time from now to ``until``: bots' moves and the engine's timers,
        the earliest first (the table's timer first on equal times, then seat order)."""
        hand = self.hand
        drivers = self.drivers
        while not hand.over:
            driver: Driver | None = None
            t = until + 1
            for d in drivers:
                due = d.due
                if due is not None and due < t:
                    driver, t = d, due
            deadline = hand.next_deadline()
            if deadline is not None and deadline <= t and deadline <= until:
                events = hand.tick(deadline).events
                if events and not hand.over:
                    self._announce(events)
                    if not self.rules.jokers or any(type(e) is Rotated for e in events):
                        self._restart(deadline)
                continue
            if driver is None:
                break
            if t > MAX_HAND_MS:
                raise RuntimeError(f"the hand did not end after {MAX_HAND_MS} ms (deadlock)")
            move = driver.move
            rotated = False
            if move is not None:
                outcome = hand.play(driver.seat, move, t)
                if outcome.ok:
                    rotated = self._accepted(move, outcome, t)
                else:
                    code = outcome.code
                    assert code is not None
                    if driver.refused(move, code):
                        driver.resync(view(hand, driver.seat))
            if hand.over:
                break
            if rotated:
                self._restart(t)
            else:
                self._plan(driver, t)
        self.now = until

    def _accepted(self, move: Move, outcome: Outcome, at_ms: int) -> bool:
        """Tell every bot what happened; True when the table rotated (R25)."""
        events = outcome.events
        if move.kind is Kind.TURN:
            deadline = self.hand.next_deadline()
            if deadline is not None and deadline <= at_ms:
                # A turn that may have blocked the seat: the table looks at once (R24),
                # as the simulator's loop does.
                events += self.hand.tick(at_ms).events
        self._announce(events)
        return any(type(e) is Rotated for e in events)

    def _announce(self, events: Sequence[Event]) -> None:
        """Every accepted input's events go to every bot (and mark the work piles they
        changed: a run or a card onto, into or under a pile, or a pile's end card to the
        middle)."""
        for driver in self.drivers:
            driver.observe(events)
        everyone = False
        for event in events:
            kind = type(event)
            if kind is CardsMoved:
                assert isinstance(event, CardsMoved)
                self.seats_changed.add(event.seat)
                move = event.move
                if move.src < PILES or move.kind is Kind.PILE or move.kind is Kind.UNDER:
                    self.piles_changed.add(event.seat)
                if event.foundation >= 0:
                    everyone = True  # the middle changed: everyone's plays to it
                else:
                    self.moves_changed.add(event.seat)
            elif kind is StockTurned or kind is SaidStuck:
                assert isinstance(event, (StockTurned, SaidStuck))
                self.moves_changed.add(event.seat)
                self.seats_changed.add(event.seat)
            else:  # a call, a rotation, a joker's announcement: anything may change
                everyone = True
        if everyone:
            self.moves_changed.update(range(len(self.specs)))
            self.seats_changed.update(range(len(self.specs)))

    def _plan(self, driver: Driver, now: int) -> None:
        due = driver.plan(now)
        if self.pace != 100:
            driver.due = now + max(1, (due - now) * 100 // self.pace)

    def _restart(self, now: int) -> None:
        """After a rotation (R25) every bot drops the move it was about to make and looks
        again, as at the simulator's table."""
        for driver in self.drivers:
            driver.stop()
            self._plan(driver, now)
