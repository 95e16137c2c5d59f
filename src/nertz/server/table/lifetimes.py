"""How long a table and its places live: nothing anyone can hold forever.

One rule (docs/server.md, "Lifetimes"): a table lives while someone is there — a
connection open, or a person holding a place (a dropped person holds it for
``reconnect_s``, and so does one who joined and never connected; how long is
``seats.keeping``). ``Lifetimes`` is the ``Table``'s collaborator that starts a match
(``maybe_start``), counts the people not ready down to the first deal (``ready_s``,
then a bot plays for each until they play, ``Seats.back_from_bot``),
notices when nobody is there, and ends a table that stayed empty (``empty_s``) or was
never dealt (``start_s``).

A table playing a series stays while anyone is there. A finished match's table stays
for "Play again" (R32, ``series.py``) while anyone is connected; once nobody has been
for ``empty_s`` it is ``done``: the lobby takes it out of memory and its link answers
from the store. A table that ends without a result is ``done`` at once.

Two ceilings the server sets, whatever a table's own settings say (no client chooses
them): a table with no person seated and connected for ``unattended_s`` (at most 10
minutes) ends, however long its people's places are held (``reconnect_s``) and
whoever watches (spectators and bots keep nobody's table); and a table where no
person has played, said ready or "Play again" for ``idle_s`` ends, so a connection
left open (at a paused practice table, say) holds nothing for good.

What a table keeps in memory is bounded too: the changes people ask for that are
stored as events and change no card (a practice table's ``pace`` and ``pause``, the
host's ``options``) cost a token from the asking place's bucket (``CHANGES_PER_S``)
and the table takes at most ``CHANGES_MAX`` of them in its life; a change to what is
already in force stores nothing.
"""

from __future__ import annotations

from typing import Any

from nertz.server.door.buckets import TokenBucket
from nertz.server.protocol import ClosedEvent, ReadyByEvent
from nertz.server.table.commands import Stage
from nertz.server.table.context import Actions, Due, TableContext, Timer
from nertz.server.table.partners import Partners
from nertz.server.table.records import DiscardRecord, MatchRecord
from nertz.server.table.series import Series

__all__ = ["CHANGES_BURST", "CHANGES_MAX", "CHANGES_PER_S", "Lifetimes"]

CHANGES_PER_S = 1.0
"""Stored changes (``pace``, ``pause``, ``options``) one place may ask for, a second: a
person pauses or sets the pace a few times a hand, a host sets options in one go."""
CHANGES_BURST = 10
"""Of those, as many at once (a host trying options, a player pausing twice)."""
CHANGES_MAX = 500
"""Stored changes a table takes in its life; past it each is refused (its log, kept
in memory for the table's life, grows only as people play: ``idle_s`` ends a table
nobody plays at)."""


class Lifetimes:
    """The ``Table``'s lifetimes. State: ``ready_by`` (the first deal's deadline for
    those not ready), ``empty_since``, ``unattended_since``, ``active_at``, the stored
    changes taken, ``closed`` and ``done``."""

    def __init__(
        self, ctx: TableContext, actions: Actions, partners: Partners, series: Series
    ) -> None:
        self.ctx = ctx
        self.actions = actions
        self.partners = partners
        self.series = series
        self.ready_by: int | None = None
        """When the first deal comes with bots for those not ready (``ready_s``)."""
        self.empty_since: int | None = 0
        """Since when nobody is there (None: someone is)."""
        self.unattended_since: int | None = 0
        """Since when no person is seated and connected (None: someone is)."""
        self.active_at = 0
        """When a person last played, said ready or "Play again", joined or connected."""
        self.changes = 0
        """Stored changes taken so far (``may_change``, at most ``CHANGES_MAX``)."""
        self._change_rates: dict[int, TokenBucket] = {}
        """Place index -> its bucket of stored changes (``CHANGES_PER_S``)."""
        self.closed: str | None = None
        """Why the table ended without a result (``ClosedEvent``), if it did."""
        self.done = False
        """Nothing more happens here: the table may leave memory (the store has it)."""

    def info(self) -> dict[str, Any]:
        """What ``info()`` shows of this part: the ready countdown's deadline (table time,
        as ``now_ms`` in a state), why the table ended without a result, and between
        hands when the next deal comes at the latest (``next_at_ms``, only then)."""
        info: dict[str, Any] = {"ready_by_ms": self.ready_by, "closed": self.closed}
        if self.ctx.stage is Stage.BETWEEN and self.ctx.next_at is not None:
            info["next_at_ms"] = self.ctx.next_at
        return info

    def dues(self) -> list[Due]:
        """This collaborator's timers, for ``Table._next_due``."""
        if self.done:
            return []
        s = self.ctx.settings
        dues = []
        if self.ctx.stage is Stage.SEATING:
            if self.ready_by is not None:
                dues.append(Due(self.ready_by, Timer.READY_BY))
            dues.append(Due(s.start_s * 1000, Timer.UNSTARTED))
        if self.empty_since is not None:
            dues.append(Due(self.empty_since + s.empty_s * 1000, Timer.EMPTY))
        if self.unattended_since is not None:
            dues.append(Due(self.unattended_since + s.unattended_s * 1000, Timer.UNATTENDED))
        dues.append(Due(self.active_at + s.idle_s * 1000, Timer.IDLE))
        return dues

    def fire(self, timer: Timer, now: int) -> None:
        """One of ``dues`` has come."""
        if timer is Timer.READY_BY:
            self._deal_without_the_unready(now)
        elif timer in (Timer.EMPTY, Timer.UNATTENDED, Timer.IDLE) and self.ctx.stage is Stage.OVER:
            self.done = True  # the match is stored as over; nobody came to play again
        elif timer in (Timer.UNSTARTED, Timer.EMPTY, Timer.UNATTENDED, Timer.IDLE):
            self.close(timer.value, now)
        else:
            raise ValueError(f"{timer} is not a lifetime's timer")

    def maybe_start(self, now: int) -> None:
        """The first deal when every place is taken and every person is connected and
        ready (or the ready countdown ran out); the next deal as soon as every person
        connected is ready; the next match of the series once every person connected
        said "Play again" (``series.py``)."""
        if self.ctx.stage is Stage.OVER:
            if not self.done:
                self.series.maybe_again(now)
        elif self.ctx.stage is Stage.BETWEEN:
            people = [p for p in self.ctx.places if p.bot is None and p.conn is not None]
            if people and all(
                p.ready or p.bot is not None or p.conn is None for p in self.ctx.places
            ):
                self.actions.deal(now)
        elif self.ctx.stage is Stage.SEATING:
            self._ready_countdown(now)

    def _ready_countdown(self, now: int) -> None:
        """Seating: deal when every place is taken and every person is connected and
        ready; with everyone here but someone not ready, count down ``ready_s``
        (``ready_by``); stop counting when someone leaves or a place comes free. One
        person alone with bots keeps nobody waiting (a practice table, ``make play``):
        no countdown. A lesson deals as soon as its learner is here: nothing to get
        ready for (``Practice.lesson``)."""
        # A person the host's bot stands in for is not waited for: the bot plays.
        people = [p for p in self.ctx.places if p.bot is None and p.stand_in is None]
        if all(p.token_hash is not None and p.conn is not None for p in people):
            if self.ctx.settings.lesson or all(p.ready for p in people):
                self.actions.deal(now)
            elif self.ready_by is None and len(people) > 1:  # the unready get a countdown
                in_ms = self.ctx.settings.ready_s * 1000
                self.ready_by = now + in_ms
                self.ctx.emit(ReadyByEvent(at_ms=self.ready_by, in_ms=in_ms))
        elif self.ready_by is not None:  # someone left or a place came free: no countdown
            self.ready_by = None
            self.ctx.emit(ReadyByEvent(at_ms=None, in_ms=None))

    def _deal_without_the_unready(self, now: int) -> None:
        """``ready_s`` is up with everyone here: deal, and a bot plays the place of each
        person not ready until they play (``Seats.back_from_bot``). A bot rather than an
        empty seat: the others came to play a full table, and the person keeps the
        place they took."""
        unready = [p for p in self.ctx.places if p.bot is None and not p.ready]
        self.actions.deal(now)
        for place in unready:
            self.actions.takeover(place, now, "not_ready")

    def dealt(self) -> None:
        """A hand was dealt: no ready countdown runs any more."""
        self.ready_by = None

    def resumed(self, now: int) -> None:
        """A restored table: everyone reconnects from ``now``, so its clocks start anew."""
        self.empty_since = now if self.nobody_there() else None
        self.unattended_since = self.active_at = now

    def nobody_there(self) -> bool:
        """No connection open and no person holding a place (one whose connection
        dropped holds it until ``reconnect_s``, one who never connected too). Once the
        match is over a place holds nothing: only a connection counts."""
        if self.ctx.conns:
            return False
        return self.ctx.stage is Stage.OVER or not any(
            p.bot is None and p.token_hash is not None for p in self.ctx.places
        )

    def presence(self, now: int) -> None:
        """After every command: start or stop the ``empty_s`` and ``unattended_s``
        clocks."""
        if self.nobody_there():
            if self.empty_since is None:
                self.empty_since = now
        else:
            self.empty_since = None
        if any(p.bot is None and p.conn is not None for p in self.ctx.places):
            self.unattended_since = None
        elif self.unattended_since is None:
            self.unattended_since = now

    def active(self, now: int) -> None:
        """A person played, said ready or "Play again", joined or connected: the
        ``idle_s`` clock starts again."""
        self.active_at = now

    def may_change(self, conn: int, index: int, now: int) -> bool:
        """May the person at place ``index`` store one more change (``pace``,
        ``pause``, ``options``)? If not, ``conn`` is told why (``changes_too_fast``, or
        ``too_many_changes`` once the table has taken ``CHANGES_MAX``)."""
        if self.changes >= CHANGES_MAX:
            self.ctx.error(
                conn,
                "too_many_changes",
                f"this table has taken its {CHANGES_MAX} changes of pace, pause and "
                "options; play on as it is, or make a new table",
            )
            return False
        bucket = self._change_rates.get(index)
        if bucket is None:
            bucket = self._change_rates[index] = TokenBucket(
                CHANGES_PER_S, CHANGES_BURST, now / 1000
            )
        wait = bucket.take(now / 1000)
        if wait:
            self.ctx.error(
                conn,
                "changes_too_fast",
                f"at most {CHANGES_PER_S:g} change of pace, pause or options a second; "
                f"try again in {wait:.1f} s",
            )
            return False
        self.changes += 1
        return True

    def close(self, reason: str, now: int) -> None:
        """End the table without a result (``empty``: nobody there for ``empty_s``;
        ``unattended``: no person seated and connected for ``unattended_s``; ``idle``:
        no person played for ``idle_s``; ``unstarted``: not dealt within ``start_s``).
        A match under way is stored as over with no winner; a table never dealt is
        forgotten."""
        for place in self.ctx.places:
            if place.driver is not None:
                place.driver.stop()
        self.partners.clear()
        self.ctx.stage, self.closed, self.done = Stage.OVER, reason, True
        self.ready_by = self.ctx.go_at = self.ctx.next_at = None
        self.ctx.emit(ClosedEvent(reason=reason))
        if self.ctx.hand is None:
            self.ctx.store(DiscardRecord())
        else:
            totals = tuple(self.ctx.match.totals)
            self.ctx.store(MatchRecord(totals, (), self.ctx.match_no, self.ctx.first_hand))
        for conn in list(self.ctx.conns):
            self.ctx.close(conn, f"table closed: {reason}")
        self.ctx.conns.clear()
        for place in self.ctx.places:
            place.conn = None
