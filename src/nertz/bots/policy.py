"""The bot: chooses a seat's next action from its view and what it has seen.

A driver (the simulator, later the server's table actor) talks to a ``Bot`` in four
calls, all with public information only (docs/bots.md):

* ``begin(view, totals)`` when a hand is dealt: the seat's view and the match totals;
* ``observe(events)`` with every accepted play's events, everyone's, in table order;
* ``refused(move, code)`` when the bot's own move was refused;
* ``decide(now_ms)`` whenever the bot's timer is due: returns a ``Decision``, a move
  (or None to wait) and the delay in ms after which the move lands (or the bot wants
  to look again).

The bot never receives a ``Hand``: everything it knows comes from views and events,
which is exactly what a person at the seat can see (R4, R6, R21).

With jokers (R41) the bot announces a joker on its Nertz pile at once (as a card that
lets it play on, else as a card the middle takes, else as an ace), keeps a joker on
its waste or work piles for later unless announcing it lets the bot play a card it
holds (or it has nothing else to do), lays a waste joker on a work pile as a landing
for a Nertz card that has none, and answers another seat's announcement by playing
the real card there first when it holds it. With jokers off none of this runs, and
the bot plays (and draws its random numbers) exactly as before.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from mypy_extensions import mypyc_attr

from nertz.engine import (
    ANY,
    NERTZ,
    PILES,
    WASTE,
    Card,
    Event,
    Move,
    Refusal,
    StockTurned,
    lies_on,
    pin,
)

from .levels import LEVELS, Level
from .memory import Memory
from .roles import allowed
from .search import GOAL_EXPOSE, GOAL_LANDING, rearrangement
from .styles import STYLES, CallSituation, Style

__all__ = ["Bot", "Decision"]

_TURN: Final = Move.parse("T")
_CALL: Final = Move.parse("NERTZ")
_STUCK: Final = Move.parse("STUCK")
_TO_MIDDLE: Final = tuple(Move.to_foundation(src) for src in range(6))
_MAX_SHUFFLES: Final = 2
"""Work-pile rearrangements allowed between two steps of progress (no idle loops)."""
_JOKER_KEYS: Final = frozenset(Card.joker(n).key for n in (1, 2))
"""The keys a joker leaves in ``Memory.pool`` (rank 0: no real card has them)."""
_SUITS: Final = tuple(Card.parse(f"A{s}").suit for s in "CDHS")


@dataclass(frozen=True, slots=True)
class Decision:
    """A bot's answer: play ``move`` ``delay_ms`` from now, or (``move`` None) look
    again ``delay_ms`` from now. The delay is the bot's thinking and reaching time."""

    move: Move | None
    delay_ms: int


# Tests and drivers watch a bot by subclassing it; the compiled class allows that.
@mypyc_attr(allow_interpreted_subclasses=True)
class Bot:
    """One seat's bot: a ``Level`` (speed, attention, planning) and a ``Style``."""

    def __init__(self, seat: int, level: Level | str, style: Style | str, seed: int) -> None:
        self.seat = seat
        self.level = LEVELS[level] if isinstance(level, str) else level
        self.style = STYLES[style] if isinstance(style, str) else style
        self.rng = random.Random(seed)
        self.memory: Memory | None = None
        self.totals: tuple[int, ...] = ()
        self._draw = 3
        self._bonus = 0
        self._penalty = 2
        self._target = 0
        self._jokers = False
        self._turns = 0
        """Stock turns since the last progress or news (counts fruitless passes)."""
        self.role: str | None = None
        """At a partnership seat (R40), this bot's share of the work (``roles.py``)."""
        self._shuffles = 0
        self._mark = (0, 0)
        self._free: tuple[int, Move | None] = (-1, None)
        self._bare: tuple[int, Move | None] = (-1, None)
        """``(memory version, move)``: the last free-space and expose answers, which
        depend on nothing but the work piles and the middle."""

    # ------------------------------------------------------------------ driver calls

    def begin(self, seat_view: Mapping[str, Any], totals: Sequence[int] = ()) -> None:
        """A new hand is dealt (R33): forget the last one, read the view."""
        if seat_view["you"] != self.seat:
            raise ValueError(f"bot of seat {self.seat} got the view of seat {seat_view['you']}")
        self.memory = Memory(seat_view)
        rules = seat_view["rules"]
        self._draw = rules["draw"]
        self._bonus = rules["caller_bonus"]
        self._penalty = rules["penalty"]
        self._target = rules["target"] if rules["match"] == "race" else 0
        self._jokers = bool(rules.get("jokers"))
        self.totals = tuple(totals) or (0,) * self.memory.seats
        self._turns = self._shuffles = 0
        self._mark = (0, 0)
        self._free = self._bare = (-1, None)  # versions restart with the new memory

    def resync(self, seat_view: Mapping[str, Any]) -> None:
        """Re-read the seat's view mid-hand (after an unexpected refusal, say)."""
        self._known().resync(seat_view)

    def observe(self, events: Iterable[Event]) -> None:
        """Learn what the table announced."""
        memory = self.memory
        if memory is None:
            raise RuntimeError("call begin(view) before anything else")
        memory.observe(events)
        if self.role is not None:
            # R40: either partner may turn the seat's stock; both count the passes.
            for event in events:
                if type(event) is StockTurned and event.seat == self.seat:
                    self._turns += 1

    def refused(self, move: Move, code: Refusal) -> None:
        """The bot's move was refused. A lost race (``beaten``, R16) needs nothing:
        the winner's card is already known from its event. Anything else means the
        bot's picture is wrong; the driver should ``resync``."""

    def decide(
        self, now_ms: int, avoid: frozenset[int] = frozenset(), role: str | None = None
    ) -> Decision:
        """The next action, chosen from memory alone. At a partnership seat (R40)
        ``avoid`` holds the sources the partner has picked up: no move touching one is
        chosen; ``role`` (``roles.py``) is this bot's share of the seat's work."""
        m = self.memory
        if m is None:
            raise RuntimeError("call begin(view) before anything else")
        lv = self.level
        if m.over or m.called:
            return Decision(None, 4 * lv.card_ms)  # R28: the hand is ending; hands off
        self.role = role
        for move, mean_ms, tag in self._choices(m, now_ms):
            if move is None:
                return Decision(None, mean_ms)  # R41: waiting for a joker's window
            if (role is not None or avoid) and not allowed(move, role, avoid):
                continue
            if tag == "shuffle":
                self._shuffles += 1
            elif tag == "turn" and role is None:
                self._turns += 1  # a partner counts turns from the events (observe)
            return self._act(move, mean_ms)
        return Decision(None, 2 * lv.card_ms)  # stuck: wait for the middle or a rotation

    def _choices(self, m: Memory, now_ms: int) -> Iterator[tuple[Move | None, int, str]]:
        """Every action worth taking now, best first (``tag`` names its bookkeeping).
        A solo bot takes the first; a partner the first its role and its partner's
        hold allow. Lazy: a choice not reached draws no random numbers. A move of None
        means: wait that long (a joker's window, R41), whatever comes after."""
        lv = self.level
        rng = self.rng
        mark = (m.progress, m.news)
        if mark != self._mark:
            if mark[0] != self._mark[0]:
                self._shuffles = 0
            self._mark = mark
            self._turns = 0
        miss = lv.overlook
        wants = m.wants
        work = m.work
        nt = m.nertz_top
        wt = m.waste[-1] if m.waste else None
        draw = self._draw
        cycle = (m.passable() + draw - 1) // draw + 1
        fruitless = self._turns >= lv.patience * cycle
        wide = self.style.wide or fruitless
        jokers = self._jokers
        busy: dict[int, int] = {}
        joker_nt = joker_wt = None
        if jokers:
            # R41: the real-card steps below never see a joker; its own steps handle it.
            # A joker already announced is left alone until its window closes.
            busy = m.busy()
            if nt is not None and nt.rank == 0:
                joker_nt, nt = (None if NERTZ in busy else nt), None
            if wt is not None and wt.rank == 0:
                joker_wt, wt = (None if WASTE in busy else wt), None

        if m.nertz_count == 0 and self.style.should_call(self._situation(m, fruitless)):
            yield _CALL, lv.turn_ms, ""  # R27

        if jokers and m.announced:
            move = self._answer(now_ms)
            if move is not None:
                yield move, lv.card_ms, ""

        # Cards to the middle (R12-R14): the Nertz card first.
        if nt is not None and (nt.rank == 1 or nt.key in wants) and rng.random() >= miss:
            yield _TO_MIDDLE[NERTZ], lv.card_ms, ""
        if joker_nt is not None and rng.random() >= miss:
            # A joker blocks the Nertz pile: it goes to the middle at once (R41).
            move = self._announcement(NERTZ, 0)
            if move is not None:
                yield move, lv.card_ms, ""
        for i in range(PILES):
            pile = work[i]
            if pile:
                end = pile[-1]
                if (
                    (end.rank == 1 or end.key in wants)
                    and (wide or len(pile) == 1 or end.rank <= 2)
                    and rng.random() >= miss
                ):
                    yield _TO_MIDDLE[i], lv.card_ms, ""
        if wt is not None and (wt.rank == 1 or wt.key in wants) and rng.random() >= miss:
            yield _TO_MIDDLE[WASTE], lv.card_ms, ""
        if jokers:
            # A joker kept on the waste or a work pile is spent when it lets the bot
            # play a card it holds (R41).
            move = self._spend(joker_wt, busy, 2)
            if move is not None:
                yield move, lv.card_ms, ""

        plan = lv.plan
        version = m.version
        # The Nertz card onto the work piles (R17-R20).
        if nt is not None:
            move = self._place(NERTZ, nt, False)
            if move is not None:
                yield move, lv.card_ms, ""
            if plan >= 1 and self._shuffles < _MAX_SHUFFLES and all(work):
                if self._free[0] != version:
                    self._free = (version, self._rearranged(m, GOAL_LANDING))
                move = self._free[1]
                if move is not None:
                    yield move, lv.card_ms, "shuffle"
            if joker_wt is not None and rng.random() >= miss:
                move = self._bridge(busy)
                if move is not None:
                    yield move, lv.card_ms, ""
        if plan >= 3 and self._shuffles < _MAX_SHUFFLES:
            if self._bare[0] != version:
                self._bare = (version, self._rearranged(m, GOAL_EXPOSE))
            move = self._bare[1]
            if move is not None:
                yield move, lv.card_ms, "shuffle"

        # The waste card onto the work piles: a racer only to make a landing for the
        # Nertz card; planners keep an empty space for the Nertz card (R18).
        if wt is not None:
            landing = nt is not None and wt.rank == nt.rank + 1 and wt.red != nt.red
            if wide or landing:
                keep = plan >= 1 and nt is not None and not landing
                move = self._place(WASTE, wt, keep)
                if move is not None:
                    yield move, lv.card_ms, ""

        if WASTE in busy:  # turning would send the announced joker home (R41): wait
            yield None, max(1, busy[WASTE] - now_ms + 1), ""
        if not fruitless and (m.stock_count or m.waste):
            yield _TURN, lv.turn_ms, "turn"  # R21-R23
        if jokers:
            # Nothing else to do: a joker in reach goes to the middle as the most useful
            # card, at worst as an ace (R41: a seat with a joker is never blocked, R24);
            # one seen in the stock is turned up again first.
            move = self._spend(joker_wt, busy, 0)
            if move is not None:
                yield move, lv.card_ms, ""
            if (
                _JOKER_KEYS & m.pool
                and self._turns < (lv.patience + 1) * cycle
                and (m.stock_count or m.waste)
            ):
                yield _TURN, lv.turn_ms, "turn"
            if busy:
                yield None, max(1, min(busy.values()) - now_ms + 1), ""
        if m.nertz_count == 0:
            yield _CALL, lv.turn_ms, ""
        if not m.stuck[self.seat]:
            yield _STUCK, lv.card_ms, ""  # R25

    # ------------------------------------------------------------------ helpers

    def _known(self) -> Memory:
        if self.memory is None:
            raise RuntimeError("call begin(view) before anything else")
        return self.memory

    def _act(self, move: Move, mean_ms: int) -> Decision:
        return Decision(move, self.level.delay(self.rng, mean_ms))

    def _place(self, src: int, card: Card, keep_space: bool) -> Move | None:
        """Where ``card`` goes on the work piles: onto an end card (R17), slid under a
        head (R19), or into an empty space (R18) unless ``keep_space``."""
        m = self._known()
        work, plan, miss, rng = m.work, self.level.plan, self.level.overlook, self.rng
        rank, red = card.rank + 1, card.red
        jokers = self._jokers
        best = -1
        space = -1
        joker_end = -1
        for j in range(PILES):
            pile = work[j]
            if not pile:
                space = j
                continue
            end = pile[-1]
            if end.rank != rank or end.red == red:
                if jokers and end.rank == 0 and src == NERTZ and joker_end < 0:
                    joker_end = j  # anything lies on a joker (R41): kept for the Nertz card
                continue
            if plan >= 2 and src != NERTZ and end.key - 1 in m.wants:
                continue  # do not bury a card the middle takes next but one (R13)
            if rng.random() < miss:
                continue
            if best < 0 or (plan >= 2 and len(pile) < len(work[best])):
                best = j  # planners build on the shorter pile: runs stay movable
        if best >= 0:
            return Move.to_pile(src, best)
        if joker_end >= 0 and joker_end not in m.busy() and rng.random() >= miss:
            return Move.to_pile(src, joker_end)
        if space < 0:
            return None
        if plan >= 2:
            for j in range(PILES):
                pile = work[j]
                if pile:
                    head = pile[0]
                    if jokers and (head.rank == 0 or card.rank == 0):
                        # A joker head decides by its pin (R19, R41).
                        stands = pin(pile, 0) if head.rank == 0 else None
                        if lies_on(head, stands, card) and j not in m.busy():
                            return Move.under(src, j)
                        continue
                    if head.rank + 1 == card.rank and head.red != red:
                        return Move.under(src, j)
        if keep_space or rng.random() < miss:
            return None
        return Move.to_pile(src, space)

    def _rearranged(self, m: Memory, goal: int) -> Move | None:
        """A run move between the work piles toward ``goal`` (R17, R18): a landing for
        the Nertz card (``GOAL_LANDING``) or a card the middle takes bared
        (``GOAL_EXPOSE``). By the level's search (``Level.search``) when it has one and
        no joker is in play (R41), else by the fixed one-move patterns."""
        depth = self.level.search
        if depth and not self._jokers:
            return rearrangement(m.work, m.nertz_top, m.wants, depth, goal)
        return self._free_space() if goal == GOAL_LANDING else self._expose()

    def _free_space(self) -> Move | None:
        """A whole work pile that fits onto another's end card, moved to empty a space
        for the Nertz card (R17, R18)."""
        m = self._known()
        work = m.work
        if not all(work):
            return None
        if self._jokers:  # the same search by the joker rules (R41)
            busy = m.busy()
            for i in range(PILES):
                if i in busy:
                    continue
                head = work[i][0]
                stands = pin(work[i], 0) if head.rank == 0 else None
                for j in range(PILES):
                    if j != i and j not in busy and lies_on(head, stands, work[j][-1]):
                        return Move.to_pile(i, j, len(work[i]))
            return None
        for i in range(PILES):
            head = work[i][0]
            for j in range(PILES):
                if j != i:
                    end = work[j][-1]
                    if end.rank == head.rank + 1 and end.red != head.red:
                        return Move.to_pile(i, j, len(work[i]))
        return None

    def _expose(self) -> Move | None:
        """A run moved off a card the middle takes, onto another pile (R17)."""
        m = self._known()
        work, wants = m.work, m.wants
        jokers = self._jokers
        busy = m.busy() if jokers else {}
        for i in range(PILES):
            pile = work[i]
            if i in busy:
                continue
            for k in range(len(pile) - 1, 0, -1):
                below = pile[k - 1]
                if below.rank != 1 and below.key not in wants:
                    continue
                head = pile[k]
                stands = pin(pile, k) if jokers and head.rank == 0 else None
                for j in range(PILES):
                    if j != i and work[j]:
                        end = work[j][-1]
                        if jokers:
                            if j not in busy and lies_on(head, stands, end):
                                return Move.to_pile(i, j, len(pile) - k)
                        elif end.rank == head.rank + 1 and end.red != head.red:
                            return Move.to_pile(i, j, len(pile) - k)
                break
        return None

    # ------------------------------------------------------------------ jokers (R41)

    def _answer(self, now_ms: int) -> Move | None:
        """Another seat announced a joker as a card this seat holds in reach: play the
        real card to that foundation first, while the window is open (R41)."""
        m = self._known()
        me, lv = self.seat, self.level
        for seat, _src, _joker, key, foundation, until in m.announced:
            if seat == me or foundation < 0 or until - now_ms <= lv.floor_ms:
                continue  # an ace starts a new foundation: nothing to beat it to
            src = -1
            nt = m.nertz_top
            if nt is not None and nt.key == key:
                src = NERTZ
            else:
                for i in range(PILES):
                    pile = m.work[i]
                    if pile and pile[-1].key == key:
                        src = i
                        break
                else:
                    if m.waste and m.waste[-1].key == key:
                        src = WASTE
            if src >= 0 and self.rng.random() >= lv.overlook:
                return Move.to_foundation(src, foundation)
        return None

    def _announcement(self, src: int, need: int) -> Move | None:
        """The joker at ``src`` announced as the most useful card (R41), or None when
        no card is worth ``need``: 3 when the bot's Nertz card goes on it, 2 when a
        card it holds in reach does, 1 when one it has seen in its stock does, else 0.
        Never a card it holds in reach (it plays that itself); never one another
        joker is already announced as. At equal worth an ace comes first: it starts
        a new foundation, so no real card can beat it there."""
        m = self._known()
        held: dict[int, int] = dict.fromkeys(m.pool, 1)
        for pile in m.work:
            if pile and pile[-1].rank:
                held[pile[-1].key] = 2
        if m.waste and m.waste[-1].rank:
            held[m.waste[-1].key] = 2
        nt = m.nertz_top
        if nt is not None and nt.rank:
            held[nt.key] = 3
        taken = {a[3] for a in m.announced}
        best: tuple[int, int, int] | None = None
        best_key = 0
        for key in sorted(m.wants):
            if held.get(key, 0) < 2 and key not in taken:
                worth = held.get(key + 1, 0) if key & 15 < 13 else 0
                option = (worth, 0, -key)
                if best is None or option > best:
                    best, best_key = option, key
        for suit in _SUITS:
            key = suit * 16 + 1
            if held.get(key, 0) < 2:
                crowd = sum(1 for k in m.wants if k >> 4 == suit)
                option = (held.get(key + 1, 0), 1, -crowd)
                if best is None or option > best:
                    best, best_key = option, key
        if best is None or best[0] < need:
            return None
        card = Card.of(best_key & 15, _SUITS[best_key >> 4])
        return Move.announce(src, card, ANY)

    def _spend(self, joker_wt: Card | None, busy: dict[int, int], need: int) -> Move | None:
        """A joker on the waste or at a work pile's end announced, if one is worth
        ``need`` (``_announcement``)."""
        m = self._known()
        sources = [WASTE] if joker_wt is not None else []
        sources += [i for i in range(PILES) if m.work[i] and not m.work[i][-1].rank]
        for src in sources:
            if src in busy:
                continue
            move = self._announcement(src, need)
            if move is not None and self.rng.random() >= self.level.overlook:
                return move
        return None

    def _bridge(self, busy: dict[int, int]) -> Move | None:
        """The waste's joker laid on a work pile, as a landing for a Nertz card with
        nowhere to go (R41: anything lies on a joker)."""
        work = self._known().work
        if any(pile and pile[-1].rank == 0 for pile in work):
            return None  # a joker end already takes the Nertz card
        for j in range(PILES):
            if work[j] and j not in busy:
                return Move.to_pile(WASTE, j)
        return None

    def _situation(self, m: Memory, fruitless: bool) -> CallSituation:
        ready = 0
        for pile in m.work:
            if pile and (pile[-1].rank == 1 or pile[-1].key in m.wants):
                ready += 1
        wt = m.waste[-1] if m.waste else None
        if wt is not None and (wt.rank == 1 or wt.key in m.wants):
            ready += 1
        me = self.seat
        totals = self.totals
        hand = [m.middle[s] - self._penalty * m.nertz_counts[s] for s in range(m.seats)]
        others = [s for s in range(m.seats) if s != me]
        return CallSituation(
            ready_plays=ready,
            out_of_plays=fruitless,
            opponent_nertz=min((m.nertz_counts[s] for s in others), default=99),
            caller_bonus=self._bonus,
            my_total=totals[me] + hand[me] + self._bonus,
            best_other_total=max((totals[s] + hand[s] for s in others), default=-(10**9)),
            target=self._target,
        )
