"""The table's part that settles races by when cards were played (R16, R27, R28, R41;
docs/fairness.md).

With the option ``fair_races`` (the default) ``FairRaces``, the table's collaborator for
this, pings every seated
connection (``clock.ConnectionClock``), credits each play a time from its stamp, and
puts the plays that can be contested (``races.contest``) into a race that is decided
in credited order once no earlier play can still arrive. Everything else goes to the
engine at once, exactly as with the option off (arrival order). Bots are stamped by
the table's clock: they have no delay.

The same credited time decides the windows of the rules: the landing window after a
call (R28) and a joker's announcement window (R41). Each window ends in credited time
its length after the call's (or the announcement's) credited time. Once it has ended, a
play credited after its end is refused (R28: the hand is over) or held back until the
window is closed (R41: it comes after the joker lands), while the engine's window is
kept open, its clock standing just short of the window's end, until a play credited
inside the window can no longer arrive (``_held``).

The engine is handed plays in the order decided, at the table's time when they are
decided (inside a held window, at most just before its end), so its time never goes
back; a tie (R16) is handed over at the same time as the winner, so the engine ties
them; a lost play never reaches the engine. The engine's log therefore replays to the
same hand (``replay``); each accepted play's arrival and credited time go into its
input record (``InputRecord``), and each lost race into ``lost`` for the hand-end report.
"""

from __future__ import annotations

from collections.abc import Callable

from nertz.engine import Card, Hand, Kind, Move, Phase, Refusal
from nertz.server.protocol import Ping, Pong, encode
from nertz.server.table.clock import FIRST_EVERY_MS, PING_SLACK_MS, ConnectionClock
from nertz.server.table.commands import Stage
from nertz.server.table.context import Due, Place, Stamps, TableContext, Timer
from nertz.server.table.practice import Practice
from nertz.server.table.races import (
    CALL_PLACE,
    WAIT_CAP_MS,
    Arbiter,
    Contest,
    Stamped,
    Verdict,
    contest,
    place_of,
)
from nertz.server.table.records import RacesRecord

__all__ = ["Apply", "FairRaces"]

Apply = Callable[[Place, Move, int, "int | None", int, "Stamps | None"], bool]
"""The table's hand-over of one play to the engine (``Table._apply``): the place, the
move, the table time, the connection and ``seq`` (None and 0 for a bot), and the play's
arrival and credited time for its input record."""


class FairRaces:
    """The ``Table``'s clock sync, stamped plays and races (module docstring)."""

    def __init__(self, ctx: TableContext, practice: Practice, apply: Apply) -> None:
        self.ctx = ctx
        self.practice = practice
        self.apply = apply
        self.clocks: dict[int, ConnectionClock] = {}
        """Connection id -> its clock sync (seated connections at a fair table)."""
        self.arbiter = Arbiter(ctx.rules.tie_window_ms)
        self.lost: list[tuple[int, int]] = []
        """This hand's lost races: (seat, by how many ms of credited time)."""
        self.won: list[int] = []
        """This hand's won races: the seat whose play beat another's, once per play beaten."""
        self.winners: dict[Contest, int] = {}
        """Place -> the seat that won its race, this hand (a late play loses to it too)."""
        self.held: list[Stamped] = []
        """Plays credited after a joker's window ended, held until it is closed (R41)."""
        self.opened: dict[Card | None, int] = {}
        """The credited time of the call (key None, R28) and of each joker's announcement
        (key: the joker, R41): when each window began in credited time."""

    # ------------------------------------------------------------------ clock sync

    def dues(self) -> list[Due]:
        """The next race to decide and the next ping due."""
        due = []
        race = self.arbiter.due()
        if race is not None:
            due.append(Due(race, Timer.RACE))
        ping = self._ping_due()
        if ping is not None:
            due.append(Due(ping[0], Timer.PING, ping[1]))
        return due

    def fire(self, timer: Timer, index: int, now: int) -> None:
        """``RACE``: decide the races due; ``PING``: ping connection ``index``."""
        if timer is Timer.RACE:
            self._settle_races(now)
        elif timer is Timer.PING:
            self._ping(index, now)
        else:
            raise ValueError(f"{timer} is not a fair race's timer")

    def _ping_due(self) -> tuple[int, int] | None:
        """(when, connection) of the next ping, if the table pings at all."""
        if not self.ctx.rules.fair_races or self.ctx.stage is Stage.OVER:
            return None
        best: tuple[int, int] | None = None
        for conn, index in self.ctx.conns.items():
            if index is None:
                continue
            clock = self.clocks.get(conn)
            if clock is None:  # first seen: its first ping a moment after what it was sent
                clock = self.clocks[conn] = ConnectionClock(self.ctx.now + FIRST_EVERY_MS)
            at = clock.next_ping_ms
            if best is None or at < best[0]:
                best = (at, conn)
        return best

    def _ping(self, conn: int, now: int) -> None:
        """Ping ``conn``, whose ping is due, and every other seated connection whose ping
        is due within ``PING_SLACK_MS``: one timer for the table's pings, not one per
        connection (at 300 tables the pings' timers were half the tables' commands)."""
        for gone in [c for c in self.clocks if c not in self.ctx.conns]:
            del self.clocks[gone]
        soon, conns = now + PING_SLACK_MS, self.ctx.conns
        for other, clock in self.clocks.items():
            # Early only when its pings were answered (one due now may overlap them).
            early = clock.next_ping_ms <= soon and not clock.outstanding
            if other == conn or (early and conns.get(other) is not None):
                t, offset = clock.ping(now)
                self.ctx.ping(other, encode(Ping(t, offset)), t)

    def pong(self, conn: int, message: Pong, now: int) -> None:
        clock = self.clocks.get(conn)
        if clock is not None:
            clock.pong(message.t, message.c, now)

    def wire_pong(self, conn: int, t: int, now: int) -> None:
        """The ping frame sent with ping ``t`` came back on ``conn``: answered by the
        client's network stack, it times the path no page can hold
        (``ConnectionClock.wire_pong``). A connection the table does not ping keeps
        nothing."""
        clock = self.clocks.get(conn)
        if clock is not None:
            clock.wire_pong(t, now)

    # ------------------------------------------------------------------ plays

    def credit(
        self, place: Place, move: Move, now: int, conn: int | None, seq: int, stamp: int | None
    ) -> Stamped:
        """A play that arrived at ``now``, credited the time it was played: a person's
        from its stamp (``clock.ConnectionClock.credit``), a bot's ``now``."""
        clock = None if conn is None else self.clocks.get(conn)
        credited = now if clock is None else clock.credit(stamp, now).credited_ms
        index = place.number * self.ctx.per_seat + place.partner
        return Stamped(index, place.number, move, conn, seq, now, credited)

    def enter(self, play: Stamped, now: int) -> bool:
        arbiter, hand = self.arbiter, self.ctx.hand
        assert hand is not None
        if arbiter.waiting(play.place_no):  # its earlier play is in a race: keep the order
            arbiter.queue(play)
            self._bot_waits(play)
            return False
        place = contest(hand, play.seat, play.move)
        if place is None:
            place = place_of(hand, play.seat, play.move)
            if place is None or place not in arbiter.races:
                return self._late(play, now)
        wait = self._rivals_wait(play.seat)
        if place not in arbiter.races and play.credited_ms + wait <= now:
            # Nobody can still beat it: placed now, and the place decided by its credited
            # time, so a rival's play credited later than the tie window loses to it even
            # if it arrives within the tie window of this one's arrival (R16). (When no
            # time is credited at all, arrival order is credited order: the engine ties
            # and refuses as the plays come, as with the option off.)
            placed = self._place(play, now)
            timed = wait > 0 or play.credited_ms < play.arrival_ms
            if placed and timed and place != CALL_PLACE and play.move.kind is Kind.FOUNDATION:
                arbiter.placed(place, play.credited_ms)
                self.winners[place] = play.seat
            return placed
        arbiter.join(place, play, wait)
        self._bot_waits(play)
        return False

    def _rivals_wait(self, seat: int) -> int:
        """How long past a play's credited time a rival's earlier (or tying) play may
        still arrive: the tie window plus the longest trip any other seat's connection
        is credited; 0 when no rival has a delay (bots; connections not yet measured):
        their plays arrive in order, and the engine ties them as they come (R16)."""
        longest = 0.0
        for conn, index in self.ctx.conns.items():
            clock = self.clocks.get(conn)
            if index is not None and clock is not None and self.ctx.places[index].number != seat:
                longest = max(longest, clock.highest_ms)
        if longest <= 0:
            return 0
        return self.ctx.rules.tie_window_ms + round(longest)

    def _late(self, play: Stamped, now: int) -> bool:
        """A play outside any race: lost if its place was won earlier by more than the
        tie window of credited time, else to the engine as it comes. Lost by more than
        a race's window (``_race_window``), it was no race: the place was taken before
        it was played, so it is refused as the engine would, and not counted as a race
        lost (the hand-end panel, the player's figures)."""
        hand = self.ctx.hand
        assert hand is not None
        move = play.move
        card = _card(hand, play.seat, move) if move.kind in _TO_THE_MIDDLE else None
        if card is not None and card.rank > 1:
            late = self.arbiter.late(card.key, move.dst, play)
            if late is not None and late[0] is Verdict.LOST and not hand.wants.get(card.key):
                _, by, place = late
                if by <= self._race_window():
                    self._beaten(play, by, place)
                else:
                    where = f"F{place[0] + 1} already has the {card.name}"
                    self._refuse_play(play, Refusal.BEATEN, f"beaten to it: {where} (R16)")
                return False
        return self._place(play, now)

    def _race_window(self) -> int:
        """How long after the winner's credited time a play still ran the same race: the
        tie window plus the longest a contested play waits (``WAIT_CAP_MS``). A play
        credited later came after the race was over: the place was taken."""
        return self.ctx.rules.tie_window_ms + WAIT_CAP_MS

    def _place(self, play: Stamped, now: int) -> bool:
        """Hand ``play`` to the engine now, unless a window of the rules it was played
        after has ended but is still held open (module docstring)."""
        hand, move = self.ctx.hand, play.move
        held = self._held()
        if held is not None and hand is not None and held[0] <= now:
            ended, end, release = held
            if play.credited_ms > ended:
                if hand.phase is Phase.LANDING:  # R28: played after the window
                    self._refuse_play(play, Refusal.HAND_OVER, "the hand is over (R28)")
                else:  # R41: it comes after the joker lands or stays home
                    self.held.append(play)
                    self._bot_waits(play, release)
                return False
            now = max(self.practice.table_ms(hand.now) or 0, min(now, end - 1))  # still open
        kind = move.kind
        joker = None
        if kind is Kind.ANNOUNCE and hand is not None:
            joker = hand.top(play.seat, move.src)
        stamps = (play.arrival_ms, play.credited_ms)
        applied = self.apply(self.ctx.places[play.place_no], move, now, play.conn, play.seq, stamps)
        if applied and (kind is Kind.CALL or joker is not None):
            self.opened[joker] = play.credited_ms
        return applied

    def _bot_waits(self, play: Stamped, until: int | None = None) -> None:
        """A bot's play waiting for its race (or a window, ``until``): the bot looks
        again once it is decided."""
        driver = self.ctx.places[play.place_no].driver
        if play.conn is None and driver is not None:
            driver.due = self.arbiter.due() if until is None else until

    # ------------------------------------------------------------------ windows (R28, R41)

    def _held(self) -> tuple[int, int, int] | None:
        """The window of the rules that ends next, when the table holds it open: (its end
        in credited time, the engine's end of it, when the table closes it; all on the
        table's clock, which a practice table's pauses put ahead of the hand's). The
        landing window after a call (R28), or else the oldest joker's announcement
        (R41). None with ``fair_races`` off, with no window open, or when no play made
        inside the window can arrive after the engine's end of it (no connection has a
        delay): then the engine closes it on time, as with the option off."""
        hand = self.ctx.hand
        if hand is None or not self.ctx.rules.fair_races:
            return None
        if hand.phase is Phase.LANDING:
            end, length, key = (
                hand.call_ms + self.ctx.rules.landing_ms,
                self.ctx.rules.landing_ms,
                None,
            )
        elif hand.phase is Phase.PLAYING and hand.announcements:
            first = hand.announcements[0]
            end, length, key = first.until_ms, self.ctx.rules.joker_announce_ms, first.joker
        else:
            return None
        end += self.practice.paused_ms
        opened = self.opened.get(key)
        ended = end if opened is None else min(end, opened + length)
        release = max(end, ended + self._grace())
        for race in self.arbiter.races.values():  # a play raced inside it is decided first
            if min(p.credited_ms for p in race.plays) <= ended:
                release = max(release, race.settle_ms)
        return None if release <= end and ended >= end else (ended, end, release)

    def _grace(self) -> int:
        """How long after a window's end a play made inside it may still arrive: the
        longest trip any seated connection is credited (at most ``WAIT_CAP_MS``)."""
        longest = 0.0
        for conn, clock in self.clocks.items():
            if self.ctx.conns.get(conn) is not None:
                longest = max(longest, clock.highest_ms)
        return min(WAIT_CAP_MS, round(longest))

    def held_until(self, due: int | None) -> int | None:
        """The engine's next deadline ``due`` (table time), or when the table releases a
        window it holds open past it (the ``TICK`` timer's time)."""
        held = self._held()
        if held is None or due is None or due < held[1]:
            return due
        return held[2]

    def tick_to(self, now: int) -> tuple[int, bool]:
        """How far the engine's time may pass at ``now``: up to ``now``, or within a
        window the table holds open only to just before its end, and to its end once
        released; and whether the window closes (``release_held`` then)."""
        hand = self.ctx.hand
        assert hand is not None
        held = self._held()
        at, closing = now, False
        if held is not None and now >= held[1]:
            due = self.practice.table_ms(hand.next_deadline())
            closing = due is not None and due >= held[1]
            at = max(self.practice.table_ms(hand.now) or 0, held[1] if closing else held[1] - 1)
        return at, closing

    def release_held(self, now: int) -> None:
        """A held window closed: the plays held behind it go on."""
        if self.held:
            waiting, self.held = self.held, []
            for play in waiting:
                self.enter(play, now)

    # ------------------------------------------------------------------ deciding

    def _settle_races(self, now: int) -> None:
        """Decide every race due by ``now``: winner and ties to the engine (a tie at the
        same table time as the winner, so the engine ties them, R16), the rest beaten."""
        arbiter = self.arbiter
        while (settled := arbiter.settle(now)) is not None:
            race, ordered = settled
            self.winners[race.place] = ordered[0][0].seat
            for play, verdict, by in ordered:
                hand = self.ctx.hand
                other = (
                    hand is not None
                    and play.move.dst < 0
                    and race.place != CALL_PLACE
                    and bool(hand.wants.get(race.place[1]))
                )
                if verdict is Verdict.LOST and not other:
                    self._beaten(play, by, race.place)
                else:
                    self._place(play, now)
            for play, _, _ in ordered:
                for queued in arbiter.release(play.place_no):
                    if self.ctx.hand is not None and self.ctx.stage is Stage.PLAYING:
                        self.enter(queued, now)
                    else:
                        self._place(queued, now)  # the engine says why not

    def _beaten(self, play: Stamped, by: int, place: Contest | None = None) -> None:
        hand = self.ctx.hand
        assert hand is not None
        self.lost.append((play.seat, by))
        winner = None if place is None else self.winners.get(place)
        if winner is not None:
            self.won.append(winner)
        if place == CALL_PLACE:
            code = Refusal.ALREADY_CALLED
            reason = f"another seat called {by} ms before you (R27)"
        else:
            code = Refusal.BEATEN
            card = _card(hand, play.seat, play.move)
            where = f"F{place[0] + 1}" if place is not None else "its foundation"
            what = f"the {card.name}" if card is not None else "that card"
            reason = f"beaten to it by {by} ms: {where} already has {what} (R16)"
        self._refuse_play(play, code, reason)

    def _refuse_play(self, play: Stamped, code: Refusal, reason: str) -> None:
        """Answer a play the engine never saw: its page is told, or its bot."""
        if play.conn is not None:
            self.ctx.refuse(play.conn, play.seq, code.value, reason)
        else:
            driver = self.ctx.places[play.place_no].driver
            if driver is not None:
                driver.refused(play.move, code)  # a lost race: its picture is still right

    def end_races(self) -> None:
        """The hand is over: plays still waiting are answered (the engine refuses them);
        the hand's races won and lost per seat go to the store (a player's figures)."""
        waiting, self.held = self.held, []
        for play in self.arbiter.clear() + waiting:
            self._place(play, self.ctx.now)
        seats = len(self.ctx.places) // self.ctx.per_seat
        won, lost = [0] * seats, [0] * seats
        for seat in self.won:
            won[seat] += 1
        for seat, _ in self.lost:
            lost[seat] += 1
        self.ctx.store(RacesRecord(self.ctx.hand_no, self.ctx.match_no, tuple(won), tuple(lost)))
        self.lost, self.won, self.winners = [], [], {}
        self.opened.clear()


_TO_THE_MIDDLE = (Kind.FOUNDATION, Kind.ANNOUNCE)


def _card(hand: Hand, seat: int, move: Move) -> Card | None:
    """The card a move sends to the middle: the source's top, or a joker's announced card."""
    announced = move.announced
    return announced if announced is not None else hand.top(seat, move.src)
