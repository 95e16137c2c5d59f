"""One hand of Nertz: the state, ``play`` and the table's timers (R8-R28).

``Hand`` is the engine's mutable state: the seats' layouts, the table's timers and,
in ``centre``, the middle (``middle.Middle``: foundations, announced jokers and what
each place wants). Every input is a method call with a time in milliseconds; nothing
reads a clock. It asks ``legal`` for the legal moves and tells its ``Middle`` of every
card sent there, which checks the card against the foundations and their races
(R12-R16) and a joker's announcement (R41) and lays it; ``Hand`` moves the cards off
the layouts. Inputs:

* ``start(at_ms)``: Go (R8);
* ``play(seat, move, at_ms)``: a seat's move, checked and applied, or refused;
* ``tick(at_ms)``: time passing: closes the landing window after a call (R28), rotates
  a table that is blocked or idle (R25), ends a hand still blocked (R26), lands or
  sends home a joker whose announcement has run its time (R41).

Plays are applied in the order given (the server's arrival order). Every accepted
input is appended to ``log`` as ``(at_ms, seat, text)`` (seat -1 for the table), so a
hand rebuilt from its deal and log is identical (``replay``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from .announcements import Announcement
from .blocked import is_blocked
from .cards import Card
from .foundations import Foundation, Wants
from .jokers import lies_on, misfit, pin
from .layout import Deal, SeatLayout
from .legal import JokerPiles, PileMoves, joker_moves, joker_pile_moves, legal_moves, pile_moves
from .middle import Middle
from .moves import NERTZ, PILES, Kind, Move
from .outcome import (
    Called,
    CardsMoved,
    EndReason,
    Event,
    HandEnded,
    JokerAnnounced,
    JokerStayed,
    Outcome,
    Refusal,
    Rotated,
    SaidStuck,
    Started,
    StockTurned,
    nothing_to_play,
    refuse,
)
from .rules import Rules
from .scoring import SeatScore, hand_scores

__all__ = ["Hand", "LogEntry", "Phase"]

LogEntry = tuple[int, int, str]
"""``(at_ms, seat, text)``: one accepted input; seat -1 and text ``GO``/``TICK`` for the table."""

SETTLE_MS: Final = 1000
"""R25 (online): ``tick`` looks for an all-blocked table once no card has moved for this
long, as people at a table notice it is stuck (and again after a turn of the stock that
may have blocked a seat); saying stuck checks at once."""

_OK: Final = Outcome(True)
_NO_EVENTS: Final[list[Event]] = []
"""Shared and never changed: ``tick`` builds new lists rather than appending to it."""
# The move kinds ``play`` dispatches on, as Final module constants: mypyc reads them as
# C globals rather than an attribute of ``Kind`` at every play.
_TURN: Final = Kind.TURN
_FOUNDATION_KIND: Final = Kind.FOUNDATION
_PILE_KIND: Final = Kind.PILE
_UNDER_KIND: Final = Kind.UNDER


class Phase(StrEnum):
    """Where the hand stands."""

    WAITING = "waiting"
    """Dealt; waiting for Go (R8)."""
    PLAYING = "playing"
    LANDING = "landing"
    """Somebody called; cards in the air may still land (R28)."""
    OVER = "over"


class Hand:
    """The full state of one hand, hidden cards included. Never sent to a client:
    ``view(hand, seat)`` is the only way state leaves the engine."""

    def __init__(self, deal: Deal, rules: Rules | None = None) -> None:
        self.deal = deal
        self.rules = rules or Rules()
        self.seats: list[SeatLayout] = deal.build_layouts()
        if not self.rules.jokers and any(c.rank == 0 for s in self.seats for c in s.cards()):
            raise ValueError("this deal has jokers but the rules have jokers off (R41)")
        dealt = deal.build_middle()
        self.centre = Middle.dealt(dealt)
        """The middle: its foundations, the jokers announced for it and what each place
        wants next (R12-R16, R41)."""
        self.middle = [0] * len(self.seats)
        """R29: how many of each seat's cards are in the middle."""
        for cards in dealt:
            for card in cards:
                self.middle[card.owner] += 1
        self.phase = Phase.WAITING
        self.now = 0
        """The time of the latest input; inputs must not go back in time."""
        self.last_card_ms = 0
        """When a card last moved (R25's idle timer)."""
        self._idle_ms = self.rules.idle_rotate_s * 1000
        self._look_at: int | None = None
        """When ``tick`` next looks for an all-blocked table (R25), if it is due to."""
        self.caller: int | None = None
        self.call_ms = 0
        self.rotations = 0
        """Rotations in the current blocked spell (R26)."""
        self.rotations_total = 0
        self.end_reason: EndReason | None = None
        self.log: list[LogEntry] = []
        self._seat_version = [0] * len(self.seats)
        """Counts the changes of each seat's layout that may change whether it is
        blocked; with ``centre.version`` they date the answers kept in ``_blocked``."""
        self._blocked: list[tuple[int, int, bool]] = [(-1, -1, False)] * len(self.seats)
        """Each seat's last blocked answer (R24), as ``(seat version, middle version,
        answer)``."""
        self._pile_moves: list[PileMoves | None] = [None] * len(self.seats)
        self._joker_piles: list[JokerPiles | None] = [None] * len(self.seats)
        """What each seat's work piles allow (``legal.pile_moves``, with jokers
        ``legal.joker_pile_moves``); None once they change. A copy starts without them."""
        self._witness = 0
        """The seat last found neither blocked nor stuck."""
        self._jokers = self.rules.jokers

    # ------------------------------------------------------------------ inputs

    def start(self, at_ms: int) -> Outcome:
        """Go (R8): from now on every seat plays at once."""
        if self.phase is not Phase.WAITING:
            return refuse(Refusal.HAND_OVER, "the hand has already started")
        self._clock(at_ms)
        self.phase = Phase.PLAYING
        self.last_card_ms = at_ms
        self._look_at = at_ms + SETTLE_MS
        self.log.append((at_ms, -1, "GO"))
        return Outcome(True, (Started(at_ms),))

    def play(self, seat: int, move: Move, at_ms: int) -> Outcome:
        """Check and apply one seat's move at ``at_ms``; a refusal changes nothing."""
        if at_ms < self.now:
            self._clock(at_ms)
        self.now = at_ms
        phase = self.phase
        if phase is not Phase.PLAYING:
            if phase is Phase.WAITING:
                return refuse(Refusal.NOT_STARTED, "wait for Go (R8)")
            if phase is Phase.OVER or at_ms > self.call_ms + self.rules.landing_ms:
                return refuse(Refusal.HAND_OVER, "the hand is over (R28)")
        if not 0 <= seat < len(self.seats):
            return refuse(Refusal.NO_SUCH_SEAT, f"there is no seat {seat}")
        kind = move.kind
        if kind is _TURN:
            outcome = self._turn(seat)
            if outcome.ok:
                self.log.append((at_ms, seat, move.text))
            return outcome
        if kind is _FOUNDATION_KIND:
            outcome = self._to_foundation(seat, move, at_ms)
        elif kind is _PILE_KIND:
            outcome = self._to_pile(seat, move)
        elif kind is _UNDER_KIND:
            outcome = self._under(seat, move)
        else:
            if kind is Kind.ANNOUNCE:
                outcome = self._announce(seat, move, at_ms)
            elif kind is Kind.CALL:
                outcome = self._call(seat, at_ms)
            else:
                outcome = self._stuck(seat, at_ms)
            if outcome.ok:
                self.log.append((at_ms, seat, move.text))
            return outcome
        if outcome.ok:  # a card moved
            self.log.append((at_ms, seat, move.text))
            self.last_card_ms = at_ms
            self._look_at = at_ms + SETTLE_MS
            if kind is _FOUNDATION_KIND or move.src >= NERTZ:
                self.rotations = 0  # progress (R24) ends a blocked spell (R26)
        return outcome

    def tick(self, at_ms: int) -> Outcome:
        """Let time pass: end the hand after the landing window (R28); rotate a table that
        is idle for ``idle_rotate_s``, or all blocked when it is looked at (R25): once no
        card has moved for ``SETTLE_MS``, and again whenever a turn of the stock may have
        blocked a seat; end a hand still blocked after ``max_rotations`` (R26). Returns
        the events, if any. ``next_deadline`` says when to call it."""
        if at_ms < self.now:
            self._clock(at_ms)
        self.now = at_ms
        pending = self.centre.announcements
        events: list[Event] = (
            self._settle(at_ms) if pending and at_ms >= pending[0].until_ms else _NO_EVENTS
        )
        if self.phase is Phase.PLAYING:
            look_at = self._look_at
            look = look_at is not None and at_ms >= look_at
            idle_ms = self._idle_ms
            # An open announcement is a card on its way (R41): the table is not idle.
            idle = idle_ms > 0 and at_ms - self.last_card_ms >= idle_ms and not pending
            if not look and not idle:
                if not events:
                    return _OK  # the usual case: cards are moving
            else:
                self._look_at = None
                if idle or self.all_blocked():
                    events = events + self._rotate(at_ms, idle)
                # Logged even when the table was not blocked: looking is part of the
                # state (when the table looks next), and a replay must look at the same
                # moments.
        elif self.phase is Phase.LANDING and at_ms >= self.call_ms + self.rules.landing_ms:
            events = events + self._end(EndReason.CALLED)
        elif not events:
            return _OK
        self.log.append((at_ms, -1, "TICK"))
        return Outcome(True, tuple(events))

    def next_deadline(self) -> int | None:
        """When ``tick`` next has something to decide, if no input comes first: the end of
        the landing window (R28), the next look for an all-blocked table (``SETTLE_MS``
        after the last card moved, or at once after a turn that may have blocked a seat),
        or the idle rotation (R25), or the end of a joker's announcement (R41). None when
        only an input can change anything (before Go, after the end). Drivers call
        ``tick`` then, and again after each input."""
        pending = self.centre.announcements
        if pending:
            until = pending[0].until_ms
            deadline = self._table_deadline()
            return until if deadline is None else min(until, deadline)
        return self._table_deadline()

    def _table_deadline(self) -> int | None:
        if self.phase is Phase.LANDING:
            return self.call_ms + self.rules.landing_ms
        if self.phase is not Phase.PLAYING:
            return None
        idle_s = self.rules.idle_rotate_s
        # While an announcement is open the table is not idle (R41): its end comes first.
        idle = (
            self.last_card_ms + idle_s * 1000 if idle_s and not self.centre.announcements else None
        )
        if self._look_at is None:
            return idle
        return self._look_at if idle is None else min(idle, self._look_at)

    # ------------------------------------------------------------------ questions

    def legal_moves(self, seat: int) -> list[Move]:
        """Every move ``play`` would accept from ``seat`` now, ties aside (R12-R27, R41);
        see ``legal``."""
        phase = self.phase
        playing = phase is Phase.PLAYING
        if not playing and (
            phase is not Phase.LANDING or self.now > self.call_ms + self.rules.landing_ms
        ):
            return []
        layout = self.seats[seat]
        if self._jokers:
            held = self._joker_piles[seat] or joker_pile_moves(layout.work)
            self._joker_piles[seat] = held
            centre = self.centre
            return joker_moves(layout, held, centre.wants, centre.announcements, playing)
        piles = self._pile_moves[seat]
        if piles is None:
            piles = self._pile_moves[seat] = pile_moves(layout.work)
        return legal_moves(layout, piles, self.centre.wants, playing)

    def is_blocked(self, seat: int) -> bool:
        """R24: no sequence of this seat's own moves can make progress."""
        version = self._seat_version[seat]
        centre = self.centre
        middle = centre.version
        cached = self._blocked[seat]
        if cached[0] == version and cached[1] == middle:
            return cached[2]
        result = is_blocked(self.seats[seat], centre.wants, self.rules.draw, self._jokers)
        self._blocked[seat] = (version, middle, result)
        return result

    def all_blocked(self) -> bool:
        """R25: every seat is blocked or has said it is stuck (never while a joker's
        announcement is open: it is about to change the middle, R41)."""
        if self.centre.announcements:
            return False
        seats = self.seats
        # Ask first the seat that was free last time: it usually still is, and its
        # answer is often cached.
        witness = self._witness
        if not seats[witness].stuck and not self.is_blocked(witness):
            return False
        for i, layout in enumerate(seats):
            if not layout.stuck and not self.is_blocked(i):
                self._witness = i
                return False
        return True

    @property
    def foundations(self) -> list[Foundation]:
        """The middle's foundations, in the order they were started (``F1`` first, R12)."""
        return self.centre.foundations

    @property
    def wants(self) -> Wants:
        """``Card.key`` -> the foundations that take that card next, oldest first (R13)."""
        return self.centre.wants

    @property
    def announcements(self) -> list[Announcement]:
        """R41: the jokers announced for the middle whose window is still open, oldest
        first."""
        return self.centre.announcements

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def scores(self) -> tuple[SeatScore, ...]:
        """R29-R31: each seat's score for the hand as it stands."""
        return hand_scores(
            self.middle,
            [len(s.nertz) for s in self.seats],
            self.caller if self.end_reason is not EndReason.BLOCKED else None,
            self.rules,
        )

    def copy(self) -> Hand:
        """An independent copy (for search, perft and bots' look-ahead)."""
        # Built through __init__ and then overwritten: a compiled (mypyc) class has no
        # __dict__ to copy and no way to skip __init__. Every attribute is listed here,
        # by name, so that mypy checks each one; the work piles' moves are not copied
        # (the twin works them out again when asked).
        twin = Hand(self.deal, self.rules)
        twin.seats = [s.copy() for s in self.seats]
        twin.centre = self.centre.copy()
        twin.middle = self.middle[:]
        twin.phase = self.phase
        twin.now = self.now
        twin.last_card_ms = self.last_card_ms
        twin._look_at = self._look_at
        twin.caller = self.caller
        twin.call_ms = self.call_ms
        twin.rotations = self.rotations
        twin.rotations_total = self.rotations_total
        twin.end_reason = self.end_reason
        twin.log = self.log[:]
        twin._seat_version = self._seat_version[:]
        twin._blocked = self._blocked[:]
        twin._witness = self._witness
        return twin

    def top(self, seat: int, src: int) -> Card | None:
        """The face-up card a move of ``seat`` takes from ``src`` (the Nertz or waste
        top, or a work pile's end card, R14); None if there is none."""
        return self.seats[seat].top(src)

    def snapshot(self) -> dict[str, object]:
        """The whole game state as plain data, hidden cards included (for equality and
        debugging; never for a client). The clock is not part of it: a refused play or
        an empty tick moves ``now`` on but changes nothing in the game."""
        return {
            "phase": self.phase.value,
            "seats": [s.to_text() + f"; fan {s.fan}; stuck {s.stuck}" for s in self.seats],
            "middle": [" ".join(f.texts()) for f in self.centre.foundations],
            "announcements": [
                (a.seat, a.move.text, a.joker.tagged, a.foundation, a.until_ms)
                for a in self.centre.announcements
            ],
            "caller": self.caller,
            "rotations": (self.rotations, self.rotations_total),
            "end": self.end_reason.value if self.end_reason else None,
            "last_card_ms": self.last_card_ms,
            "look_at": self._look_at,
        }

    # ------------------------------------------------------------------ moves

    def _to_foundation(self, seat: int, move: Move, at_ms: int) -> Outcome:
        layout = self.seats[seat]
        card = layout.top(move.src)
        if card is None:
            return nothing_to_play(move)
        if card.rank == 0:
            return refuse(
                Refusal.DOES_NOT_FIT,
                f"a joker goes to the middle only announced as a card, e.g. {move.text}=7H (R41)",
            )
        laid = self.centre.receive(card, move.dst, at_ms, self.rules.tie_window_ms)
        if isinstance(laid, Outcome):
            return laid
        target, tie = laid
        revealed = layout.remove_top(move.src)
        self._sent_to_middle(seat, move.src)
        return Outcome(True, (CardsMoved(seat, move, (card,), target.number, tie, revealed),))

    def _sent_to_middle(self, seat: int, src: int) -> None:
        """A card of ``seat`` left ``src`` for the middle: count it (R29); the middle
        counts its own change (``Middle.version``)."""
        self.middle[seat] += 1
        self._card_moved(seat, src < PILES)

    def _card_moved(self, seat: int, piles: bool) -> None:
        """A card of ``seat`` moved, off a work pile or onto one when ``piles``: the one
        place that drops what is kept about its layout (its blocked answer, R24, and what
        its work piles allow); and a seat that moves a card is no longer stuck (R25)."""
        self._seat_version[seat] += 1
        if piles:
            self._pile_moves[seat] = self._joker_piles[seat] = None
        self.seats[seat].stuck = False

    def _to_pile(self, seat: int, move: Move) -> Outcome:
        layout = self.seats[seat]
        src, dst, count = move.src, move.dst, move.count
        if not 0 <= dst < PILES:
            return refuse(Refusal.NOT_AVAILABLE, f"there is no work pile {dst + 1}")
        if src == dst:
            return refuse(Refusal.SAME_PILE, "a run must move to another work pile")
        if src < PILES:
            source = layout.work[src]
            if count > len(source):
                return refuse(
                    Refusal.NOT_AVAILABLE,
                    f"work pile {src + 1} has {len(source)} card(s), not {count}",
                )
            cards = source[-count:]
        else:
            card = layout.top(src)
            if card is None or count != 1:
                return nothing_to_play(move)
            cards = [card]
        dest = layout.work[dst]
        if dest:
            end, first = dest[-1], cards[0]
            # A joker's rank (0) says nothing: a pinned joker fits only where its pin
            # does (R41), even on an ace of the other colour.
            if first.rank == 0 or first.rank + 1 != end.rank or first.red == end.red:
                stands = (
                    pin(layout.work[src], len(layout.work[src]) - count) if src < PILES else None
                )
                if not (self._jokers and lies_on(first, stands, end)):
                    return refuse(Refusal.DOES_NOT_FIT, misfit(first, stands, end, "on"))
        revealed = None
        if src < PILES:
            del layout.work[src][-count:]
        else:
            revealed = layout.remove_top(src)
        dest += cards
        self._card_moved(seat, True)
        return Outcome(True, (CardsMoved(seat, move, tuple(cards), -1, False, revealed),))

    def _under(self, seat: int, move: Move) -> Outcome:
        layout = self.seats[seat]
        src, dst = move.src, move.dst
        if not 0 <= dst < PILES or not layout.work[dst]:
            return refuse(Refusal.NOT_AVAILABLE, f"work pile {dst + 1} has no card to slide under")
        if src == dst:
            return refuse(Refusal.SAME_PILE, "a card cannot slide under its own pile")
        if all(layout.work):
            return refuse(Refusal.NO_EMPTY_SPACE, "sliding under needs an empty work space (R19)")
        card = layout.top(src)
        if card is None:
            return nothing_to_play(move)
        head = layout.work[dst][0]
        if head.rank == 0 or card.rank != head.rank + 1 or card.red == head.red:
            stands = pin(layout.work[dst], 0)
            if not (self._jokers and lies_on(head, stands, card)):
                return refuse(Refusal.DOES_NOT_FIT, misfit(card, stands, head, "under"))
        revealed = layout.remove_top(src)
        layout.work[dst].insert(0, card)
        self._card_moved(seat, True)
        return Outcome(True, (CardsMoved(seat, move, (card,), -1, False, revealed),))

    def _turn(self, seat: int) -> Outcome:
        layout = self.seats[seat]
        stock, waste = layout.stock, layout.waste
        if stock:
            draw = self.rules.draw
            # Turning never brings a card into reach, but it can put the waste's top out
            # of reach for good: the top stays reachable only where every pass from the
            # full stock stops (each ``draw``-th card of the cycle). Only then can a
            # "not blocked" answer go stale (R24).
            loose = bool(waste) and (len(waste) - 1) % draw != draw - 1
            n = min(draw, len(stock))  # R22: the last one or two turn alone
            turned = stock[-n:]
            turned.reverse()  # R21: the third card ends on top
            del stock[-n:]
            waste += turned
            layout.fan = n
            if loose:
                version, middle, blocked = self._blocked[seat]
                fresh = version == self._seat_version[seat] and middle == self.centre.version
                if not (fresh and blocked):
                    self._seat_version[seat] += 1
                    if self._look_at is None:
                        self._look_at = self.now  # a settled table: look again at once
        elif waste:
            waste.reverse()  # R23: the waste turned over, order unchanged
            layout.stock, layout.waste = waste, stock
            layout.fan = 0
            turned = []
        else:
            return refuse(Refusal.NOTHING_TO_TURN, "stock and waste are both empty")
        return Outcome(True, (StockTurned(seat, tuple(turned)),))

    def _call(self, seat: int, at_ms: int) -> Outcome:
        if self.phase is not Phase.PLAYING:
            return refuse(Refusal.ALREADY_CALLED, f"seat {self.caller} has already called")
        left = len(self.seats[seat].nertz)
        if left:
            return refuse(Refusal.NERTZ_NOT_EMPTY, f"{left} card(s) still in your Nertz pile (R27)")
        self.phase = Phase.LANDING
        self.caller = seat
        self.call_ms = at_ms
        return Outcome(True, (Called(seat),))

    def _stuck(self, seat: int, at_ms: int) -> Outcome:
        if self.phase is not Phase.PLAYING:
            return refuse(Refusal.ALREADY_CALLED, "somebody has called; the hand is ending")
        layout = self.seats[seat]
        if layout.stuck:
            return refuse(Refusal.ALREADY_STUCK, "you have already said stuck")
        layout.stuck = True
        events: list[Event] = [SaidStuck(seat)]
        if self.all_blocked():
            events += self._rotate(at_ms, False)
        return Outcome(True, tuple(events))

    # ------------------------------------------------------------------ table

    def _rotate(self, at_ms: int, idle: bool) -> list[Event]:
        """R25: every seat turns its stock onto its waste, turns the waste over and puts
        the new stock's top card at the bottom; R26: or the hand ends."""
        if self.rotations >= self.rules.max_rotations:
            return self._end(EndReason.BLOCKED)
        self.rotations += 1
        self.rotations_total += 1
        for i, layout in enumerate(self.seats):
            layout.rotate()
            self._seat_version[i] += 1
        self.last_card_ms = at_ms
        self._look_at = at_ms + SETTLE_MS
        return [Rotated(self.rotations_total, idle)]

    def _end(self, reason: EndReason) -> list[Event]:
        # A joker announced before the end lands if its place is still free: its window
        # closes early, as the last cards in the air land (R28, R41).
        events = self._settle(self.now, everything=True)
        self.phase = Phase.OVER
        self.end_reason = reason
        events.append(HandEnded(reason, self.caller if reason is EndReason.CALLED else None))
        return events

    # ------------------------------------------------------------------ jokers (R41)

    def _announce(self, seat: int, move: Move, at_ms: int) -> Outcome:
        """R41: announce the joker on ``move.src`` as ``move.announced`` for a foundation
        (``Middle.announce`` checks it and opens its window)."""
        if self.phase is not Phase.PLAYING:
            return refuse(
                Refusal.ALREADY_CALLED, "somebody has called: no joker can be announced now (R41)"
            )
        joker = self.seats[seat].top(move.src)
        if joker is None:
            return nothing_to_play(move)
        until = at_ms + self.rules.joker_announce_ms
        made = self.centre.announce(seat, move, joker, until)
        if isinstance(made, Outcome):
            return made
        events: list[Event] = [JokerAnnounced(seat, made.move, joker, made.foundation, until)]
        if until <= at_ms:  # no window at all: the joker lands at once
            events += self._settle(at_ms)
        return Outcome(True, tuple(events))

    def _settle(self, at_ms: int, everything: bool = False) -> list[Event]:
        """Land or send home the announced jokers whose window has ended (all of them
        when ``everything``), oldest first (R41)."""
        return [self._land_joker(a, at_ms) for a in self.centre.due(at_ms, everything)]

    def _land_joker(self, announced: Announcement, at_ms: int) -> Event:
        seat, move, joker = announced.seat, announced.move, announced.joker
        layout = self.seats[seat]
        centre = self.centre
        reason = centre.stays_home(announced, layout.top(move.src))
        if reason is not None:
            return JokerStayed(seat, move, joker, reason)
        target = centre.land(announced, at_ms, self.rules.tie_window_ms)
        revealed = layout.remove_top(move.src)
        self._sent_to_middle(seat, move.src)
        self.last_card_ms = at_ms
        self._look_at = at_ms + SETTLE_MS
        self.rotations = 0  # progress (R24) ends a blocked spell (R26)
        return CardsMoved(seat, move, (joker,), target.number, False, revealed)

    def _clock(self, at_ms: int) -> None:
        if at_ms < self.now:
            raise ValueError(f"time went backwards: {at_ms} ms after {self.now} ms")
        self.now = at_ms
