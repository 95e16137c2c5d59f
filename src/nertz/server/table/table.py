"""The table: one match at one table, sans-I/O (commands in, messages out).

``Table`` owns the ``Match`` and the ``Hand``, the seats (people and bots), the
connections watching, and the table's versioned event log. It reads no clock and
touches no socket or disk: every command (``commands.py``) comes with the table's time
in ms (``handle(command, now_ms)``) and returns an ``Out``: bytes to send to connection
ids, connections to close, records for the store (``records.py``), a reply. Its timers
(Go, R8; the landing window, R28; the settle and idle checks, R25; bots' actions; the
next deal; a bot taking over an empty seat; a partner's hold lapsing, R40) are one
number, ``next_deadline()``: the driver wakes the table then with ``Wake``.

This module is the table itself: dispatching messages, the match (deals, Go, plays,
the end of a hand) and the timers. Its other parts: seats and connections
(``seats.Seating``), partners' holds (``partners.Partnering``, R40), the bots in its
seats (``bots.BotSeats``), its series (``series.Series``), its host (``host.Hosting``),
a practice table's pause, hints and lesson (``practice``) and its lifetimes
(``lifetimes.Lifetimes``: the start of a match, the ready countdown, how long it lives
with nobody there).

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
from typing import Any

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
    EventMsg,
    HandEndEvent,
    Hello,
    Host,
    Leave,
    Pick,
    Play,
    Pong,
    Ready,
    Refused,
    ResumedEvent,
    Resync,
    StateMsg,
    Stuck,
    TableEvent,
    encode,
)
from nertz.server.table.bots import BotSeats
from nertz.server.table.chat import Chatting
from nertz.server.table.commands import Command, Connect, Disconnect, Inbound, Join, Out, Stage
from nertz.server.table.fair import FairRaces
from nertz.server.table.host import Hosting, rules_from
from nertz.server.table.lifetimes import Lifetimes
from nertz.server.table.partners import Partnering
from nertz.server.table.practice import Practicing
from nertz.server.table.records import (
    DealRecord,
    EventRecord,
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
from nertz.server.table.seats import Place, Seating
from nertz.server.table.series import Series
from nertz.server.table.settings import Settings

__all__ = ["Table", "restore_from_records"]


class Table(
    FairRaces, Seating, Partnering, BotSeats, Series, Hosting, Practicing, Lifetimes, Chatting
):
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
        self.code = code
        self.rules = rules
        self.settings = settings
        self.per_seat = PARTNERS if rules.partnerships else 1
        """Places per seat: two people share a seat at a partnership table (R40)."""
        self.places = [
            Place(number, partner)
            for number in range(settings.seats)
            for partner in range(self.per_seat)
        ]
        """Every place, seat by seat: ``places[seat * per_seat + partner]``."""
        for number, spec in settings.bots.items():
            for partner, bot in enumerate(parse_places(spec, rules.partnerships)):
                if bot is not None:
                    place = self.place(number, partner)
                    place.bot = str(bot)
                    place.name = bot_name(number, partner)  # "Ada", not a spec
        self.holds = Holds(settings.seats)
        """R40: what each partner holds (only partnership tables pick anything up)."""
        self.match = Match(settings.seats, rules)
        self._init_series()
        self._init_chat()
        self.stage = Stage.SEATING
        self.hand: Hand | None = None
        self.hand_no = 0
        self.events: list[bytes] = []
        """Every event message so far; ``events[v - 1]`` has version ``v``."""
        self.conns: dict[int, int | None] = {}
        """Connection id -> place index (None for a spectator)."""
        self.now = 0
        self._begin_lifetime(rng_seed)
        self.go_at: int | None = None
        self.next_at: int | None = None
        self._logged = 0
        """How many of ``hand.log`` have gone out as records."""
        self._due: tuple[int, str, int] | None = None
        self._due_known = False
        """``_due`` is ``_next_due()`` now: state changes only in ``handle`` (``restore``,
        ``adopt``), so most commands need one pass over the timers, not three."""
        self._out = Out()
        self._seed = rng_seed if rng_seed is not None else secrets.randbits(63)
        self._bot_seeds = 0
        self.dealer = dealer or (self._deal_lesson if settings.lesson else deal)
        """``deal`` (R33); tests pass explicit deals (``Deal.from_layouts``)."""
        for place in self.places:
            if place.bot is not None:
                place.driver = self._driver(place, place.bot)
        self._fair_init()

    # ------------------------------------------------------------------ driver API

    def handle(self, command: Command, now_ms: int) -> Out:
        """Apply one command at table time ``now_ms`` (never going back)."""
        self.now = now = max(self.now, now_ms)
        due = self._due if self._due_known else self._next_due()
        if due is not None and due[0] <= now:
            self._advance(now)
        self._due_known = False
        if type(command) is Inbound:
            self._inbound(command.conn, command.message, now)
        elif type(command) is Join:
            self._out.reply = self._claim_host(self._join(command, now), command)
            self._active(now)
        elif type(command) is Connect:
            self._connect(command, now)
            if command.token_hash is not None:  # a spectator keeps nothing alive
                self._active(now)
        elif type(command) is Disconnect:
            self._disconnect(command.conn, now)
        self._maybe_start(now)
        self._advance(now)
        clocks = (self.empty_since, self.unattended_since)
        self._presence(now)
        if (self.empty_since, self.unattended_since) != clocks:
            self._due_known = False
        out, self._out = self._out, Out()
        return out

    def next_deadline(self) -> int | None:
        """The table time at which the driver must send ``Wake``, if any."""
        if not self._due_known:
            self._due, self._due_known = self._next_due(), True
        due = self._due
        return due[0] if due else None

    @property
    def version(self) -> int:
        return len(self.events)

    def info(self) -> dict[str, Any]:
        """The table as the lobby and every connection see it (no hidden state)."""
        return {
            "code": self.code,
            "stage": self.stage.value,
            "hand": self.hand_no,
            "seats": [self._seat_public(n) for n in range(self.settings.seats)],
            "totals": list(self.match.totals),
            "history": self._history(),
            "winners": list(self.match.winners),
            "rules": self.rules.as_dict(),
            "public": self.settings.public,
            "series": self.series_public(),
            "host": self.host_public(),
            **self.practice_public(),
            **self._lifetime_info(),
        }

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
        table._seat_records(seats)
        table.events = list(events)
        per_hand, in_force = rules_from(rules, events)
        table._restore_names(events)  # who played each finished match (series.py)
        for record, log in hands:
            table.rules = per_hand.get(record.hand, table.rules)  # as the host left them
            table._roll_match(record.hand)
            replayed = replay(rebuild_deal(record, table.rules), table.rules, log)
            table.hand, table.hand_no, table._logged = replayed, record.hand, len(replayed.log)
            table.now = max(table.now, replayed.now)
            if replayed.over and table.counts(record.hand):
                table.match.record(replayed.scores(), hand_caller(replayed))
        if table.match.over:
            table.over_names = table._names_told(len(table.past_names))
        table._restore_host(events, in_force)
        table._restore_stand_ins(events)  # the bots the host put in for people away
        table.over_at = table.now if table.match.over else None  # the host's wait anew
        now = table.now
        for place in table.places:
            place.driver = None
            if place.bot is None and place.token_hash is not None:
                place.left_ms = now  # everyone reconnects; the takeover clock starts now
                if place.stand_in is not None:
                    place.driver = table._driver(place, place.stand_in)
            elif place.bot is not None:
                place.driver = table._driver(place, place.bot)
        hand = table.hand
        if hand is None:
            table.stage = Stage.SEATING
        elif hand.over:
            table.stage = Stage.OVER if table.match.over else Stage.BETWEEN
            table.next_at = now + settings.next_hand_s * 1000
        else:
            if hand.phase is Phase.WAITING:
                table.stage = Stage.COUNTDOWN
                table.go_at = now + settings.countdown_ms
            else:
                table.stage = Stage.PLAYING
            for place in table.places:
                if place.driver is not None:
                    place.driver.begin(view(hand, place.number), table.match.totals)
            if table.stage is Stage.PLAYING:
                for place in table.places:
                    if place.driver is not None:
                        table._plan(place, now)
        table.empty_since = now if table._nobody_there() else None
        table.unattended_since = table.active_at = now  # everyone reconnects from now
        table._emit(ResumedEvent(stage=table.stage.value))
        table._due_known = False
        return table

    def take_out(self) -> Out:
        """Records produced outside ``handle`` (by ``restore``)."""
        out, self._out = self._out, Out()
        return out

    # ------------------------------------------------------------------ commands

    def _inbound(self, conn: int, message: ClientMessage, now: int) -> None:
        if conn not in self.conns:
            self._error(conn, "not_joined", "say hello first")
            return
        index = self.conns[conn]
        kind = type(message)
        if kind is Play or kind is Call or kind is Stuck:
            seq = message.seq  # type: ignore[union-attr]
            if index is None:
                self._error(conn, "not_seated", "spectators cannot play", seq)
                return
            if kind is Play:
                try:
                    move = Move.parse(message.move)  # type: ignore[union-attr]
                except ValueError as error:
                    self._error(conn, "bad_move", str(error), seq)
                    return
            else:
                move = Move.parse("NERTZ" if kind is Call else "STUCK")
            self._active(now)
            self._back_from_bot(self.places[index], now)  # the ready countdown's bot goes
            self._play(self.places[index], move, now, conn, seq, message.at)  # type: ignore[union-attr]
        elif kind is Pick or kind is Drop:
            if index is None:
                self._error(conn, "not_seated", "spectators hold no cards")
            elif self.per_seat == 1:
                self._error(
                    conn, "not_partnered", "only partners pick up cards (R40); just play it"
                )
            elif kind is Pick:
                self._pick(self.places[index], message, now, conn)  # type: ignore[arg-type]
            else:
                self._let_go(self.places[index])
        elif kind is Ready:
            if index is not None:
                self._active(now)
            if index is None or not self._back_from_bot(self.places[index], now):
                self._ready(conn, index)
        elif kind is Pong:
            self._pong(conn, message, now)  # type: ignore[arg-type]
        elif kind is Host:
            self._host_action(conn, index, message, now)  # type: ignore[arg-type]
        elif kind is Again:
            if index is not None:
                self._active(now)
            self._again(conn, index)
        elif kind is Resync:
            self._send_state(conn)
        elif kind is Leave:
            self._leave(conn, index, now)
        elif kind is Hello:
            self._error(conn, "already_joined", "this connection has already said hello")
        else:
            self._practice_message(conn, index, message, now)  # practice.py
            self._talk(conn, index, message, now)  # chat and reactions (chat.py)

    # ------------------------------------------------------------------ play

    def _apply(self, place: Place, move: Move, now: int, conn: int | None, seq: int) -> bool:
        """One seat's move to the engine, a person's or a bot's, in the order ``_play``
        decides (R16); a partner's move is its own, and puts down what it held (R40)."""
        hand = self.hand
        seat_no = place.number
        if hand is None or self.stage not in (Stage.COUNTDOWN, Stage.PLAYING):
            if conn is not None:
                if self.stage is Stage.SEATING:
                    code, reason = "not_started", "wait for Go (R8)"
                else:
                    code, reason = "hand_over", "the hand is over (R28)"
                self._out.sends.append((conn, encode(Refused(seq, code, reason))))
            return False
        if self.per_seat > 1:
            outcome = self.holds.check(seat_no, place.partner, move)
            self._let_go(place)
            if outcome.ok:
                outcome = hand.play(seat_no, move, self.hand_ms(now))
        else:
            outcome = hand.play(seat_no, move, self.hand_ms(now))
        if not outcome.ok:
            if conn is not None:
                code = outcome.code.value if outcome.code else "refused"
                self._out.sends.append((conn, encode(Refused(seq, code, outcome.reason))))
            else:
                driver, refusal = place.driver, outcome.code
                if driver is not None and refusal is not None and driver.refused(move, refusal):
                    driver.resync(view(hand, seat_no))  # not a refusal a correct bot meets
            return False
        bodies = self._engine_events(outcome.events, skip=conn)
        if conn is not None:
            self._out.sends.append(
                (conn, encode(Ack(seq, self.version, [msgspec.Raw(b) for b in bodies])))
            )
        self._after_events(outcome.events, now)
        self._practice_moved(place, move, now)
        return True

    def _engine_events(self, events: Sequence[Event], skip: int | None = None) -> list[bytes]:
        """Announce engine events: versioned, to every connection, to every bot; log."""
        bodies = [self._emit(public_event(e), skip=skip) for e in events]
        for place in self.places:
            if place.driver is not None:
                place.driver.observe(events)
        self._log_inputs()
        return bodies

    def _after_events(self, events: Sequence[Event], now: int) -> None:
        for event in events:
            if type(event) is Rotated:  # R25: everyone's stock changed; bots look again
                self._clear_holds()
                for place in self.places:
                    if place.driver is not None:
                        self._plan(place, now)
            elif type(event) is HandEnded:
                self._hand_over(now)

    def _log_inputs(self) -> None:
        hand = self.hand
        if hand is None:
            return
        log = hand.log
        for index in range(self._logged, len(log)):
            at, seat, text = log[index]
            times = self.stamp if seat >= 0 and self.stamp else (None, None)
            self._out.records.append(InputRecord(self.hand_no, index, at, seat, text, *times))
        self._logged = len(log)

    # ------------------------------------------------------------------ timers

    def _next_due(self) -> tuple[int, str, int] | None:
        best: tuple[int, str, int] | None = None

        def consider(at: int | None, what: str, index: int = -1) -> None:
            nonlocal best
            if at is not None and (best is None or at < best[0]):
                best = (at, what, index)

        stage = self.stage
        for due in self._fair_deadlines():  # before bots: a bot waiting looks after a race
            consider(*due)
        if stage is Stage.COUNTDOWN:
            consider(self.go_at, "go")
        elif stage is Stage.PLAYING and self.paused_at is None:
            consider(self._tick_due(), "tick")
            for index, place in enumerate(self.places):
                if place.driver is not None and not self.scripted:
                    consider(place.driver.due, "bot", index)
                consider(place.hold_until, "lapse", index)
        elif stage is Stage.BETWEEN:
            consider(self.next_at, "next")
        for at, what in self._lifetime_dues():
            consider(at, what)
        if stage is not Stage.OVER:
            s = self.settings
            for index, place in enumerate(self.places):
                if place.bot is None and place.left_ms is not None and place.token_hash is not None:
                    if s.bot_takeover_s and place.driver is None and stage is not Stage.SEATING:
                        consider(place.left_ms + s.bot_takeover_s * 1000, "takeover", index)
                    if place.stand_in is None:  # the host's bot keeps the place for them
                        consider(place.left_ms + s.reconnect_s * 1000, "release", index)
        return best

    def _advance(self, now: int) -> None:
        """Fire every timer due by ``now``, earliest first (all stamped ``now``: the
        table's clock never goes back)."""
        for _ in range(10_000):
            due = self._next_due()
            if due is None or due[0] > now:
                self._due, self._due_known = due, True
                return
            _, what, index = due
            if what == "go":
                self._go(now)
            elif what == "tick":
                self._tick(now)
            elif what in ("race", "ping"):
                self._fair_timer(what, index, now)
            elif what == "bot":
                self._bot(self.places[index], now)
            elif what == "lapse":
                self._let_go(self.places[index])  # R40: a resting hand lets go
            elif what == "next":
                self._deal(now)
            elif what == "takeover":
                self._takeover(self.places[index], now)
            elif what == "release":
                self._release(self.places[index], now)
            else:
                self._lifetime_timer(what, now)
        raise RuntimeError("timers did not settle")  # a bug: a deadline that never moves on

    # ------------------------------------------------------------------ the match

    def _deal(self, now: int) -> None:
        """R33: each seat gets its own 52 cards back, shuffled; countdown to Go (R8)."""
        seed = secrets.randbits(63)
        dealt = self.dealer(self.settings.seats, self.rules, seed)
        self.hand_no += 1
        record = DealRecord(self.hand_no, dealt.layouts, dealt.seed, dealt.middle)
        self._out.records.append(record)
        self.hand = Hand(dealt, self.rules)
        self._logged = 0
        self.stage = Stage.COUNTDOWN
        self.go_at = now + self.settings.countdown_ms
        self.next_at = self.ready_by = None
        self._clear_holds()
        for place in self.places:
            place.ready = False
        self._emit(DealtEvent(hand=self.hand_no, table=spectator_view(self.hand)))
        self._emit(CountdownEvent(go_in_ms=self.settings.countdown_ms))
        for place in self.places:
            if place.driver is not None:
                place.driver.begin(view(self.hand, place.number), self.match.totals)

    def _go(self, now: int) -> None:
        hand = self.hand
        assert hand is not None
        self.go_at = None
        outcome = hand.start(self.hand_ms(now))  # R8
        self.stage = Stage.PLAYING
        self._engine_events(outcome.events)
        for place in self.places:
            if place.driver is not None:
                self._plan(place, now)

    def _hand_over(self, now: int) -> None:
        hand = self.hand
        assert hand is not None
        for place in self.places:
            if place.driver is not None:
                place.driver.stop()
        self._clear_holds()
        scores = hand_scores(hand)
        caller = hand_caller(hand)
        if self.counts(self.hand_no):  # a lesson's hand is shown, never carried on
            self.match.record(hand.scores(), caller)
        end = hand.end_reason.value if hand.end_reason else "?"
        self._out.records.append(ScoreRecord(self.hand_no, scores, caller, end))
        totals, lost = list(self.match.totals), [list(race) for race in self.lost]
        in_ms = None if self.match.over else self.settings.next_hand_s * 1000
        self.next_at = None if in_ms is None else now + in_ms  # the next deal at the latest
        event = HandEndEvent(
            hand=self.hand_no,
            reason=end,
            caller=caller,
            scores=scores,
            totals=totals,
            lost=lost,
            next_at_ms=self.next_at,
            next_in_ms=in_ms,
        )
        self._emit(event)
        if self.match.over:
            self._match_over(now)
        else:
            self.stage = Stage.BETWEEN
        for place in self.places:
            place.ready = False
        self._end_races()

    def _all_ready(self) -> bool:
        return all(p.ready or p.bot is not None or p.conn is None for p in self.places)

    # ------------------------------------------------------------------ output

    def _emit(self, event: TableEvent, skip: int | None = None) -> bytes:
        version = len(self.events) + 1
        body = encode(EventMsg(version, event))
        self.events.append(body)
        self._out.records.append(EventRecord(version, body))
        sends = self._out.sends
        for conn in self.conns:
            if conn != skip:
                sends.append((conn, body))
        return body

    def _send_state(self, conn: int) -> None:
        index = self.conns.get(conn)
        place = None if index is None else self.places[index]
        hand = self.hand
        seen: dict[str, Any] | None = None
        if hand is not None:
            seen = spectator_view(hand) if place is None else view(hand, place.number)
        message = StateMsg(
            self.version,
            self.info(),
            seen,
            None if place is None else place.number,
            None if place is None or self.per_seat == 1 else place.partner,
            now_ms=self.now,
            epoch=self.epoch,
            host_start_ms=self.host_start_ms(),
            chat=list(self.chat_lines),
        )
        self._out.sends.append((conn, encode(message)))


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
    table._restore_chat(records)  # the recent chat lines (chat.py)
    return table
