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
    NERTZ,
    PARTNERS,
    WASTE,
    Called,
    Card,
    CardsMoved,
    Deal,
    EndReason,
    Event,
    Hand,
    HandEnded,
    Holds,
    JokerAnnounced,
    JokerStayed,
    Kind,
    Match,
    Move,
    Phase,
    Refusal,
    Rotated,
    Rules,
    SaidStuck,
    Started,
    StockTurned,
    deal,
    picked_up,
    replay,
    spectator_view,
    touches,
    view,
)

from .bots import NERTZ_ROLE, STOCK_ROLE, TAKEOVER_SPEC, BotDriver
from .partners import PAIR_SEP, choose_place, seat_bots
from .protocol import (
    PROTOCOL_VERSION,
    Ack,
    Call,
    ClientMessage,
    Drop,
    ErrorMsg,
    EventMsg,
    Hello,
    HoldMsg,
    Leave,
    Pick,
    Play,
    Ready,
    Refused,
    Resync,
    StateMsg,
    Stuck,
    encode,
)

__all__ = [
    "HOLD_LAPSE_MS",
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

HOLD_LAPSE_MS = 5000
"""R40 (online): a partner's hold on a card lapses after this long without a play (a
hand resting on a card does not keep it from the partner for ever). A timer of the
table, like every other: ``next_deadline`` includes it and the actor's ``Wake`` fires it."""

_SRC_TEXT = ("1", "2", "3", "4", "N", "W")
"""Sources in move notation (docs/engine.md), as the protocol names them."""


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
    """Take a seat (HTTP join): replies ``((seat, partner), None)`` or ``(None, (code,
    reason))``. At a partnership table ``partner`` picks the place (R40); without it
    the table pairs people as they come (``partners.choose_place``)."""

    name: str
    token_hash: str
    seat: int | None = None
    partner: int | None = None


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
    """Who holds a place: a seat, or one partner of a partnership seat (R40)."""

    seat: int
    name: str
    token_hash: str | None
    bot: str | None
    partner: int = 0


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
class Place:
    """One person's (or one bot's) place at a seat. A seat has one place, or two at a
    partnership table (R40): partner 0 and partner 1, one layout between them."""

    number: int
    """The seat."""
    partner: int = 0
    name: str = ""
    token_hash: str | None = None
    bot: str | None = None
    """The bot spec of a bot's place (None for a person's place)."""
    conn: int | None = None
    ready: bool = False
    left_ms: int | None = None
    """When the person's connection dropped (None while connected or never joined)."""
    driver: BotDriver | None = None
    """The bot playing this place now: a bot's place, or a person's taken over."""
    hold_until: int | None = None
    """When this person's hold on a card lapses (R40, ``HOLD_LAPSE_MS``)."""

    @property
    def taken(self) -> bool:
        return self.bot is not None or self.token_hash is not None

    @property
    def person_here(self) -> bool:
        """A person plays this place now (not a bot, not a bot standing in)."""
        return self.bot is None and self.token_hash is not None and self.driver is None

    def public(self) -> dict[str, Any]:
        return {
            "seat": self.number,
            "name": self.name or None,
            "bot": self.bot,
            "connected": self.bot is not None or self.conn is not None,
            "ready": self.ready or self.bot is not None,
            "takeover": self.bot is None and self.driver is not None,
        }


Seat = Place
"""A seat's only place at a table without partnerships."""


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
        self.per_seat = PARTNERS if rules.partnerships else 1
        """Places per seat: two people share a seat at a partnership table (R40)."""
        self.places = [
            Place(number, partner)
            for number in range(settings.seats)
            for partner in range(self.per_seat)
        ]
        """Every place, seat by seat: ``places[seat * per_seat + partner]``."""
        for number, spec in settings.bots.items():
            for partner, bot in enumerate(seat_bots(spec, rules.partnerships)):
                if bot is not None:
                    place = self.place(number, partner)
                    place.bot = bot
                    place.name = f"bot {bot}"
        self.holds = Holds(settings.seats)
        """R40: what each partner holds (only partnership tables pick anything up)."""
        self.match = Match(settings.seats, rules)
        self.stage = Stage.SEATING
        self.hand: Hand | None = None
        self.hand_no = 0
        self.deals: list[DealRecord] = []
        self.events: list[bytes] = []
        """Every event message so far; ``events[v - 1]`` has version ``v``."""
        self.conns: dict[int, int | None] = {}
        """Connection id -> place index (None for a spectator)."""
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
        for place in self.places:
            if place.bot is not None:
                place.driver = self._driver(place.number, place.bot)

    # ------------------------------------------------------------------ places

    @property
    def seats(self) -> list[Place]:
        """Each seat's first place (its only one without partnerships)."""
        return self.places[:: self.per_seat]

    def place(self, seat: int, partner: int = 0) -> Place:
        return self.places[seat * self.per_seat + partner]

    def partner_of(self, place: Place) -> Place | None:
        """The other person (or bot) at ``place``'s seat (R40), if the table pairs."""
        if self.per_seat == 1:
            return None
        return self.place(place.number, 1 - place.partner)

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
            "seats": [self._seat_public(n) for n in range(self.settings.seats)],
            "totals": list(self.match.totals),
            "history": self._history(),
            "winners": list(self.match.winners),
            "rules": self.rules.as_dict(),
            "public": self.settings.public,
        }

    def _seat_public(self, number: int) -> dict[str, Any]:
        """One seat as everyone sees it; a partnership seat (R40) shows both people:
        ``name`` is "Ann & Bob", ``partners`` each one, ``holding`` what each has
        picked up (face-up cards only)."""
        first = self.place(number)
        if self.per_seat == 1:
            return first.public()
        both = [self.place(number, p) for p in range(PARTNERS)]
        names = [p.name for p in both if p.name]
        specs = [p.bot for p in both]
        held = self.holds.held(number)
        return {
            "seat": number,
            "name": " & ".join(names) if names else None,
            "bot": PAIR_SEP.join(str(b) for b in specs) if None not in specs else None,
            "connected": all(p.public()["connected"] for p in both if p.taken)
            and any(p.taken for p in both),
            "ready": all(p.public()["ready"] for p in both),
            "takeover": any(p.public()["takeover"] for p in both),
            "partners": [{**p.public(), "partner": p.partner} for p in both],
            "holding": [None if h is None else _SRC_TEXT[h] for h in held],
        }

    def _history(self) -> list[list[int]]:
        """Each seat's running total after each finished hand (the client's chart)."""
        running = [0] * self.settings.seats
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
        """Rebuild a table from its durable records: every place (both partners of a
        partnership seat, R40), every hand from its deal and its inputs (``replay``),
        the event log. Raises ``ValueError`` on a corrupt log."""
        table = cls(code, rules, settings, dealer=dealer)
        for seat_record in seats:
            if not 0 <= seat_record.partner < table.per_seat:
                raise ValueError(f"seat {seat_record.seat} has no partner {seat_record.partner}")
            place = table.place(seat_record.seat, seat_record.partner)
            place.name, place.token_hash = seat_record.name, seat_record.token_hash
            place.bot = seat_record.bot
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
        for place in table.places:
            place.driver = None
            if place.bot is None and place.token_hash is not None:
                place.left_ms = now  # everyone reconnects; the takeover clock starts now
            elif place.bot is not None:
                place.driver = table._driver(place.number, place.bot)
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
                    place.driver.begin(view(hand, place.number), table.match.totals, now)
            if table.stage is Stage.PLAYING:
                for place in table.places:
                    if place.driver is not None:
                        table._plan(place, now)
        table._emit({"k": "resumed", "stage": table.stage.value})
        return table

    def adopt(self, conns: dict[int, int | None]) -> None:
        """Take over the connections of a table this one replaces (rebuilt after an
        exception): everyone gets a fresh state."""
        for conn, index in conns.items():
            self.conns[conn] = index
            if index is not None:
                place = self.places[index]
                place.conn, place.left_ms = conn, None
                if place.driver is not None and place.bot is None:
                    place.driver = None
            self._send_state(conn)

    def take_out(self) -> Out:
        """Records produced outside ``handle`` (by ``restore``)."""
        out, self._out = self._out, Out()
        return out

    # ------------------------------------------------------------------ commands

    def _join(
        self, command: Join, now: int
    ) -> tuple[tuple[int, int] | None, tuple[str, str] | None]:
        free = [p for p in self.places if p.bot is None and p.token_hash is None and p.conn is None]
        if command.seat is not None:
            if not 0 <= command.seat < self.settings.seats:
                return None, ("no_such_seat", f"there is no seat {command.seat} at this table")
            free = [p for p in free if p.number == command.seat]
            if command.partner is not None:
                if not 0 <= command.partner < self.per_seat:
                    return None, (
                        "no_such_seat",
                        "seats at this table have one place (no partnerships)"
                        if self.per_seat == 1
                        else f"a partnership seat has partners 0 and 1, not {command.partner}",
                    )
                free = [p for p in free if p.partner == command.partner]
            if not free:
                return None, ("seat_taken", f"seat {command.seat} is taken")
        elif command.partner is not None:
            return None, ("no_such_seat", "choose a seat along with a partner place")
        if not free:
            return None, ("table_full", "every seat at this table is taken")
        if self.stage is Stage.OVER:
            return None, ("match_over", "the match at this table is over")
        place = free[0]
        if self.per_seat > 1:  # R40: the table pairs people in the order they come
            taken = [self.partner_of(p).taken for p in free]  # type: ignore[union-attr]
            number, partner = choose_place([(p.number, p.partner) for p in free], taken)
            place = self.place(number, partner)
        place.name, place.token_hash, place.ready, place.left_ms = (
            command.name,
            command.token_hash,
            False,
            None,
        )
        self._out.records.append(
            SeatRecord(place.number, place.name, place.token_hash, None, place.partner)
        )
        self._emit(self._who(place, {"k": "seat", "name": place.name, "bot": None}))
        self._replan_partner(place, now)  # a bot partner now shares the seat with a person
        return (place.number, place.partner), None

    def _who(self, place: Place, event: dict[str, Any]) -> dict[str, Any]:
        """An event about one place: its seat, and at a partnership table which
        partner (R40); solo tables' events keep their shape."""
        out = {"k": event.pop("k"), "seat": place.number}
        if self.per_seat > 1:
            out["partner"] = place.partner
        out.update(event)
        return out

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
        index: int | None = None
        if command.token_hash is not None:
            match = [i for i, p in enumerate(self.places) if p.token_hash == command.token_hash]
            if not match:
                self._error(conn, "bad_token", "no seat at this table has that token")
                self._out.closes.append((conn, "bad token"))
                return
            index = match[0]
            place = self.places[index]
            if place.conn is not None and place.conn != conn:
                old = place.conn
                self._error(old, "replaced", "this seat was opened on another connection")
                self._out.closes.append((old, "replaced"))
                self.conns.pop(old, None)
            place.conn, place.left_ms = conn, None
            if place.driver is not None:  # the owner is back: the bot hands the seat back
                place.driver.stop()
                place.driver = None
                self._let_go(place)
                self._emit(self._who(place, {"k": "takeover", "bot": False}))
                self._replan_partner(place, now)
            self._emit(self._who(place, {"k": "connected", "connected": True}))
        elif not (self.settings.public or command.key_ok):
            self._error(conn, "private_table", "this table is private: use its link")
            self._out.closes.append((conn, "private"))
            return
        self.conns[conn] = index
        last = command.last_version
        if 0 < last < self.version and self.version - last <= RESEND_LIMIT:
            for body in self.events[last:]:
                self._out.sends.append((conn, body))
        else:
            self._send_state(conn)

    def _disconnect(self, conn: int, now: int) -> None:
        index = self.conns.pop(conn, None)
        if index is None:
            return
        place = self.places[index]
        if place.conn == conn:
            place.conn, place.left_ms, place.ready = None, now, False
            self._let_go(place)  # R40: a hold lapses when its person leaves
            self._emit(self._who(place, {"k": "connected", "connected": False}))

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
            self._play(self.places[index], move, now, conn, seq)
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
            if index is None:
                self._error(conn, "not_seated", "spectators have no seat to get ready")
            elif self.stage in (Stage.SEATING, Stage.BETWEEN):
                place = self.places[index]
                if place.ready:
                    self._error(conn, "already_ready", "this seat is already ready")
                else:
                    place.ready = True
                    self._emit(self._who(place, {"k": "ready"}))
            else:
                self._error(conn, "not_now", f"nothing to get ready for while {self.stage.value}")
        elif kind is Resync:
            self._send_state(conn)
        elif kind is Leave:
            self._out.closes.append((conn, "left"))
            self._disconnect(conn, now)
        elif kind is Hello:
            self._error(conn, "already_joined", "this connection has already said hello")

    # ------------------------------------------------------------------ holds (R40)

    def _pick(self, place: Place, message: Pick, now: int, conn: int) -> None:
        """A partner picked up a card: refused while the other partner holds it."""
        seq = message.seq
        src = _SRC_TEXT.index(message.src) if message.src in _SRC_TEXT else -1
        if src < 0:
            self._error(conn, "bad_field", f"src must be N, W or 1-4, not {message.src!r}", seq)
            return
        hand = self.hand
        if hand is None or self.stage is not Stage.PLAYING or hand.over:
            code, reason = (
                ("not_started", "wait for Go (R8)")
                if self.stage in (Stage.SEATING, Stage.COUNTDOWN)
                else ("hand_over", "the hand is over (R28)")
            )
            self._out.sends.append((conn, encode(Refused(seq, code, reason))))
            return
        card = _top(hand, place.number, src)
        if card is None:
            where = f"work pile {src + 1}" if src < NERTZ else ("Nertz pile", "waste")[src - NERTZ]
            reason = f"your {where} is empty: there is no card to pick up (R14)"
            self._out.sends.append(
                (conn, encode(Refused(seq, Refusal.NOT_AVAILABLE.value, reason)))
            )
            return
        outcome = self.holds.pick(place.number, place.partner, src, card)
        if not outcome.ok:
            code = outcome.code.value if outcome.code else "refused"
            self._out.sends.append((conn, encode(Refused(seq, code, outcome.reason))))
            return
        place.hold_until = now + HOLD_LAPSE_MS
        self._send_hold(place)
        self._replan_partner(place, now)

    def _let_go(self, place: Place) -> None:
        """``place`` puts down what it held (played, let go, left, or lapsed)."""
        place.hold_until = None
        if self.per_seat > 1 and self.holds.drop(place.number, place.partner):
            self._send_hold(place)

    def _send_hold(self, place: Place) -> None:
        """Everyone sees where a partner is acting (R40): a face-up card, or nothing."""
        src = self.holds.held(place.number)[place.partner]
        card = self.holds.card(place.number, place.partner)
        body = encode(
            HoldMsg(
                place.number,
                place.partner,
                None if src is None else _SRC_TEXT[src],
                None if card is None else str(card),
            )
        )
        for conn in self.conns:
            self._out.sends.append((conn, body))

    def _clear_holds(self) -> None:
        """Every hand empties: a new deal (R33) or a rotation (R25) changes what lies
        under them."""
        if self.per_seat == 1:
            return
        for place in self.places:
            self._let_go(place)

    def _replan_partner(self, place: Place, now: int) -> None:
        """A bot whose partner just picked up a card its committed move touches, or
        whose partner changed (a person came, a bot stood in), looks again (R40)."""
        other = self.partner_of(place)
        if other is None or other.driver is None or self.stage is not Stage.PLAYING:
            return
        driver = other.driver
        held = self.holds.held(place.number)[place.partner]
        if (
            driver.move is None
            or driver.role != self._role(other)
            or (held is not None and held in touches(driver.move))
        ):
            self._plan(other, now)

    def _role(self, place: Place) -> str | None:
        """A bot's share of a partnership seat's work (docs/bots.md, R40): with a
        person, the bot turns the stock and feeds the middle while the person watches
        the Nertz pile; two bots split the same way, partner 0 on the Nertz pile."""
        other = self.partner_of(place)
        if other is None:
            return None
        if other.driver is None and other.taken:
            return STOCK_ROLE
        return NERTZ_ROLE if place.partner == 0 else STOCK_ROLE

    def _plan(self, place: Place, now: int) -> None:
        """A bot looks at the table: its next move, holding that move's source until
        it lands (R40), and never a move touching what its partner holds."""
        driver = place.driver
        assert driver is not None
        if self.per_seat == 1:
            driver.plan(now)
            return
        seat, partner = place.number, place.partner
        other = self.holds.held(seat)[1 - partner]
        avoid = frozenset(() if other is None else (other,))
        mate = self.place(seat, 1 - partner).driver
        if mate is not None and mate.move is not None:
            avoid |= touches(mate.move)  # a bot partner's whole move is in plain sight
        driver.plan(now, avoid, self._role(place))
        before = (self.holds.held(seat)[partner], self.holds.card(seat, partner))
        self.holds.drop(seat, partner)
        src = picked_up(driver.move) if driver.move is not None else None
        if src is not None:
            self.holds.pick(seat, partner, src, _top(self.hand, seat, src))
        if (self.holds.held(seat)[partner], self.holds.card(seat, partner)) != before:
            self._send_hold(place)

    # ------------------------------------------------------------------ play

    def _play(self, place: Place, move: Move, now: int, conn: int | None, seq: int) -> bool:
        """One seat's move, a person's or a bot's: the same path for both. At a
        partnership table each partner's move is its own input, settled in arrival
        order like anyone's (R40); a play puts down what that partner held."""
        hand = self.hand
        seat_no = place.number
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
        if self.per_seat > 1:
            outcome = self.holds.check(seat_no, place.partner, move)
            self._let_go(place)
            if outcome.ok:
                outcome = hand.play(seat_no, move, now)
        else:
            outcome = hand.play(seat_no, move, now)
        if not outcome.ok:
            if conn is not None:
                code = outcome.code.value if outcome.code else "refused"
                self._out.sends.append((conn, encode(Refused(seq, code, outcome.reason))))
            else:
                driver = place.driver
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

        def consider(at: int | None, what: str, index: int = -1) -> None:
            nonlocal best
            if at is not None and (best is None or at < best[0]):
                best = (at, what, index)

        stage = self.stage
        if stage is Stage.COUNTDOWN:
            consider(self.go_at, "go")
        elif stage is Stage.PLAYING:
            consider(self._tick_due(), "tick")
            for index, place in enumerate(self.places):
                if place.driver is not None:
                    consider(place.driver.due, "bot", index)
                consider(place.hold_until, "lapse", index)
        elif stage is Stage.BETWEEN:
            consider(self.next_at, "next")
        if stage is not Stage.OVER:
            s = self.settings
            for index, place in enumerate(self.places):
                if place.bot is None and place.left_ms is not None and place.token_hash is not None:
                    if s.bot_takeover_s and place.driver is None and stage is not Stage.SEATING:
                        consider(place.left_ms + s.bot_takeover_s * 1000, "takeover", index)
                    consider(place.left_ms + s.reconnect_s * 1000, "release", index)
        return best

    def _advance(self, now: int) -> None:
        """Fire every timer due by ``now``, earliest first (all stamped ``now``: the
        table's clock never goes back)."""
        for _ in range(10_000):
            due = self._next_due()
            if due is None or due[0] > now:
                return
            _, what, index = due
            if what == "go":
                self._go(now)
            elif what == "tick":
                self._tick(now)
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
        raise RuntimeError("timers did not settle")  # a bug: a deadline that never moves on

    def _tick(self, now: int) -> None:
        hand = self.hand
        assert hand is not None
        outcome = hand.tick(now)
        if outcome.events:
            self._engine_events(outcome.events)
            self._after_events(outcome.events, now)

    def _bot(self, place: Place, now: int) -> None:
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

    def _takeover(self, place: Place, now: int) -> None:
        place.driver = self._driver(place.number, TAKEOVER_SPEC)
        self._emit(self._who(place, {"k": "takeover", "bot": True}))
        if self.hand is not None and self.stage in (Stage.COUNTDOWN, Stage.PLAYING):
            place.driver.begin(view(self.hand, place.number), self.match.totals, now)
            if self.stage is Stage.PLAYING:
                self._plan(place, now)
                self._replan_partner(place, now)

    def _release(self, place: Place, now: int) -> None:
        place.token_hash, place.left_ms = None, None
        self._out.records.append(SeatRecord(place.number, place.name, None, None, place.partner))
        self._emit(self._who(place, {"k": "seat", "name": None, "bot": None}))
        if place.driver is None and self.stage is not Stage.SEATING:
            self._takeover(place, now)

    # ------------------------------------------------------------------ the match

    def _maybe_start(self, now: int) -> None:
        """The first deal when every place is taken and every person is connected and
        ready; the next deal as soon as every person connected is ready."""
        if self.stage is Stage.BETWEEN:
            people = [p for p in self.places if p.bot is None and p.conn is not None]
            if people and self._all_ready():
                self._deal(now)
            return
        if self.stage is not Stage.SEATING:
            return
        for place in self.places:
            if place.bot is None and (
                place.token_hash is None or place.conn is None or not place.ready
            ):
                return
        self._deal(now)

    def _deal(self, now: int) -> None:
        """R33: each seat gets its own 52 cards back, shuffled; countdown to Go (R8)."""
        seed = secrets.randbits(63)
        dealt = self.dealer(self.settings.seats, self.rules, seed)
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
        self._clear_holds()
        for place in self.places:
            place.ready = False
        self._emit({"k": "dealt", "hand": self.hand_no, "table": spectator_view(self.hand)})
        self._emit({"k": "countdown", "go_in_ms": self.settings.countdown_ms})
        for place in self.places:
            if place.driver is not None:
                place.driver.begin(view(self.hand, place.number), self.match.totals, now)

    def _go(self, now: int) -> None:
        hand = self.hand
        assert hand is not None
        self.go_at = None
        outcome = hand.start(now)  # R8
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
        for place in self.places:
            place.ready = False

    def _all_ready(self) -> bool:
        return all(p.ready or p.bot is not None or p.conn is None for p in self.places)

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
        )
        self._out.sends.append((conn, encode(message)))

    def _error(self, conn: int, code: str, reason: str, seq: int | None = None) -> None:
        self._out.sends.append((conn, encode(ErrorMsg(code, reason, seq))))

    def _driver(self, seat_no: int, spec: str) -> BotDriver:
        self._bot_seeds += 1
        return BotDriver(seat_no, spec, hash((self._seed, seat_no, self._bot_seeds)) & 0xFFFFFFFF)


def _top(hand: Hand | None, seat: int, src: int) -> Card | None:
    """The face-up card a partner picks up at ``src``: the Nertz or waste top, or a
    work pile's end card (R14); None if there is none."""
    if hand is None:
        return None
    layout = hand.seats[seat]
    pile = layout.nertz if src == NERTZ else layout.waste if src == WASTE else layout.work[src]
    return pile[-1] if pile else None


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
    store's rows): the latest record of each place (each partner of a seat, R40), each hand's
    deal with its inputs in order, every event."""
    seats: dict[tuple[int, int], SeatRecord] = {}
    hands: dict[int, tuple[DealRecord, list[tuple[int, int, str]]]] = {}
    events: list[bytes] = []
    for record in records:
        if type(record) is SeatRecord:
            seats[(record.seat, record.partner)] = record
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
