"""One hand played by bots in virtual time: the discrete-event loop.

Each seat has its own clock: the time its next action lands. The loop always takes
the earliest due action (seats in order on equal times), sends it to the engine with
that virtual time (``Hand.play(seat, move, at_ms)``), tells every bot what happened,
and lets ``Hand.tick`` see the time pass, so foundation races (R16), landings after a
call (R28), blocked and idle tables (R24-R26) happen as they would at a real table.

The table also has its own timer, so nothing waits for a bot to act:
``Hand.next_deadline()``, the end of the landing window after a call (R28), the
engine's next look for an all-blocked table (``SETTLE_MS`` after the last card moved,
R25) and the idle deadline (``idle_rotate_s``). A stock turn that may have blocked a
seat (turning past a waste card that only its current place made reachable, R24) makes
the look due at once: the loop ticks right after such a turn.

A joker's announcement window (R41) is one more of those deadlines: when it ends the
joker lands or stays home, which every bot hears; pending moves stand (only a rotation
makes the seats look again).

Each bot is driven by a ``nertz.bots.Driver``, the same driver the server uses: its
committed move, when it lands, and at a partnership table (R40) the choosing around
the partner and the hold on its own move's source. Bots get views and events only;
the loop is the only code that holds the ``Hand``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from nertz.bots import Bot, Driver, role_for
from nertz.engine import (
    CardsMoved,
    Deal,
    EndReason,
    Event,
    Hand,
    Holds,
    JokerAnnounced,
    JokerStayed,
    Kind,
    Outcome,
    Refusal,
    Rotated,
    Rules,
    deal,
    view,
)

from .results import HandResult

__all__ = ["MAX_HAND_MS", "HandResult", "play_hand"]

MAX_HAND_MS = 3 * 3600 * 1000
"""A hand still going after three virtual hours is a deadlock: the loop raises."""


def play_hand(
    bots: Sequence[Bot],
    rules: Rules,
    seed: int,
    totals: Sequence[int] = (),
    fixed: Deal | None = None,
    partners: Sequence[Bot] = (),
    keep_log: bool = False,
    watch: Callable[[Hand], None] | None = None,
) -> HandResult:
    """Deal a hand from ``seed`` (or play the ``fixed`` deal, for tests and puzzles)
    and let ``bots`` play it to its end. ``partners`` (a partnership table, R40) is
    each seat's second bot: ``bots[s]`` watches the Nertz pile and ``partners[s]``
    turns the stock (``nertz.bots.roles``), each with its own clock. ``keep_log``: the
    result keeps the deal and the hand's log. ``watch`` is given the live hand once
    dealt."""
    n = len(bots)
    paired = bool(partners)
    if paired and len(partners) != n:
        raise ValueError(f"{n} seats but {len(partners)} partners: every seat needs two bots")
    hand = Hand(fixed or deal(n, rules, seed), rules)
    if watch is not None:  # tests read the live hand (its full state) as the bots play
        watch(hand)
    # One driver per hand at the table: seat-major, partner 0 first (seat order alone
    # at a table without partnerships).
    drivers: list[Driver] = []
    for seat in range(n):
        drivers.append(Driver(bots[seat]))
        if paired:
            drivers.append(Driver(partners[seat], 1))
    for driver in drivers:
        driver.begin(view(hand, driver.seat), totals)
    # Events go straight to the bots: ``Driver.observe`` adds nothing to it, and a call
    # fewer per bot per play is about 3% of the simulator's time.
    everyone = [driver.bot for driver in drivers]
    start = hand.start(0)
    _announce(everyone, start.events)
    count = len(drivers)
    races = [0] * n
    ties = [0] * n
    clashes = [0] * n
    turns = [0] * count
    moves = [0] * count
    bad: list[str] = []
    jokers = rules.jokers
    # Per seat: jokers announced, landed, stayed home; real cards that beat a joker.
    tally = [[0] * n for _ in range(4)] if jokers else []
    holds = Holds(n)
    table = _Actors(drivers, holds, paired)
    for a in range(count):
        table.plan(a, 0)
    due = table.due
    while True:
        # The next hand due (the lowest seat, then partner, on equal times) ...
        a = 0
        t = due[0]
        for i in range(count):
            if due[i] < t:
                a, t = i, due[i]
        driver = drivers[a]
        seat = driver.seat
        # ... unless the table's own timer comes first (``Hand.next_deadline``): the end
        # of the landing window (R28), a look for an all-blocked table or the idle
        # rotation (R25).
        deadline = hand.next_deadline()
        if deadline is not None and deadline <= t:
            events = hand.tick(deadline).events
            if jokers and events:
                _count_jokers(events, tally)
            if hand.over:
                break
            if events:
                _announce(everyone, events)
                if not jokers or any(type(e) is Rotated for e in events):
                    table.restart(deadline)
            continue
        if t > MAX_HAND_MS:
            raise RuntimeError(f"hand {seed} did not end after {MAX_HAND_MS} ms (deadlock)")
        move = driver.move
        rotated = False
        if move is not None:
            outcome = holds.check(seat, driver.partner, move) if paired else _FREE
            if outcome.ok:
                outcome = hand.play(seat, move, t)
            if outcome.ok:
                table.played(a, t)
                if move.kind is Kind.TURN:
                    turns[a] += 1
                elif move.kind is not Kind.CALL and move.kind is not Kind.STUCK:
                    moves[a] += 1
                events = outcome.events
                if jokers:
                    _count_jokers(events, tally)
                    played = events[0]
                    if hand.announcements and isinstance(played, CardsMoved):
                        # A real card onto a foundation another seat's joker is
                        # announced for, as that card: the joker will stay home (R41).
                        key = played.cards[0].key
                        tally[3][seat] += move.kind is Kind.FOUNDATION and any(
                            a.foundation == played.foundation
                            and a.move.card == key
                            and a.seat != seat
                            for a in hand.announcements
                        )
                _announce(everyone, events)
                for event in events:
                    if type(event) is CardsMoved:
                        if event.tie:
                            ties[seat] += 1
                    elif type(event) is Rotated:
                        rotated = True
                deadline = hand.next_deadline()
                if move.kind is Kind.TURN and deadline is not None and deadline <= t:
                    # Turning past a waste card that only its current place made
                    # reachable can leave the seat blocked (R24): the table looks again
                    # at once, before this seat decides.
                    later = hand.tick(t).events
                    if jokers and later:
                        _count_jokers(later, tally)
                    if later:
                        _announce(everyone, later)
                        rotated = True
            else:
                code = outcome.code
                assert code is not None
                wrong = driver.refused(move, code)
                if code is Refusal.BEATEN:
                    races[seat] += 1
                elif wrong:  # a refusal a correct bot does not meet
                    if code is not Refusal.PARTNER_HOLDS and table.partner_moved(a):
                        clashes[seat] += 1  # R40: the partner's card got there first
                    else:
                        bad.append(f"{seat} {move} {code.value}")
                    driver.resync(view(hand, seat))
        if hand.over:
            break
        if rotated:
            table.restart(t)
        else:
            table.plan(a, t)
    scores = hand.scores()
    return HandResult(
        scores=tuple(s.score for s in scores),
        middle=tuple(s.middle for s in scores),
        nertz_left=tuple(s.nertz_left for s in scores),
        caller=hand.caller if hand.end_reason is EndReason.CALLED else None,
        races_lost=tuple(races),
        ties=tuple(ties),
        length_ms=hand.now,
        rotations=hand.rotations_total,
        blocked=hand.end_reason is EndReason.BLOCKED,
        bad=tuple(bad),
        clashes=tuple(clashes),
        turns=tuple(turns),
        card_moves=tuple(moves),
        jokers_announced=tuple(tally[0]) if jokers else (),
        jokers_landed=tuple(tally[1]) if jokers else (),
        jokers_stayed=tuple(tally[2]) if jokers else (),
        answers=tuple(tally[3]) if jokers else (),
        deal=hand.deal if keep_log else None,
        log=tuple(hand.log) if keep_log else (),
    )


def _count_jokers(events: Sequence[Event], tally: list[list[int]]) -> None:
    """Jokers announced, landed and sent home per seat (R41)."""
    for event in events:
        if isinstance(event, JokerAnnounced):
            tally[0][event.seat] += 1
        elif isinstance(event, CardsMoved) and event.move.kind is Kind.ANNOUNCE:
            tally[1][event.seat] += 1
        elif isinstance(event, JokerStayed):
            tally[2][event.seat] += 1


class _Actors:
    """When each hand's committed move lands (``due``, by driver), and when each last
    played, which tells a clash of two partners' hands (R40) from a bot bug."""

    def __init__(self, drivers: list[Driver], holds: Holds, paired: bool):
        self.drivers = drivers
        self.holds = holds
        self.paired = paired
        # Seat-major pairs: a partner's driver is the one beside it.
        self.mates = [drivers[a ^ 1] for a in range(len(drivers))] if paired else []
        self.roles = [role_for(d.partner) for d in drivers] if paired else []
        self.due = [0] * len(drivers)
        self.last_play = [-1] * len(drivers)

    def plan(self, a: int, t: int) -> None:
        if self.paired:
            driver = self.drivers[a]
            self.due[a] = driver.plan_beside(t, self.holds, self.mates[a], self.roles[a])
        else:
            self.due[a] = self.drivers[a].plan(t)

    def played(self, a: int, t: int) -> None:
        self.last_play[a] = t
        if self.paired:
            driver = self.drivers[a]
            self.holds.drop(driver.seat, driver.partner)

    def partner_moved(self, a: int) -> bool:
        """Did ``a``'s partner play since ``a`` decided (a clash of two hands, R40)?"""
        return self.paired and self.last_play[a ^ 1] >= self.drivers[a].decided_at

    def restart(self, t: int) -> None:
        """After a rotation (R25) play resumes: every hand drops the move it was about
        to make (its stock and waste changed under it) and looks again."""
        self.holds.clear()
        for driver in self.drivers:
            driver.stop()
        for a in range(len(self.drivers)):
            self.plan(a, t)


_FREE = Outcome(True)


def _announce(bots: Sequence[Bot], events: Sequence[Event]) -> None:
    for bot in bots:
        bot.observe(events)
