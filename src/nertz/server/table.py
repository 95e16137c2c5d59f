"""The table: one match at one table, sans-I/O (commands in, messages out).

``Table`` owns the ``Match`` and the ``Hand``, the seats (people and bots), the
connections watching, and the table's versioned event log. It reads no clock and
touches no socket or disk: every command comes with the table's time in milliseconds
(``handle(command, now_ms)``) and returns an ``Out``: bytes to send to connection ids,
connections to close, records for the store, and a reply for the caller. Its timers
(the countdown to Go, R8; the landing window, R28; the settle and idle checks, R25;
bots' actions; the next deal; a bot taking over an empty seat) are one number,
``next_deadline()``: the driver wakes the table then with ``Wake``.

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
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import msgspec

from nertz.engine import (
    Called,
    CardsMoved,
    Deal,
    EndReason,
    Event,
    Hand,
    HandEnded,
    Kind,
    Match,
    Move,
    Phase,
    Rotated,
    Rules,
    SaidStuck,
    Started,
    StockTurned,
    deal,
    replay,
    spectator_view,
    view,
)
from nertz.engine.outcome import JokerAnnounced, JokerStayed

from .bots import TAKEOVER_SPEC, BotDriver
from .protocol import (
    PROTOCOL_VERSION,
    Ack,
    Call,
    ClientMessage,
    ErrorMsg,
    EventMsg,
    Hello,
    Leave,
    Play,
    Ready,
    Refused,
    Resync,
    StateMsg,
    Stuck,
    encode,
)

__all__ = [
    "Connect",
    "Disconnect",
    "Inbound",
    "Join",
    "Out",
    "Settings",
    "Stage",
    "Table",
    "Wake",
]

RESEND_LIMIT = 500
"""A resuming client missing more events than this gets a full state instead."""


class Stage(StrEnum):
    """Where the match stands."""

    SEATING = "seating"
    """Waiting for every seat to be taken and every person to be ready."""
    COUNTDOWN = "countdown"
    """Dealt; Go comes after the countdown (R8)."""
    PLAYING = "playing"
    BETWEEN = "between"
    """A hand is over; the next deal comes when everyone is ready or after a while."""
    OVER = "over"
    """The match is over (R32)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Server-side table settings (the rules of play are ``Rules``)."""

    seats: int = 4
    bots: dict[int, str] = field(default_factory=dict)
    """Seat number -> bot spec (``expert``, ``demon:racer`` ...)."""
    public: bool = True
    countdown_ms: int = 3000
    """R8 (online): from the deal to Go."""
    next_hand_s: int = 30
    """Between hands: the next deal comes this long after the breakdown at the latest."""
    bot_takeover_s: int = 30
    """A person disconnected this long has a bot play for them until they return; 0: off."""
    reconnect_s: int = 120
    """A person disconnected this long loses the seat (a bot plays it; anyone may join it)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "seats": self.seats,
            "bots": {str(k): v for k, v in self.bots.items()},
            "public": self.public,
            "countdown_ms": self.countdown_ms,
            "next_hand_s": self.next_hand_s,
            "bot_takeover_s": self.bot_takeover_s,
            "reconnect_s": self.reconnect_s,
        }

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Settings:
        return Settings(
            seats=int(data["seats"]),
            bots={int(k): str(v) for k, v in data.get("bots", {}).items()},
            public=bool(data.get("public", True)),
            countdown_ms=int(data.get("countdown_ms", 3000)),
            next_hand_s=int(data.get("next_hand_s", 30)),
            bot_takeover_s=int(data.get("bot_takeover_s", 30)),
            reconnect_s=int(data.get("reconnect_s", 120)),
        )


# ---------------------------------------------------------------------- commands


@dataclass(frozen=True, slots=True)
class Join:
    """Take a seat (HTTP join): replies ``(seat, None)`` or ``(None, (code, reason))``."""

    name: str
    token_hash: str
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Connect:
    """A WebSocket said hello: ``token_hash`` None for a spectator."""

    conn: int
    token_hash: str | None
    last_version: int = -1
    key_ok: bool = False
    protocol: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class Disconnect:
    conn: int


@dataclass(frozen=True, slots=True)
class Inbound:
    """A decoded client message on a connection that has said hello."""

    conn: int
    message: ClientMessage


@dataclass(frozen=True, slots=True)
class Wake:
    """A timer: the table's deadline has come."""


Command = Join | Connect | Disconnect | Inbound | Wake


# ---------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    name: str
    token_hash: str | None
    bot: str | None


@dataclass(frozen=True, slots=True)
class DealRecord:
    hand: int
    layouts: tuple[str, ...]
    seed: int | None
    middle: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class InputRecord:
    hand: int
    index: int
    at_ms: int
    seat: int
    text: str


@dataclass(frozen=True, slots=True)
class ScoreRecord:
    hand: int
    scores: tuple[dict[str, int], ...]
    caller: int | None
    end: str


@dataclass(frozen=True, slots=True)
class EventRecord:
    version: int
    body: bytes


@dataclass(frozen=True, slots=True)
class MatchRecord:
    totals: tuple[int, ...]
    winners: tuple[int, ...]


Record = SeatRecord | DealRecord | InputRecord | ScoreRecord | EventRecord | MatchRecord


@dataclass(slots=True)
class Out:
    """What one command produced."""

    sends: list[tuple[int, bytes]] = field(default_factory=list)
    closes: list[tuple[int, str]] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    reply: Any = None


@dataclass(slots=True)
class Seat:
    number: int
    name: str = ""
    token_hash: str | None = None
    bot: str | None = None
    """The bot spec of a bot seat (None for a person's seat)."""
    conn: int | None = None
    ready: bool = False
    left_ms: int | None = None
    """When the person's connection dropped (None while connected or never joined)."""
    driver: BotDriver | None = None
    """The bot playing this seat now: a bot seat, or a person's seat taken over."""

    @property
    def taken(self) -> bool:
        return self.bot is not None or self.token_hash is not None

    def public(self) -> dict[str, Any]:
        return {
            "seat": self.number,
            "name": self.name or None,
            "bot": self.bot,
            "connected": self.bot is not None or self.conn is not None,
            "ready": self.ready or self.bot is not None,
            "takeover": self.bot is None and self.driver is not None,
        }


def _scores_dicts(hand: Hand) -> tuple[dict[str, int], ...]:
    return tuple(
        {"middle": s.middle, "nertz_left": s.nertz_left, "bonus": s.bonus, "score": s.score}
        for s in hand.scores()
    )


def event_dict(event: Event) -> dict[str, Any]:
    """An engine event as its public JSON form (face-up cards only, as the engine
    guarantees)."""
    if type(event) is CardsMoved:
        moved: dict[str, Any] = {
            "k": "moved",
            "seat": event.seat,
            "move": event.move.text,
            "cards": [str(c) for c in event.cards],
            "foundation": event.foundation + 1 if event.foundation >= 0 else None,
            "tie": event.tie,
            "revealed": str(event.revealed) if event.revealed is not None else None,
        }
        if event.move.kind is Kind.ANNOUNCE:
            # R41: an announced joker landed; it stands for the announced card there.
            moved["as"] = str(event.move.announced)
        return moved
    if type(event) is JokerAnnounced:
        return {
            "k": "announced",
            "seat": event.seat,
            "move": event.move.text,
            "joker": str(event.joker),
            "as": str(event.move.announced),
            "foundation": event.foundation + 1 if event.foundation >= 0 else None,
            "until_ms": event.until_ms,
        }
    if type(event) is JokerStayed:
        return {
            "k": "joker_stayed",
            "seat": event.seat,
            "move": event.move.text,
            "joker": str(event.joker),
            "reason": event.reason,
        }
    if type(event) is StockTurned:
        return {"k": "turned", "seat": event.seat, "cards": [str(c) for c in event.cards]}
    if type(event) is Started:
        return {"k": "go", "at_ms": event.at_ms}
    if type(event) is Called:
        return {"k": "called", "seat": event.seat}
    if type(event) is SaidStuck:
        return {"k": "stuck", "seat": event.seat}
    if type(event) is Rotated:
        return {"k": "rotated", "number": event.number, "idle": event.idle}
    if type(event) is HandEnded:
        return {"k": "ended", "reason": event.reason.value, "caller": event.caller}
    raise TypeError(f"unknown engine event {event!r}")


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
        if not 1 <= settings.seats <= 8:
            raise ValueError(f"a table has 1 to 8 seats, not {settings.seats}")
        self.code = code
        self.rules = rules
        self.settings = settings
        self.seats = [Seat(i) for i in range(settings.seats)]
        for number, spec in settings.bots.items():
            seat = self.seats[number]
            seat.bot = spec
            seat.name = f"bot {spec}"
        self.match = Match(settings.seats, rules)
        self.stage = Stage.SEATING
        self.hand: Hand | None = None
        self.hand_no = 0
        self.deals: list[DealRecord] = []
        self.events: list[bytes] = []
        """Every event message so far; ``events[v - 1]`` has version ``v``."""
        self.conns: dict[int, int | None] = {}
        """Connection id -> seat number (None for a spectator)."""
        self.now = 0
        self.go_at: int | None = None
        self.next_at: int | None = None
        self._logged = 0
        """How many of ``hand.log`` have gone out as records."""
        self._out = Out()
        self._old_logs: list[list[tuple[int, int, str]]] = []
        """The logs of the hands before the current one."""
        self._seed = rng_seed if rng_seed is not None else secrets.randbits(63)
        self._bot_seeds = 0
        self.dealer = dealer or deal
        """``deal`` (R33); tests pass explicit deals (``Deal.from_layouts``)."""
        for seat in self.seats:
            if seat.bot is not None:
                seat.driver = self._driver(seat.number, seat.bot)

    # ------------------------------------------------------------------ driver API

    def handle(self, command: Command, now_ms: int) -> Out:
        """Apply one command at table time ``now_ms`` (never going back)."""
        self.now = now = max(self.now, now_ms)
        self._advance(now)
        if type(command) is Inbound:
            self._inbound(command.conn, command.message, now)
        elif type(command) is Join:
            self._out.reply = self._join(command, now)
        elif type(command) is Connect:
            self._connect(command, now)
        elif type(command) is Disconnect:
            self._disconnect(command.conn, now)
        self._maybe_start(now)
        self._advance(now)
        out, self._out = self._out, Out()
        return out

    def next_deadline(self) -> int | None:
        """The table time at which the driver must send ``Wake``, if any."""
        due = self._next_due()
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
            "seats": [s.public() for s in self.seats],
            "totals": list(self.match.totals),
            "history": self._history(),
            "winners": list(self.match.winners),
            "rules": self.rules.as_dict(),
            "public": self.settings.public,
        }

    def _history(self) -> list[list[int]]:
        """Each seat's running total after each finished hand (the client's chart)."""
        running = [0] * len(self.seats)
        out: list[list[int]] = []
        for record in self.match.hands:
            running = [t + s.score for t, s in zip(running, record.scores, strict=True)]
            out.append(running)
        return out

    # ------------------------------------------------------------------ restore

    @classmethod
    def restore(
        cls,
        code: str,
        rules: Rules,
        settings: Settings,
        seats: Sequence[SeatRecord],
        hands: Sequence[tuple[DealRecord, Sequence[tuple[int, int, str]]]],
        events: Sequence[bytes],
        dealer: Callable[[int, Rules, int], Deal] | None = None,
    ) -> Table:
        """Rebuild a table from its durable records: seats, every hand from its deal and
        its inputs (``replay``), the event log. Raises ``ValueError`` on a corrupt log."""
        table = cls(code, rules, settings, dealer=dealer)
        for seat_record in seats:
            seat = table.seats[seat_record.seat]
            seat.name, seat.token_hash = seat_record.name, seat_record.token_hash
            seat.bot = seat_record.bot
        table.events = list(events)
        for record, log in hands:
            replayed = replay(_rebuild_deal(record, rules), rules, log)
            table.deals.append(record)
            table._old_logs.append(list(log))
            table.hand, table.hand_no, table._logged = replayed, record.hand, len(replayed.log)
            table.now = max(table.now, replayed.now)
            if replayed.over:
                table.match.record(replayed.scores(), _caller(replayed))
        if table._old_logs:
            table._old_logs.pop()  # the last hand is ``table.hand`` itself
        now = table.now
        for seat in table.seats:
            seat.driver = None
            if seat.bot is None and seat.token_hash is not None:
                seat.left_ms = now  # everyone reconnects; the takeover clock starts now
            elif seat.bot is not None:
                seat.driver = table._driver(seat.number, seat.bot)
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
            for seat in table.seats:
                if seat.driver is not None:
                    seat.driver.begin(view(hand, seat.number), table.match.totals, now)
                    if table.stage is Stage.PLAYING:
                        seat.driver.plan(now)
        table._emit({"k": "resumed", "stage": table.stage.value})
        return table

    def adopt(self, conns: dict[int, int | None]) -> None:
        """Take over the connections of a table this one replaces (rebuilt after an
        exception): everyone gets a fresh state."""
        for conn, seat_no in conns.items():
            self.conns[conn] = seat_no
            if seat_no is not None:
                seat = self.seats[seat_no]
                seat.conn, seat.left_ms = conn, None
                if seat.driver is not None and seat.bot is None:
                    seat.driver = None
            self._send_state(conn)

    def take_out(self) -> Out:
        """Records produced outside ``handle`` (by ``restore``)."""
        out, self._out = self._out, Out()
        return out

    # ------------------------------------------------------------------ commands

    def _join(self, command: Join, now: int) -> tuple[int | None, tuple[str, str] | None]:
        free = [s for s in self.seats if s.bot is None and s.token_hash is None and s.conn is None]
        if command.seat is not None:
            if not 0 <= command.seat < len(self.seats):
                return None, ("no_such_seat", f"there is no seat {command.seat} at this table")
            free = [s for s in free if s.number == command.seat]
            if not free:
                return None, ("seat_taken", f"seat {command.seat} is taken")
        if not free:
            return None, ("table_full", "every seat at this table is taken")
        if self.stage is Stage.OVER:
            return None, ("match_over", "the match at this table is over")
        seat = free[0]
        seat.name, seat.token_hash, seat.ready, seat.left_ms = (
            command.name,
            command.token_hash,
            False,
            None,
        )
        self._out.records.append(SeatRecord(seat.number, seat.name, seat.token_hash, None))
        self._emit({"k": "seat", "seat": seat.number, "name": seat.name, "bot": None})
        return seat.number, None

    def _connect(self, command: Connect, now: int) -> None:
        conn = command.conn
        if command.protocol != PROTOCOL_VERSION:
            self._error(
                conn,
                "protocol",
                f"this server speaks protocol {PROTOCOL_VERSION}, not {command.protocol}",
            )
            self._out.closes.append((conn, "protocol version"))
            return
        seat_no: int | None = None
        if command.token_hash is not None:
            match = [s for s in self.seats if s.token_hash == command.token_hash]
            if not match:
                self._error(conn, "bad_token", "no seat at this table has that token")
                self._out.closes.append((conn, "bad token"))
                return
            seat = match[0]
            seat_no = seat.number
            if seat.conn is not None and seat.conn != conn:
                old = seat.conn
                self._error(old, "replaced", "this seat was opened on another connection")
                self._out.closes.append((old, "replaced"))
                self.conns.pop(old, None)
            seat.conn, seat.left_ms = conn, None
            if seat.driver is not None:  # the owner is back: the bot hands the seat back
                seat.driver.stop()
                seat.driver = None
                self._emit({"k": "takeover", "seat": seat_no, "bot": False})
            self._emit({"k": "connected", "seat": seat_no, "connected": True})
        elif not (self.settings.public or command.key_ok):
            self._error(conn, "private_table", "this table is private: use its link")
            self._out.closes.append((conn, "private"))
            return
        self.conns[conn] = seat_no
        last = command.last_version
        if 0 < last < self.version and self.version - last <= RESEND_LIMIT:
            for body in self.events[last:]:
                self._out.sends.append((conn, body))
        else:
            self._send_state(conn)

    def _disconnect(self, conn: int, now: int) -> None:
        seat_no = self.conns.pop(conn, None)
        if seat_no is None:
            return
        seat = self.seats[seat_no]
        if seat.conn == conn:
            seat.conn, seat.left_ms, seat.ready = None, now, False
            self._emit({"k": "connected", "seat": seat_no, "connected": False})

    def _inbound(self, conn: int, message: ClientMessage, now: int) -> None:
        if conn not in self.conns:
            self._error(conn, "not_joined", "say hello first")
            return
        seat_no = self.conns[conn]
        kind = type(message)
        if kind is Play or kind is Call or kind is Stuck:
            seq = message.seq  # type: ignore[union-attr]
            if seat_no is None:
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
            self._play(seat_no, move, now, conn, seq)
        elif kind is Ready:
            if seat_no is None:
                self._error(conn, "not_seated", "spectators have no seat to get ready")
            elif self.stage in (Stage.SEATING, Stage.BETWEEN):
                seat = self.seats[seat_no]
                if seat.ready:
                    self._error(conn, "already_ready", "this seat is already ready")
                else:
                    seat.ready = True
                    self._emit({"k": "ready", "seat": seat_no})
            else:
                self._error(conn, "not_now", f"nothing to get ready for while {self.stage.value}")
        elif kind is Resync:
            self._send_state(conn)
        elif kind is Leave:
            self._out.closes.append((conn, "left"))
            self._disconnect(conn, now)
        elif kind is Hello:
            self._error(conn, "already_joined", "this connection has already said hello")

    # ------------------------------------------------------------------ play

    def _play(self, seat_no: int, move: Move, now: int, conn: int | None, seq: int) -> bool:
        """One seat's move, a person's or a bot's: the same path for both."""
        hand = self.hand
        if (
            hand is None
            or self.stage in (Stage.SEATING, Stage.OVER)
            or (self.stage is Stage.BETWEEN)
        ):
            if conn is not None:
                if self.stage is Stage.SEATING:
                    code, reason = "not_started", "wait for Go (R8)"
                else:
                    code, reason = "hand_over", "the hand is over (R28)"
                self._out.sends.append((conn, encode(Refused(seq, code, reason))))
            return False
        outcome = hand.play(seat_no, move, now)
        if not outcome.ok:
            if conn is not None:
                code = outcome.code.value if outcome.code else "refused"
                self._out.sends.append((conn, encode(Refused(seq, code, outcome.reason))))
            else:
                driver = self.seats[seat_no].driver
                if driver is not None and outcome.code is not None:
                    driver.refused(move, outcome.code, view(hand, seat_no))
            return False
        bodies = self._engine_events(outcome.events, skip=conn)
        if conn is not None:
            self._out.sends.append(
                (conn, encode(Ack(seq, self.version, [msgspec.Raw(b) for b in bodies])))
            )
        self._after_events(outcome.events, now)
        return True

    def _engine_events(self, events: Sequence[Event], skip: int | None = None) -> list[bytes]:
        """Announce engine events: versioned, to every connection, to every bot; log."""
        bodies = [self._emit(event_dict(e), skip=skip) for e in events]
        for seat in self.seats:
            if seat.driver is not None:
                seat.driver.observe(events)
        self._log_inputs()
        return bodies

    def _after_events(self, events: Sequence[Event], now: int) -> None:
        for event in events:
            if type(event) is Rotated:  # R25: everyone's stock changed; bots look again
                for seat in self.seats:
                    if seat.driver is not None:
                        seat.driver.plan(now)
            elif type(event) is HandEnded:
                self._hand_over(now)

    def _log_inputs(self) -> None:
        hand = self.hand
        if hand is None:
            return
        log = hand.log
        for index in range(self._logged, len(log)):
            self._out.records.append(InputRecord(self.hand_no, index, *log[index]))
        self._logged = len(log)

    # ------------------------------------------------------------------ timers

    def _tick_due(self) -> int | None:
        hand = self.hand
        if hand is None or self.stage is not Stage.PLAYING:
            return None
        # The landing window (R28), the next look for an all-blocked table and the idle
        # rotation (R25): the engine keeps these times.
        return hand.next_deadline()

    def _next_due(self) -> tuple[int, str, int] | None:
        best: tuple[int, str, int] | None = None

        def consider(at: int | None, what: str, seat: int = -1) -> None:
            nonlocal best
            if at is not None and (best is None or at < best[0]):
                best = (at, what, seat)

        stage = self.stage
        if stage is Stage.COUNTDOWN:
            consider(self.go_at, "go")
        elif stage is Stage.PLAYING:
            consider(self._tick_due(), "tick")
            for seat in self.seats:
                if seat.driver is not None:
                    consider(seat.driver.due, "bot", seat.number)
        elif stage is Stage.BETWEEN:
            consider(self.next_at, "next")
        if stage is not Stage.OVER:
            s = self.settings
            for seat in self.seats:
                if seat.bot is None and seat.left_ms is not None and seat.token_hash is not None:
                    if s.bot_takeover_s and seat.driver is None and stage is not Stage.SEATING:
                        consider(seat.left_ms + s.bot_takeover_s * 1000, "takeover", seat.number)
                    consider(seat.left_ms + s.reconnect_s * 1000, "release", seat.number)
        return best

    def _advance(self, now: int) -> None:
        """Fire every timer due by ``now``, earliest first (all stamped ``now``: the
        table's clock never goes back)."""
        for _ in range(10_000):
            due = self._next_due()
            if due is None or due[0] > now:
                return
            _, what, seat_no = due
            if what == "go":
                self._go(now)
            elif what == "tick":
                self._tick(now)
            elif what == "bot":
                self._bot(seat_no, now)
            elif what == "next":
                self._deal(now)
            elif what == "takeover":
                self._takeover(seat_no, now)
            elif what == "release":
                self._release(seat_no, now)
        raise RuntimeError("timers did not settle")  # a bug: a deadline that never moves on

    def _tick(self, now: int) -> None:
        hand = self.hand
        assert hand is not None
        outcome = hand.tick(now)
        if outcome.events:
            self._engine_events(outcome.events)
            self._after_events(outcome.events, now)

    def _bot(self, seat_no: int, now: int) -> None:
        driver = self.seats[seat_no].driver
        assert driver is not None
        move = driver.move
        if move is None:
            driver.plan(now)
            return
        driver.move = None
        driver.due = None
        self._play(seat_no, move, now, None, 0)
        if (
            self.stage is Stage.PLAYING
            and driver.due is None
            and self.seats[seat_no].driver is driver
        ):
            driver.plan(now)  # a person looks at the table again as soon as a card lands

    def _takeover(self, seat_no: int, now: int) -> None:
        seat = self.seats[seat_no]
        seat.driver = self._driver(seat_no, TAKEOVER_SPEC)
        self._emit({"k": "takeover", "seat": seat_no, "bot": True})
        if self.hand is not None and self.stage in (Stage.COUNTDOWN, Stage.PLAYING):
            seat.driver.begin(view(self.hand, seat_no), self.match.totals, now)
            if self.stage is Stage.PLAYING:
                seat.driver.plan(now)

    def _release(self, seat_no: int, now: int) -> None:
        seat = self.seats[seat_no]
        seat.token_hash, seat.left_ms = None, None
        self._out.records.append(SeatRecord(seat_no, seat.name, None, None))
        self._emit({"k": "seat", "seat": seat_no, "name": None, "bot": None})
        if seat.driver is None and self.stage is not Stage.SEATING:
            self._takeover(seat_no, now)

    # ------------------------------------------------------------------ the match

    def _maybe_start(self, now: int) -> None:
        """The first deal when every seat is taken and every person is connected and
        ready; the next deal as soon as every person connected is ready."""
        if self.stage is Stage.BETWEEN:
            people = [s for s in self.seats if s.bot is None and s.conn is not None]
            if people and self._all_ready():
                self._deal(now)
            return
        if self.stage is not Stage.SEATING:
            return
        for seat in self.seats:
            if seat.bot is None and (
                seat.token_hash is None or seat.conn is None or not seat.ready
            ):
                return
        self._deal(now)

    def _deal(self, now: int) -> None:
        """R33: each seat gets its own 52 cards back, shuffled; countdown to Go (R8)."""
        seed = secrets.randbits(63)
        dealt = self.dealer(len(self.seats), self.rules, seed)
        if self.hand is not None:
            self._old_logs.append(self.hand.log[:])
        self.hand_no += 1
        record = DealRecord(self.hand_no, dealt.layouts, dealt.seed, dealt.middle)
        self.deals.append(record)
        self._out.records.append(record)
        self.hand = Hand(dealt, self.rules)
        self._logged = 0
        self.stage = Stage.COUNTDOWN
        self.go_at = now + self.settings.countdown_ms
        self.next_at = None
        for seat in self.seats:
            seat.ready = False
        self._emit({"k": "dealt", "hand": self.hand_no, "table": spectator_view(self.hand)})
        self._emit({"k": "countdown", "go_in_ms": self.settings.countdown_ms})
        for seat in self.seats:
            if seat.driver is not None:
                seat.driver.begin(view(self.hand, seat.number), self.match.totals, now)

    def _go(self, now: int) -> None:
        hand = self.hand
        assert hand is not None
        self.go_at = None
        outcome = hand.start(now)  # R8
        self.stage = Stage.PLAYING
        self._engine_events(outcome.events)
        for seat in self.seats:
            if seat.driver is not None:
                seat.driver.plan(now)

    def _hand_over(self, now: int) -> None:
        hand = self.hand
        assert hand is not None
        for seat in self.seats:
            if seat.driver is not None:
                seat.driver.stop()
        scores = _scores_dicts(hand)
        caller = _caller(hand)
        self.match.record(hand.scores(), caller)
        end = hand.end_reason.value if hand.end_reason else "?"
        self._out.records.append(ScoreRecord(self.hand_no, scores, caller, end))
        self._emit(
            {
                "k": "hand_end",
                "hand": self.hand_no,
                "reason": end,
                "caller": caller,
                "scores": list(scores),
                "totals": list(self.match.totals),
            }
        )
        if self.match.over:
            self.stage = Stage.OVER
            self._emit(
                {
                    "k": "match_end",
                    "totals": list(self.match.totals),
                    "winners": list(self.match.winners),
                }
            )
            self._out.records.append(
                MatchRecord(tuple(self.match.totals), tuple(self.match.winners))
            )
        else:
            self.stage = Stage.BETWEEN
            self.next_at = now + self.settings.next_hand_s * 1000
        for seat in self.seats:
            seat.ready = False

    def _all_ready(self) -> bool:
        return all(seat.ready or seat.bot is not None or seat.conn is None for seat in self.seats)

    # ------------------------------------------------------------------ output

    def _emit(self, event: dict[str, Any], skip: int | None = None) -> bytes:
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
        seat_no = self.conns.get(conn)
        hand = self.hand
        seen: dict[str, Any] | None = None
        if hand is not None:
            seen = spectator_view(hand) if seat_no is None else view(hand, seat_no)
        state = StateMsg(self.version, self.info(), seen, seat_no, self.now)
        self._out.sends.append((conn, encode(state)))

    def _error(self, conn: int, code: str, reason: str, seq: int | None = None) -> None:
        self._out.sends.append((conn, encode(ErrorMsg(code, reason, seq))))

    def _driver(self, seat_no: int, spec: str) -> BotDriver:
        self._bot_seeds += 1
        return BotDriver(seat_no, spec, hash((self._seed, seat_no, self._bot_seeds)) & 0xFFFFFFFF)


def _caller(hand: Hand) -> int | None:
    return hand.caller if hand.end_reason is EndReason.CALLED else None


def _rebuild_deal(record: DealRecord, rules: Rules) -> Deal:
    """The deal of a stored hand: from its seed, checked against its stored layouts."""
    if record.seed is not None:
        dealt = deal(len(record.layouts), rules, record.seed)
        if dealt.layouts == tuple(record.layouts):
            return dealt
    return Deal.from_layouts(record.layouts, record.middle)


def restore_from_records(
    code: str,
    rules: Rules,
    settings: Settings,
    records: Sequence[Record],
    dealer: Callable[[int, Rules, int], Deal] | None = None,
) -> Table:
    """``Table.restore`` from a table's records in the order they were produced (the
    store's rows): the latest record of each seat, each hand's
    deal with its inputs in order, every event."""
    seats: dict[int, SeatRecord] = {}
    hands: dict[int, tuple[DealRecord, list[tuple[int, int, str]]]] = {}
    events: list[bytes] = []
    for record in records:
        if type(record) is SeatRecord:
            seats[record.seat] = record
        elif type(record) is DealRecord:
            hands[record.hand] = (record, [])
        elif type(record) is InputRecord:
            log = hands[record.hand][1]
            if record.index != len(log):
                raise ValueError(f"hand {record.hand}: input {record.index} out of order")
            log.append((record.at_ms, record.seat, record.text))
        elif type(record) is EventRecord:
            if record.version != len(events) + 1:
                raise ValueError(f"event {record.version} out of order")
            events.append(record.body)
    ordered = [hands[n] for n in sorted(hands)]
    return Table.restore(code, rules, settings, list(seats.values()), ordered, events, dealer)
