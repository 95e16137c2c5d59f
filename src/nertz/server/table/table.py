"""The table: one match at one table, sans-I/O (commands in, messages out).

``Table`` owns the ``Match`` and the ``Hand``, the seats (people and bots), the
connections watching, and the table's versioned event log. It reads no clock and
touches no socket or disk: every command (``commands.py``) comes with the table's time
in ms (``handle(command, now_ms)``) and returns an ``Out``: bytes to send to connection
ids, connections to close, records for the store (``records.py``), a reply. Its timers
(Go, R8; the landing window, R28; the settle and idle checks, R25; bots' actions; the
next deal; a bot taking over an empty seat; a partner's hold lapsing, R40) are one
number, ``next_deadline()``: the driver wakes the table then with ``Wake``.

This module is the table itself: routing messages and timers, the match (deals, Go,
plays, the end of a hand). It is composed of collaborators, each owning its own state
behind a small interface (STYLE.md, "compose, don't mix in"), and sharing the table's
state through one ``TableContext`` (``context.py``): seats and connections
(``seats.Seats``), partners' holds (``partners.Partners``, R40), the bots in its seats
(``bots.Bots``), its series (``series.Series``), its host (``host.Host``), a practice
table's pause, hints and lesson (``practice.Practice``), its lifetimes
(``lifetimes.Lifetimes``: the start of a match, the ready countdown, how long it lives
with nobody there), its chat (``chat.Chat``) and races settled by credited time
(``fair.FairRaces``).

A play takes one path, whoever makes it (a person, a bot, a lesson's teacher):
``_play`` (a practice table may refuse it; with fair races it is credited a time and
may wait for its race) → ``_apply`` (the engine) → ``_engine_events`` (everyone is
told) → ``_log_inputs`` (its input record, with the play's arrival and credited time
passed along as values, ``Stamps``).

What leaves a table: events are public (the engine's events carry face-up cards
only) and are serialised once for everyone; a connection's full state is built from
``view(hand, seat)`` or ``spectator_view(hand)`` before serialisation. The deal's seed
and the face-down cards never leave the table except as store records.

The durable state is small and append-only: seats, each hand's deal, each hand's
accepted inputs (``Hand.log``) and the public events. ``Table.restore`` rebuilds the
same table from it (R33: every hand is rebuilt from its own deal), which is how a
server restart and a table that raised an exception both carry on.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from typing import Any, assert_never

import msgspec

from nertz.bots import bot_name, parse_places
from nertz.engine import (
    PARTNERS,
    Deal,
    Event,
    Hand,
    HandEnded,
    Holds,
    Match,
    Move,
    Phase,
    Rotated,
    Rules,
    deal,
    replay,
    rotated,
    rotation_of,
    spectator_view,
    view,
)
from nertz.server.protocol import (
    Ack,
    Again,
    Call,
    ClientMessage,
    CountdownEvent,
    DealtEvent,
    Drop,
    HandEndEvent,
    Hello,
    Host,
    Leave,
    Pick,
    Play,
    Pong,
    Ready,
    ResumedEvent,
    Resync,
    StateMsg,
    Stuck,
    encode,
)
from nertz.server.table.bots import Bots
from nertz.server.table.chat import Chat
from nertz.server.table.commands import (
    Command,
    Connect,
    Disconnect,
    Inbound,
    Join,
    Out,
    Revoked,
    Stage,
    WirePong,
)
from nertz.server.table.context import Due, Place, Stamps, TableContext, Timer
from nertz.server.table.duplicate import hand_end_duplicate, public_duplicate
from nertz.server.table.fair import FairRaces
from nertz.server.table.host import Host as HostRole
from nertz.server.table.host import rules_from
from nertz.server.table.lifetimes import Lifetimes
from nertz.server.table.names import name_key
from nertz.server.table.partners import Partners
from nertz.server.table.practice import Practice
from nertz.server.table.records import (
    DealRecord,
    InputRecord,
    Record,
    ScoreRecord,
    SeatRecord,
    StoredHand,
    hand_caller,
    hand_scores,
    public_event,
    read_records,
    rebuild_deal,
)
from nertz.server.table.seats import Seats
from nertz.server.table.series import Series
from nertz.server.table.settings import Settings

__all__ = ["Table", "restore_from_records"]


class Table:
    """One table's match. Not thread-safe: one actor calls it (STYLE.md)."""

    def __init__(
        self,
        code: str,
        rules: Rules,
        settings: Settings,
        *,
        rng_seed: int | None = None,
        dealer: Callable[[int, Rules, int], Deal] | None = None,
    ) -> None:
        settings.check()
        per_seat = PARTNERS if rules.partnerships else 1
        places = [
            Place(number, partner)
            for number in range(settings.seats)
            for partner in range(per_seat)
        ]
        # This incarnation (``TableContext.epoch``): a table made with ``rng_seed``, in
        # tests, has a fixed one.
        epoch = secrets.token_hex(4) if rng_seed is None else f"{rng_seed:016x}"[-8:]
        self.ctx = ctx = TableContext(
            code=code,
            rules=rules,
            settings=settings,
            epoch=epoch,
            per_seat=per_seat,
            places=places,
            holds=Holds(settings.seats),
            match=Match(settings.seats, rules),
        )
        for number, spec in settings.bots.items():
            for partner, bot in enumerate(parse_places(spec, rules.partnerships)):
                if bot is not None:
                    place = ctx.place(number, partner)
                    place.bot = str(bot)
                    place.name = bot_name(number, partner)  # "Ada", not a spec
        seed = rng_seed if rng_seed is not None else secrets.randbits(63)
        # The collaborators, each given only those it asks (lower ones first).
        self.chat = Chat(ctx)
        self.partners = Partners(ctx)
        self.series = Series(ctx, self)
        self.lifetimes = Lifetimes(ctx, self, self.partners, self.series)
        self.practice = Practice(ctx, self, self.lifetimes)
        self.bots = Bots(ctx, self, self.partners, self.practice, seed)
        self.seating = Seats(ctx, self, self.partners, self.bots, self.chat)
        self.host = HostRole(
            ctx, self, self.seating, self.bots, self.partners, self.series, self.lifetimes
        )
        self.fair = FairRaces(ctx, self.practice, self._apply)
        self._logged = 0
        """How many of ``hand.log`` have gone out as records."""
        self._due: Due | None = None
        self._due_known = False
        """``_due`` is ``_next_due()`` now: state changes only in ``handle`` (``restore``,
        ``adopt``), so most commands need one pass over the timers, not three."""
        self.dealer = dealer or (self.practice.deal_lesson if settings.lesson else deal)
        """``deal`` (R33); tests pass explicit deals (``Deal.from_layouts``)."""
        for place in places:
            if place.bot is not None:
                place.driver = self.bots.driver(place, place.bot)

    # ------------------------------------------------------------------ what others read

    @property
    def code(self) -> str:
        return self.ctx.code

    @property
    def rules(self) -> Rules:
        """The rules in force (the host may change them between matches)."""
        return self.ctx.rules

    @property
    def settings(self) -> Settings:
        return self.ctx.settings

    @property
    def per_seat(self) -> int:
        return self.ctx.per_seat

    @property
    def places(self) -> list[Place]:
        return self.ctx.places

    @property
    def seats(self) -> list[Place]:
        """Each seat's first place (its only one without partnerships)."""
        return self.ctx.seats

    def place(self, seat: int, partner: int = 0) -> Place:
        return self.ctx.place(seat, partner)

    @property
    def holds(self) -> Holds:
        return self.ctx.holds

    @property
    def stage(self) -> Stage:
        return self.ctx.stage

    @property
    def hand(self) -> Hand | None:
        return self.ctx.hand

    @property
    def hand_no(self) -> int:
        return self.ctx.hand_no

    @property
    def match(self) -> Match:
        return self.ctx.match

    @property
    def match_no(self) -> int:
        return self.ctx.match_no

    @property
    def first_hand(self) -> int:
        """The current match's first hand (hands are numbered across the series)."""
        return self.ctx.first_hand

    @property
    def events(self) -> list[bytes]:
        return self.ctx.events

    @property
    def conns(self) -> dict[int, int | None]:
        return self.ctx.conns

    @property
    def now(self) -> int:
        return self.ctx.now

    @property
    def epoch(self) -> str:
        return self.ctx.epoch

    @property
    def version(self) -> int:
        return self.ctx.version

    @property
    def done(self) -> bool:
        """Nothing more happens here: the table may leave memory (``Lifetimes``)."""
        return self.lifetimes.done

    @property
    def closed(self) -> str | None:
        return self.lifetimes.closed

    @property
    def kept(self) -> int | None:
        """The place index kept for the creator until they sit (``Host``)."""
        return self.host.kept

    def keep_for_creator(self, now: int) -> None:
        self.host.keep_for_creator(now)

    # ------------------------------------------------------------------ driver API

    def handle(self, command: Command, now_ms: int) -> Out:
        """Apply one command at table time ``now_ms`` (never going back)."""
        ctx, lifetimes = self.ctx, self.lifetimes
        ctx.now = now = max(ctx.now, now_ms)
        due = self._due if self._due_known else self._next_due()
        if due is not None and due.at <= now:
            self._advance(now)
        self._due_known = False
        if type(command) is Inbound:
            self._inbound(command.conn, command.message, now)
        elif type(command) is Join:
            joined = self.seating.join(command, now, self.host.kept_place(now))
            ctx.out.reply = self.host.claim(joined, command)
            lifetimes.active(now)
        elif type(command) is Connect:
            self.seating.connect(command, now)
            if command.token_hash is not None:  # a spectator keeps nothing alive
                lifetimes.active(now)
        elif type(command) is Disconnect:
            self.seating.disconnect(command.conn, now)
        elif type(command) is WirePong:
            self.fair.wire_pong(command.conn, command.t, now)
        elif type(command) is Revoked:
            self.host.revoked(command.name, now)
        lifetimes.maybe_start(now)
        self._advance(now)
        clocks = (lifetimes.empty_since, lifetimes.unattended_since)
        lifetimes.presence(now)
        if (lifetimes.empty_since, lifetimes.unattended_since) != clocks:
            self._due_known = False
        out, ctx.out = ctx.out, Out()
        return out

    def next_deadline(self) -> int | None:
        """The table time at which the driver must send ``Wake``, if any."""
        if not self._due_known:
            self._due, self._due_known = self._next_due(), True
        due = self._due
        return due.at if due else None

    def info(self) -> dict[str, Any]:
        """The table as the lobby and every connection see it (no hidden state)."""
        ctx = self.ctx
        return {
            "code": ctx.code,
            "stage": ctx.stage.value,
            "hand": ctx.hand_no,
            "seats": [self.seating.public(n) for n in range(ctx.settings.seats)],
            "totals": list(ctx.match.totals),
            "history": self.series.history(),
            "winners": list(ctx.match.winners),
            "rules": ctx.rules.as_dict(),
            "public": ctx.settings.public,
            **({"outside_bots": True} if ctx.settings.outside_bots else {}),
            **({"rated": True} if ctx.settings.rated else {}),
            **({"daily": ctx.settings.daily} if ctx.settings.daily else {}),
            "series": self.series.series_public(),
            "host": self.host.public(),
            **self.practice.public(),
            **self.lifetimes.info(),
            **public_duplicate(ctx.match),
        }

    def knows_outside(self, name: str) -> bool:
        """Whether the outside bot ``name`` holds a place here or is invited to one (a
        ``Revoked`` command has something to do)."""
        key = name_key(name)
        return any(
            (p.outside and name_key(p.name) == key)
            or (p.invited is not None and name_key(p.invited) == key)
            for p in self.ctx.places
        )

    def adopt(self, conns: dict[int, int | None]) -> None:
        """Take over the connections of a table this one replaces (rebuilt after an
        exception): everyone gets a fresh state."""
        self._due_known = False
        self.seating.adopt(conns)

    # ------------------------------------------------------------------ ``Actions``

    def deal(self, now: int) -> None:
        """R33: each seat gets its own 52 cards back, shuffled; countdown to Go (R8)."""
        ctx = self.ctx
        dealt = self._dealt(secrets.randbits(63))
        ctx.hand_no += 1
        ctx.store(DealRecord(ctx.hand_no, dealt.layouts, dealt.seed, dealt.middle))
        ctx.hand = hand = Hand(dealt, ctx.rules)
        self._logged = 0
        ctx.stage = Stage.COUNTDOWN
        ctx.go_at = now + ctx.settings.countdown_ms
        ctx.next_at = None
        self.lifetimes.dealt()
        self.partners.clear()
        for place in ctx.places:
            place.ready = False
        ctx.emit(DealtEvent(hand=ctx.hand_no, table=spectator_view(hand)))
        ctx.emit(CountdownEvent(go_in_ms=ctx.settings.countdown_ms))
        for place in ctx.places:
            if place.driver is not None:
                place.driver.begin(view(hand, place.number), ctx.match.totals)

    def _dealt(self, seed: int) -> Deal:
        """The next hand's deal: dealt from ``seed`` (R33); with ``duplicate``, a
        rotation's first hand only, its later hands playing that deal moved on one seat
        a hand (R42)."""
        ctx = self.ctx
        seats = ctx.settings.seats
        if not ctx.rules.duplicate:
            return self.dealer(seats, ctx.rules, seed)
        shift = rotation_of(len(ctx.match.hands), seats)[1]
        if shift == 0 or ctx.rotation is None:
            ctx.rotation = self.dealer(seats, ctx.rules, seed)
            return ctx.rotation
        return rotated(ctx.rotation, shift)

    def play(self, place: Place, move: Move, now: int, conn: int | None, seq: int) -> bool:
        """A bot's move, or a lesson's teacher's, along the one path (``_play``)."""
        return self._play(place, move, now, conn, seq)

    def takeover(self, place: Place, now: int, why: str | None = None) -> None:
        self.seating.takeover(place, now, why)

    def release(self, place: Place, now: int) -> None:
        """A person loses the place (``Seats.release``); a host who lost it is host no
        more (``Host.gone``)."""
        self.seating.release(place, now)
        self.host.gone(place)

    def send_state(self, conn: int) -> None:
        """The whole table as ``conn`` sees it (its seat's view, or a spectator's)."""
        ctx = self.ctx
        index = ctx.conns.get(conn)
        place = None if index is None else ctx.places[index]
        hand = ctx.hand
        seen: dict[str, Any] | None = None
        if hand is not None:
            seen = spectator_view(hand) if place is None else view(hand, place.number)
        message = StateMsg(
            ctx.version,
            self.info(),
            seen,
            None if place is None else place.number,
            None if place is None or ctx.per_seat == 1 else place.partner,
            now_ms=ctx.now,
            epoch=ctx.epoch,
            host_start_ms=self.series.host_start_ms(),
            chat=list(self.chat.lines),
        )
        ctx.send(conn, encode(message))

    # ------------------------------------------------------------------ restore

    @classmethod
    def restore(
        cls,
        code: str,
        rules: Rules,
        settings: Settings,
        seats: Sequence[SeatRecord],
        hands: Sequence[StoredHand],
        events: Sequence[bytes],
        dealer: Callable[[int, Rules, int], Deal] | None = None,
    ) -> Table:
        """Rebuild a table from its durable records: every place (both partners of a
        partnership seat, R40), every hand from its deal and its inputs (``replay``),
        the event log. Raises ``ValueError`` on a corrupt log."""
        table = cls(code, rules, settings, dealer=dealer)
        table.resume(seats, hands, events)
        return table

    def resume(
        self,
        seats: Sequence[SeatRecord],
        hands: Sequence[StoredHand],
        events: Sequence[bytes],
    ) -> None:
        """``restore``'s work on a table just made: every place, every hand replayed,
        the event log, each part's state read back from it."""
        ctx, series = self.ctx, self.series
        self.seating.restore(seats)
        ctx.events = list(events)
        per_hand, in_force = rules_from(ctx.rules, events)
        series.restore_names(events)  # who played each finished match
        for record, log in hands:
            ctx.rules = per_hand.get(record.hand, ctx.rules)  # as the host left them
            series.roll_match(record.hand)
            dealt = rebuild_deal(record, ctx.rules)
            if ctx.rules.duplicate and len(ctx.match.hands) % ctx.settings.seats == 0:
                ctx.rotation = dealt  # R42: a rotation's first hand, the deal its later hands play
            replayed = replay(dealt, ctx.rules, log)
            ctx.hand, ctx.hand_no, self._logged = replayed, record.hand, len(replayed.log)
            ctx.now = max(ctx.now, replayed.now)
            if replayed.over and self.practice.counts(record.hand):
                ctx.match.record(replayed.scores(), hand_caller(replayed))
        self.host.restore(events, in_force)
        self.host.restore_stand_ins(events)  # the bots the host put in for people away
        series.resumed(ctx.now)
        now = ctx.now
        for place in ctx.places:
            place.driver = None
            if place.bot is None and place.token_hash is not None:
                place.left_ms = now  # everyone reconnects; the takeover clock starts now
                if place.stand_in is not None:
                    place.driver = self.bots.driver(place, place.stand_in)
            elif place.bot is not None:
                place.driver = self.bots.driver(place, place.bot)
        hand = ctx.hand
        if hand is None:
            ctx.stage = Stage.SEATING
        elif hand.over:
            ctx.stage = Stage.OVER if ctx.match.over else Stage.BETWEEN
            ctx.next_at = now + ctx.settings.next_hand_s * 1000
        else:
            if hand.phase is Phase.WAITING:
                ctx.stage = Stage.COUNTDOWN
                ctx.go_at = now + ctx.settings.countdown_ms
            else:
                ctx.stage = Stage.PLAYING
            for place in ctx.places:
                if place.driver is not None:
                    place.driver.begin(view(hand, place.number), ctx.match.totals)
            if ctx.stage is Stage.PLAYING:
                self.bots.plan_all(now)
        self.lifetimes.resumed(now)
        ctx.emit(ResumedEvent(stage=ctx.stage.value))
        self._due_known = False

    def take_out(self) -> Out:
        """Records produced outside ``handle`` (by ``restore``)."""
        out, self.ctx.out = self.ctx.out, Out()
        return out

    # ------------------------------------------------------------------ commands

    def _inbound(self, conn: int, message: ClientMessage, now: int) -> None:
        """Route one client message to the part of the table it is for."""
        ctx = self.ctx
        if conn not in ctx.conns:
            ctx.error(conn, "not_joined", "say hello first")
            return
        index = ctx.conns[conn]
        kind = type(message)
        if kind is Play or kind is Call or kind is Stuck:
            seq = message.seq  # type: ignore[union-attr]
            if index is None:
                ctx.error(conn, "not_seated", "spectators cannot play", seq)
                return
            if kind is Play:
                try:
                    move = Move.parse(message.move)  # type: ignore[union-attr]
                except ValueError as error:
                    ctx.error(conn, "bad_move", str(error), seq)
                    return
            else:
                move = Move.parse("NERTZ" if kind is Call else "STUCK")
            self.lifetimes.active(now)
            place = ctx.places[index]
            self.seating.back_from_bot(place, now)  # the ready countdown's bot goes
            self._play(place, move, now, conn, seq, message.at)  # type: ignore[union-attr]
        elif kind is Pick or kind is Drop:
            if index is None:
                ctx.error(conn, "not_seated", "spectators hold no cards")
            elif ctx.per_seat == 1:
                ctx.error(conn, "not_partnered", "only partners pick up cards (R40); just play it")
            elif kind is Pick:
                place = ctx.places[index]
                if self.partners.pick(place, message, now, conn):  # type: ignore[arg-type]
                    self.bots.replan_partner(place, now)
            else:
                self.partners.let_go(ctx.places[index])
        elif kind is Ready:
            if index is not None:
                self.lifetimes.active(now)
            if index is None or not self.seating.back_from_bot(ctx.places[index], now):
                self.series.ready(conn, index)
        elif kind is Pong:
            self.fair.pong(conn, message, now)  # type: ignore[arg-type]
        elif kind is Host:
            self.host.action(conn, index, message, now)  # type: ignore[arg-type]
        elif kind is Again:
            if index is not None:
                self.lifetimes.active(now)
            self.series.again(conn, index)
        elif kind is Resync:
            self.send_state(conn)
        elif kind is Leave:
            self._leave(conn, index, now)
        elif kind is Hello:
            ctx.error(conn, "already_joined", "this connection has already said hello")
        else:
            self.practice.message(conn, index, message, now)  # pause, hint, pace
            self.chat.talk(conn, index, message, now)  # chat and reactions

    def _leave(self, conn: int, index: int | None, now: int) -> None:
        """Leaving on purpose: the connection closes and the place is free at once (a
        bot plays it, anyone may join it), where a dropped connection keeps it."""
        ctx = self.ctx
        ctx.close(conn, "left")
        self.seating.disconnect(conn, now)
        if index is not None and ctx.places[index].bot is None:
            self.release(ctx.places[index], now)

    # ------------------------------------------------------------------ a play's path

    def _play(
        self,
        place: Place,
        move: Move,
        now: int,
        conn: int | None,
        seq: int,
        at: int | None = None,
    ) -> bool:
        """One seat's move, a person's (from ``conn``, stamped ``at`` by its page) or a
        bot's (``conn`` None), arriving at table time ``now``. A practice table may
        refuse a person's move first (paused, or not the lesson's). With ``fair_races``
        a hand being played credits it a time and it may wait for its race
        (``FairRaces.enter``, which hands it to ``_apply`` once decided, with its
        stamps); otherwise it goes to the engine at once."""
        if conn is not None and self.practice.refuses(place, move, conn, seq):
            return False
        ctx = self.ctx
        if not ctx.rules.fair_races or ctx.hand is None or ctx.stage is not Stage.PLAYING:
            return self._apply(place, move, now, conn, seq, None)
        fair = self.fair
        return fair.enter(fair.credit(place, move, now, conn, seq, at), now)

    def _apply(
        self,
        place: Place,
        move: Move,
        now: int,
        conn: int | None,
        seq: int,
        stamps: Stamps | None,
    ) -> bool:
        """One seat's move to the engine, a person's or a bot's, in the order ``_play``
        decides (R16); a partner's move is its own, and puts down what it held (R40).
        ``stamps``: its arrival and credited time, for its input record."""
        ctx = self.ctx
        hand = ctx.hand
        seat_no = place.number
        if hand is None or ctx.stage not in (Stage.COUNTDOWN, Stage.PLAYING):
            if conn is not None:
                if ctx.stage is Stage.SEATING:
                    code, reason = "not_started", "wait for Go (R8)"
                else:
                    code, reason = "hand_over", "the hand is over (R28)"
                ctx.refuse(conn, seq, code, reason)
            return False
        hand_ms = self.practice.hand_ms(now)
        if ctx.per_seat > 1:
            outcome = ctx.holds.check(seat_no, place.partner, move)
            self.partners.let_go(place)
            if outcome.ok:
                outcome = hand.play(seat_no, move, hand_ms)
        else:
            outcome = hand.play(seat_no, move, hand_ms)
        if not outcome.ok:
            if conn is not None:
                code = outcome.code.value if outcome.code else "refused"
                ctx.refuse(conn, seq, code, outcome.reason)
            else:
                driver, refusal = place.driver, outcome.code
                if driver is not None and refusal is not None and driver.refused(move, refusal):
                    driver.resync(view(hand, seat_no))  # not a refusal a correct bot meets
            return False
        bodies = self._engine_events(outcome.events, skip=conn, stamps=stamps)
        if conn is not None:
            ack = Ack(seq, ctx.version, [msgspec.Raw(b) for b in bodies])
            ctx.send(conn, encode(ack))
        self._after_events(outcome.events, now)
        self.practice.moved(place, move, now)
        return True

    def _engine_events(
        self, events: Sequence[Event], skip: int | None = None, stamps: Stamps | None = None
    ) -> list[bytes]:
        """Announce engine events: versioned, to every connection, to every bot; log."""
        ctx = self.ctx
        bodies = [ctx.emit(public_event(e), skip=skip) for e in events]
        for place in ctx.places:
            if place.driver is not None:
                place.driver.observe(events)
        self._log_inputs(stamps)
        return bodies

    def _after_events(self, events: Sequence[Event], now: int) -> None:
        for event in events:
            if type(event) is Rotated:  # R25: everyone's stock changed; bots look again
                self.partners.clear()
                self.bots.plan_all(now)
            elif type(event) is HandEnded:
                self._hand_over(now)

    def _log_inputs(self, stamps: Stamps | None = None) -> None:
        """The hand's new inputs as records; a seat's play carries ``stamps``."""
        ctx = self.ctx
        hand = ctx.hand
        if hand is None:
            return
        log = hand.log
        for index in range(self._logged, len(log)):
            at, seat, text = log[index]
            times = stamps if seat >= 0 and stamps else (None, None)
            ctx.store(InputRecord(ctx.hand_no, index, at, seat, text, *times))
        self._logged = len(log)

    # ------------------------------------------------------------------ timers

    def _tick_due(self) -> int | None:
        """The engine's next deadline on the table's clock (the landing window R28, the
        next look for an all-blocked table and the idle rotation R25, a joker's window
        R41), or when the table releases a window it holds open (``FairRaces``)."""
        hand = self.ctx.hand
        if hand is None or self.ctx.stage is not Stage.PLAYING or self.practice.timers_scripted:
            return None
        return self.fair.held_until(self.practice.table_ms(hand.next_deadline()))

    def _tick(self, now: int) -> None:
        """Let the engine's time pass (as far as ``FairRaces.tick_to`` allows); then the
        plays held behind a window that closed go on."""
        hand = self.ctx.hand
        assert hand is not None
        at, closing = self.fair.tick_to(now)
        outcome = hand.tick(self.practice.hand_ms(at))
        if outcome.events:
            self._engine_events(outcome.events)
            self._after_events(outcome.events, now)
        else:  # a look at the table (R25) is logged too: a restart must look then too
            self._log_inputs()
        if closing:
            self.fair.release_held(now)

    def _next_due(self) -> Due | None:
        """The earliest timer set, of every collaborator's (on a tie, the first asked)."""
        ctx = self.ctx
        candidates: list[Due] = [*self.fair.dues()]  # before bots: a waiting bot looks after
        stage = ctx.stage
        if stage is Stage.COUNTDOWN:
            if ctx.go_at is not None:
                candidates.append(Due(ctx.go_at, Timer.GO))
        elif stage is Stage.PLAYING and self.practice.paused_at is None:
            tick = self._tick_due()
            if tick is not None:
                candidates.append(Due(tick, Timer.TICK))
            for index, place in enumerate(ctx.places):
                bot = self.bots.due(place)
                if bot is not None:
                    candidates.append(Due(bot, Timer.BOT, index))
                if place.hold_until is not None:
                    candidates.append(Due(place.hold_until, Timer.LAPSE, index))
        elif stage is Stage.BETWEEN and ctx.next_at is not None:
            candidates.append(Due(ctx.next_at, Timer.NEXT))
        candidates += self.lifetimes.dues()
        candidates += self.seating.dues()
        best: Due | None = None
        for due in candidates:
            if best is None or due.at < best.at:
                best = due
        return best

    def _advance(self, now: int) -> None:
        """Fire every timer due by ``now``, earliest first (all stamped ``now``: the
        table's clock never goes back), each by the collaborator that set it."""
        for _ in range(10_000):
            due = self._next_due()
            if due is None or due.at > now:
                self._due, self._due_known = due, True
                return
            self._fire(due, now)
        raise RuntimeError("timers did not settle")  # a bug: a deadline that never moves on

    def _fire(self, due: Due, now: int) -> None:
        timer, index = due.timer, due.target
        match timer:
            case Timer.RACE | Timer.PING:
                self.fair.fire(timer, index, now)
            case Timer.GO:
                self._go(now)
            case Timer.TICK:
                self._tick(now)
            case Timer.BOT:
                self.bots.fire(self.ctx.places[index], now)
            case Timer.LAPSE:
                self.partners.let_go(self.ctx.places[index])  # R40: a resting hand lets go
            case Timer.NEXT:
                self.deal(now)
            case Timer.TAKEOVER:
                self.seating.takeover(self.ctx.places[index], now)
            case Timer.RELEASE:
                self.release(self.ctx.places[index], now)
            case Timer.READY_BY | Timer.UNSTARTED | Timer.EMPTY | Timer.UNATTENDED | Timer.IDLE:
                self.lifetimes.fire(timer, now)
            case _:
                assert_never(timer)

    # ------------------------------------------------------------------ the match

    def _go(self, now: int) -> None:
        ctx = self.ctx
        hand = ctx.hand
        assert hand is not None
        ctx.go_at = None
        outcome = hand.start(self.practice.hand_ms(now))  # R8
        ctx.stage = Stage.PLAYING
        self._engine_events(outcome.events)
        self.bots.plan_all(now)

    def _hand_over(self, now: int) -> None:
        ctx = self.ctx
        hand = ctx.hand
        assert hand is not None
        for place in ctx.places:
            if place.driver is not None:
                place.driver.stop()
        self.partners.clear()
        scores = hand_scores(hand)
        caller = hand_caller(hand)
        if self.practice.counts(ctx.hand_no):  # a lesson's hand is shown, never carried on
            ctx.match.record(hand.scores(), caller)
        end = hand.end_reason.value if hand.end_reason else "?"
        ctx.store(ScoreRecord(ctx.hand_no, scores, caller, end))
        totals, lost = list(ctx.match.totals), [list(race) for race in self.fair.lost]
        in_ms = None if ctx.match.over else ctx.settings.next_hand_s * 1000
        ctx.next_at = None if in_ms is None else now + in_ms  # the next deal at the latest
        event = HandEndEvent(
            hand=ctx.hand_no,
            reason=end,
            caller=caller,
            scores=scores,
            totals=totals,
            lost=lost,
            next_at_ms=ctx.next_at,
            next_in_ms=in_ms,
            **hand_end_duplicate(ctx.match),
        )
        ctx.emit(event)
        if ctx.match.over:
            self.series.match_over(now)
        else:
            ctx.stage = Stage.BETWEEN
        for place in ctx.places:
            place.ready = False
        self.fair.end_races()


def restore_from_records(
    code: str,
    rules: Rules,
    settings: Settings,
    records: Sequence[Record],
    dealer: Callable[[int, Rules, int], Deal] | None = None,
) -> Table:
    """``Table.restore`` from a table's records in the order they were produced (the
    store's rows; ``records.read_records``)."""
    table = Table.restore(code, rules, settings, *read_records(records), dealer)
    table.chat.restore(records)  # the recent chat lines
    return table
