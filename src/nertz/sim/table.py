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

Bots get views and events only (``Bot.begin``, ``observe``, ``refused``); the loop is
the only code that holds the ``Hand``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nertz.bots import Bot, Decision
from nertz.engine import (
    LATE_REFUSALS,
    CardsMoved,
    Deal,
    EndReason,
    Event,
    Hand,
    JokerAnnounced,
    JokerStayed,
    Kind,
    Refusal,
    Rotated,
    Rules,
    deal,
    view,
)

__all__ = ["EXPECTED_REFUSALS", "MAX_HAND_MS", "HandResult", "play_hand"]

EXPECTED_REFUSALS = LATE_REFUSALS  # the engine's list, named for this module's readers
"""Refusals a correct bot still meets: a lost race (R16) and a move that arrives after
somebody called (R28). Any other refusal is a bot bug."""

MAX_HAND_MS = 3 * 3600 * 1000
"""A hand still going after three virtual hours is a deadlock: the loop raises."""


@dataclass(frozen=True, slots=True)
class HandResult:
    """What one hand produced, per seat and for the table."""

    scores: tuple[int, ...]
    middle: tuple[int, ...]
    nertz_left: tuple[int, ...]
    caller: int | None
    """The seat that called (R27), None when the hand ended blocked (R26)."""
    races_lost: tuple[int, ...]
    """Plays refused ``beaten`` per seat (R16)."""
    ties: tuple[int, ...]
    """True ties per seat: cards that landed on a rank already there (R16)."""
    length_ms: int
    """Virtual time from Go to the end of the hand."""
    rotations: int
    blocked: bool
    """Ended with no call, still blocked after the rotations allowed (R26)."""
    bad: tuple[str, ...] = ()
    """Unexpected refusals, as ``seat move code``; empty for correct bots."""
    jokers_announced: tuple[int, ...] = ()
    """Jokers each seat announced for the middle (R41); empty with jokers off."""
    jokers_landed: tuple[int, ...] = ()
    """Of those, the ones that landed."""
    jokers_stayed: tuple[int, ...] = ()
    """Of those, the ones that stayed home: the real card got there first, or the joker
    left its pile (R41)."""
    answers: tuple[int, ...] = ()
    """Real cards each seat played to a foundation while another seat's joker was
    announced there as that card: the answers that sent a joker home (R41)."""


def play_hand(
    bots: Sequence[Bot],
    rules: Rules,
    seed: int,
    totals: Sequence[int] = (),
    fixed: Deal | None = None,
) -> HandResult:
    """Deal a hand from ``seed`` (or play the ``fixed`` deal, for tests and puzzles)
    and let ``bots`` play it to its end."""
    n = len(bots)
    hand = Hand(fixed or deal(n, rules, seed), rules)
    for seat, bot in enumerate(bots):
        bot.begin(view(hand, seat), totals)
    start = hand.start(0)
    for bot in bots:
        bot.observe(start.events)
    races = [0] * n
    ties = [0] * n
    jokers = rules.jokers
    # Per seat: jokers announced, landed, stayed home; real cards that beat a joker.
    tally = [[0] * n for _ in range(4)] if jokers else []
    bad: list[str] = []
    due = [0] * n
    pending = [bot.decide(0) for bot in bots]
    for seat, decision in enumerate(pending):
        due[seat] = max(1, decision.delay_ms)
    seats = range(n)
    while True:
        # The next seat due (the lowest seat on equal times) ...
        seat = 0
        t = due[0]
        for s in seats:
            if due[s] < t:
                seat, t = s, due[s]
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
                _announce(bots, events)
                if not jokers or any(type(e) is Rotated for e in events):
                    _restart(bots, pending, due, deadline)
            continue
        if t > MAX_HAND_MS:
            raise RuntimeError(f"hand {seed} did not end after {MAX_HAND_MS} ms (deadlock)")
        move = pending[seat].move
        rotated = False
        if move is not None:
            outcome = hand.play(seat, move, t)
            if outcome.ok:
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
                _announce(bots, events)
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
                        _announce(bots, later)
                        rotated = True
            else:
                code = outcome.code
                assert code is not None
                bots[seat].refused(move, code)
                if code is Refusal.BEATEN:
                    races[seat] += 1
                elif code not in EXPECTED_REFUSALS:
                    bad.append(f"{seat} {move} {code.value}")
                    bots[seat].resync(view(hand, seat))
        if hand.over:
            break
        if rotated:
            _restart(bots, pending, due, t)
        else:
            decision = bots[seat].decide(t)
            pending[seat] = decision
            due[seat] = t + max(1, decision.delay_ms)
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
        jokers_announced=tuple(tally[0]) if jokers else (),
        jokers_landed=tuple(tally[1]) if jokers else (),
        jokers_stayed=tuple(tally[2]) if jokers else (),
        answers=tuple(tally[3]) if jokers else (),
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


def _announce(bots: Sequence[Bot], events: Sequence[Event]) -> None:
    for bot in bots:
        bot.observe(events)


def _restart(bots: Sequence[Bot], pending: list[Decision], due: list[int], t: int) -> None:
    """After a rotation (R25) play resumes: every seat drops the move it was about to
    make (its stock and waste changed under it) and looks again."""
    for seat, bot in enumerate(bots):
        decision = bot.decide(t)
        pending[seat] = decision
        due[seat] = t + max(1, decision.delay_ms)
