"""A practice table: one person against bots, unscored, with pause, hints and a pace.

``Settings.practice`` marks the table (the store keeps it out of every history);
``Practice`` is the ``Table``'s collaborator that plays it:

* **pause** (the ``pause`` message, while a hand is played): the bots and the hand's
  timers stop and plays are refused, so no event goes out until it carries on; the
  connection's own pings go on. The hand's clock stops with it: the engine is handed
  the table's time less every pause so far (``hand_ms``), so the idle rotation (R25)
  and every bot's next action are as far off after a pause as before it.
* **hints** (the ``hint`` message): the move the bots' own policy would play for the
  person's seat, with a perfect eye, checked against the engine (``best_move``).
* **pace** (``Settings.bot_pace``, the ``pace`` message): every bot delay is
  stretched to 100 / pace of its level's. A pace or pause that changes nothing is
  not stored; one that does costs a stored change (``lifetimes.CHANGES_PER_S``).
* a **lesson** (``Settings.lesson``, ``lessons.py``) for the first hand: dealt as soon
  as the learner is here (no Ready), the scripted deal, one step at a time; the
  teacher seat's bot and the hand's timers wait for the script (see ``lessons.py``).
  Its score is shown and not carried on: the match is the practice hands after it.
"""

from __future__ import annotations

from typing import Any

import msgspec

from nertz.bots import Level, suggest
from nertz.engine import Deal, Hand, Move, Phase, Rules, deal, view
from nertz.server.protocol import (
    ClientMessage,
    Hint,
    HintMsg,
    LessonEvent,
    Pace,
    PaceEvent,
    Pause,
    PausedEvent,
    encode,
)
from nertz.server.table.commands import Stage
from nertz.server.table.context import Actions, Place, TableContext
from nertz.server.table.lessons import LESSONS, Lesson, fits
from nertz.server.table.lifetimes import Lifetimes

__all__ = ["HINT_LEVEL", "Practice", "best_move"]

HINT_LEVEL = Level("hint", 1, 1, 0.1, 1, 0.0, 3, 1)
"""The bots' policy with nothing overlooked and the deepest planning: a hint is the
best move the policy knows, not a slip of a beginner bot's eye."""


def best_move(hand: Hand, seat: int, totals: tuple[int, ...] = ()) -> Move | None:
    """The move to suggest to ``seat``: the bots' policy (``HINT_LEVEL``) reading the
    seat's view, if the engine takes it; else "stuck" for a blocked seat (R24, R25),
    else the first legal move. None when the seat has nothing to do."""
    if hand.phase is not Phase.PLAYING:
        return None
    chosen = suggest(seat, view(hand, seat), hand.now, HINT_LEVEL, totals)
    if chosen is not None and hand.copy().play(seat, chosen, hand.now).ok:
        return chosen
    if hand.seats[seat].stuck:
        return None
    if hand.is_blocked(seat):
        return Move.parse("STUCK")
    legal = hand.legal_moves(seat)
    return legal[0] if legal else None


class Practice:
    """The ``Table``'s pause, hints, pace and lesson (module docstring). State:
    ``paused_at`` (table time the pause began, None while playing), ``paused_ms``
    (every finished pause of this hand, added up) and the lesson's step."""

    def __init__(self, ctx: TableContext, actions: Actions, lifetimes: Lifetimes) -> None:
        self.ctx = ctx
        self.actions = actions
        self.lifetimes = lifetimes
        self.paused_at: int | None = None
        self.paused_ms = 0
        self._step: int | None = None
        """The lesson's step; None: not yet read from the event log (a rebuilt table)."""
        self._pace: int | None = None
        """The pace set at the table (``pace``), over ``Settings.bot_pace``."""

    # ------------------------------------------------------------------ what the table asks

    @property
    def lesson(self) -> Lesson | None:
        """The lesson of this table's first hand, if any."""
        name = self.ctx.settings.lesson
        return LESSONS.get(name) if name else None

    @property
    def scripted(self) -> bool:
        """The lesson's hand: its script, not the teacher's bot, moves the teacher."""
        return self.lesson is not None and self.ctx.hand_no == 1

    @property
    def timers_scripted(self) -> bool:
        """The lesson's hand before the call: no idle rotation or look at a blocked
        table (R25) interrupts a step; after the call the landing window runs (R28)."""
        hand = self.ctx.hand
        return self.scripted and hand is not None and hand.phase is Phase.PLAYING

    def counts(self, hand_no: int) -> bool:
        """Whether hand ``hand_no`` counts in the match: a lesson's hand is a lesson, its
        score is shown at its end and never carried into the practice hands after it
        (they are the match, from ``first_hand`` 2)."""
        return self.lesson is None or hand_no != 1

    def hand_ms(self, now: int) -> int:
        """The hand's clock: the table's, less every pause so far."""
        return now - self.paused_ms

    def table_ms(self, hand_ms: int | None) -> int | None:
        """A time on the hand's clock on the table's."""
        return None if hand_ms is None else hand_ms + self.paused_ms

    def deal_lesson(self, seats: int, rules: Rules, seed: int) -> Deal:
        """A lesson table's dealer: the lesson's deal first, then as usual (R33)."""
        lesson = self.lesson
        if lesson is not None and self.ctx.hand_no == 0:
            return lesson.deal()
        return deal(seats, rules, seed)

    @property
    def step(self) -> int:
        """The lesson's current step (from 0); a rebuilt table reads it from its log."""
        if self._step is None:
            self._step = 0
            for body in self.ctx.events:
                if b'"k":"lesson"' in body:
                    self._step = msgspec.json.decode(body)["e"]["step"]
        return self._step

    def public(self) -> dict[str, Any]:
        """``info()``'s ``practice`` (nothing at other tables)."""
        if not self.ctx.settings.practice:
            return {}
        lesson = self.lesson
        return {
            "practice": {
                "paused": self.paused_at is not None,
                "pace": self.pace,
                "lesson": None if lesson is None else lesson.as_dict(),
                "step": self.step,
            }
        }

    @property
    def pace(self) -> int:
        """The bots' pace in percent: the last ``pace`` set at the table (read from the
        log by a rebuilt table), else ``Settings.bot_pace``."""
        if self._pace is None:
            self._pace = self.ctx.settings.bot_pace
            for body in self.ctx.events:
                if b'"k":"pace"' in body:
                    self._pace = msgspec.json.decode(body)["e"]["pace"]
        return self._pace

    # ------------------------------------------------------------------ messages

    def message(self, conn: int, index: int | None, message: ClientMessage, now: int) -> None:
        """``pause``, ``hint`` and ``pace``: a seated person at a practice table."""
        kind = type(message)
        if kind is not Pause and kind is not Hint and kind is not Pace:
            return
        if self.ctx.settings.rated:  # issue 26: a rating is earned without help or pauses
            self.ctx.error(
                conn, "rated", "a rated table gives no hints, never pauses and keeps its pace"
            )
            return
        if not self.ctx.settings.practice:
            self.ctx.error(
                conn, "not_practice", "only a practice table pauses, hints or sets a pace"
            )
            return
        if index is None:
            self.ctx.error(conn, "not_seated", "spectators cannot do that")
            return
        if kind is Pause:
            on = message.on  # type: ignore[union-attr]
            if on != (self.paused_at is not None) and self.lifetimes.may_change(conn, index, now):
                self._pause(conn, on, now)
        elif kind is Hint:
            hand, seat = self.ctx.hand, self.ctx.places[index].number
            found = None
            if hand is not None and self.ctx.stage is Stage.PLAYING and self.paused_at is None:
                found = best_move(hand, seat, tuple(self.ctx.match.totals))
            self.ctx.send(conn, encode(HintMsg(None if found is None else found.text)))
        elif kind is Pace:
            pace = message.pace  # type: ignore[union-attr]
            if pace != self.pace and self.lifetimes.may_change(conn, index, now):  # same: nothing
                self._pace = pace
                self.ctx.emit(PaceEvent(pace=pace))

    def _pause(self, conn: int, on: bool, now: int) -> None:
        if on == (self.paused_at is not None):
            return  # already so: nothing changes, nothing is said
        if on:
            if self.ctx.stage is not Stage.PLAYING:
                self.ctx.error(conn, "not_playing", "only a hand being played can pause")
                return
            self.ctx.emit(PausedEvent(paused=True))
            self.paused_at = now
            return
        assert self.paused_at is not None
        gap, self.paused_at = now - self.paused_at, None
        self.paused_ms += gap
        for place in self.ctx.places:  # each bot's next action as far off as before
            driver = place.driver
            if driver is not None and driver.due is not None:
                driver.due += gap
        self.ctx.emit(PausedEvent(paused=False))

    # ------------------------------------------------------------------ plays

    def refuses(self, place: Place, move: Move, conn: int, seq: int) -> bool:
        """Refuse a person's play while paused, or one the lesson's step is not about:
        the engine's own refusal if the rules forbid it, else the step's hint."""
        if self.paused_at is not None:
            self.ctx.refuse(conn, seq, "paused", "the hand is paused: carry on first")
            return True
        lesson = self.lesson
        if lesson is None or self.ctx.hand_no != 1 or self.step >= len(lesson.steps):
            return False
        hand = self.ctx.hand
        assert hand is not None
        step = lesson.steps[self.step]
        if any(fits(text, move) for text in step.expect):
            return False
        trial = hand.copy().play(place.number, move, hand.now)
        if not trial.ok:
            code = trial.code.value if trial.code else "refused"
            self.ctx.refuse(conn, seq, code, trial.reason)
        else:
            self.ctx.refuse(
                conn, seq, "lesson", f"That is allowed, but not this step's: {step.hint}"
            )
        return True

    def moved(self, place: Place, move: Move, now: int) -> None:
        """After an accepted play: the lesson moves on (the teacher's moves first)."""
        lesson = self.lesson
        if lesson is None or self.ctx.hand_no != 1 or self.step >= len(lesson.steps):
            return
        step = lesson.steps[self.step]
        if place.bot is not None or not any(fits(t, move) for t in step.expect):
            return
        self._step = self.step + 1
        teacher = self.ctx.places[1]
        for text in step.teacher:
            self.actions.play(teacher, Move.parse(text), now, None, 0)
        self.ctx.emit(LessonEvent(step=self.step))
