"""Property-based tests: random legal play from random deals must keep every rule.

Hypothesis draws a deal (seed, 2-8 seats, R2), table options (draw, nertz_pile,
tie_window_ms, landing_ms, idle_rotate_s, max_rotations, penalty, caller_bonus, jokers
and joker_announce_ms, R41) and a list of steps. Each step moves time forward (never
back) by nothing, a few ms (inside a tie window, R16), a few seconds (the settle time of
an all-blocked table, R25) or a long jump (idle rotations, R25, and the end of a blocked
hand, R26), then does one of:

* a legal move of one seat, chosen greedily (middle first, then the Nertz card, then the
  waste, then turn) or at random, so hands reach calls (R27, R28) as well as odd corners;
* a probe: any syntactically possible move text, mostly refused, sometimes a true tie;
* ``tick`` (time passing);
* ``STUCK`` or ``NERTZ``.

With ``partners``, each seat is a partnership (R40): every step is one partner's, who
may first pick up a card, and every move passes ``Holds.check`` before ``play``.

Each test checks one family of properties after every step, so that a failure in one
family does not hide the others. ``now`` is left out of snapshot comparisons: it is the
time of the latest input, and time passing is not a change to the game (refused plays
and ticks without events move it but are not logged).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st

from nertz.engine import (
    MAX_SEATS,
    Card,
    CardsMoved,
    Deal,
    EndReason,
    Hand,
    Holds,
    JokerAnnounced,
    Kind,
    Move,
    Outcome,
    Phase,
    Refusal,
    Rules,
    Suit,
    deal,
    describe,
    full_deck,
    replay,
    spectator_view,
    view,
)
from nertz.engine.blocked import is_blocked as search_blocked
from nertz.engine.moves import MAX_FOUNDATIONS, NERTZ, WASTE

SHRINK = os.environ.get("NERTZ_SHRINK") == "1"
"""Shrinking a failing hand takes minutes (a call needs a long game); off unless asked."""

PROPERTY_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    phases=(Stage.explicit, Stage.reuse, Stage.generate, *([Stage.shrink] if SHRINK else [])),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

MIN_STEPS = 100
MAX_STEPS = 300
RED = (Suit.HEARTS, Suit.DIAMONDS)

# ---------------------------------------------------------------- strategies

OPTIONS = st.fixed_dictionaries(
    {
        "draw": st.sampled_from([3, 1]),
        "nertz_pile": st.sampled_from([13, 12, 11]),
        "tie_window_ms": st.sampled_from([40, 0, 200]),
        "landing_ms": st.sampled_from([250, 0, 1000]),
        "idle_rotate_s": st.sampled_from([30, 0, 1]),
        "max_rotations": st.sampled_from([1, 0, 2, 3]),
        "penalty": st.sampled_from([2, 1]),
        "caller_bonus": st.sampled_from([0, 10, 25]),
        "jokers": st.booleans(),
        "joker_announce_ms": st.sampled_from([1500, 0, 200]),
    }
)

STEP = st.integers(0, (1 << 50) - 1)
"""One step, packed in one integer (one draw is much cheaper than five); 0 is a step
that waits, so shrinking turns unneeded steps into waits. See ``decode``."""


def decode(step: int) -> tuple[int, int, int, int, int]:
    """(action 0-99, seat 0-7, time class 0-99, pick, raw time) of a packed step."""
    step, action = divmod(step, 100)
    step, seat = divmod(step, 8)
    step, time_kind = divmod(step, 100)
    raw, pick = divmod(step, 1 << 16)
    return action, seat, time_kind, pick, raw


@dataclass(frozen=True)
class Game:
    seed: int
    seats: int
    rules: Rules
    steps: list[int]


GAMES = st.builds(
    Game,
    seed=st.integers(0, 10_000),
    seats=st.integers(2, 8),
    rules=OPTIONS.map(lambda options: Rules().with_options(**options)),
    steps=st.lists(STEP, min_size=MIN_STEPS, max_size=MAX_STEPS),
)


# ---------------------------------------------------------------- the driver


def move_texts(foundations: int, runs: int = 13, jokers: tuple[str, ...] = ()) -> list[str]:
    """Every syntactically possible move text with foundations F1 to F{foundations} and
    runs of 1 to ``runs`` cards, and every announcement (R41) of the sources ``jokers``."""
    texts = ["T", "NERTZ", "STUCK"]
    for src in jokers:
        for card in full_deck(0):
            texts.append(f"{src}>F={card}")
            texts += [f"{src}>F{n}={card}" for n in range(1, foundations + 1)]
    for src in ["N", "W", "1", "2", "3", "4"]:
        texts.append(f"{src}>F")
        texts += [f"{src}>F{n}" for n in range(1, foundations + 1)]
        texts += [f"{src}<{dst}" for dst in range(1, 5)]
        if src in "NW":
            texts += [f"{src}>{dst}" for dst in range(1, 5)]
        else:
            for dst in range(1, 5):
                texts += [
                    f"{src}/{n}>{dst}" if n > 1 else f"{src}>{dst}" for n in range(1, runs + 1)
                ]
    return texts


PROBES = [Move.parse(text) for text in move_texts(MAX_FOUNDATIONS)]
PROBES += [
    Move.parse(f"{src}>F{n}={card}")
    for src in "NW14"
    for n in ("", "1", "2")
    for card in ("AH", "2C", "7D", "KS")
]
FOUNDATION_PROBES = [m for m in PROBES if m.kind is Kind.FOUNDATION]


def greedy(moves: list[Move]) -> Move | None:
    """Middle first (the Nertz card before others), then the Nertz card, then the waste,
    then turn: a seat that plays like this empties its Nertz pile and calls (R27)."""
    best, best_rank = None, 9
    for move in moves:
        if move.kind is Kind.CALL:
            return move
        if move.kind in (Kind.FOUNDATION, Kind.ANNOUNCE):
            rank = 0 if move.src == NERTZ else 1
        elif move.kind in (Kind.PILE, Kind.UNDER) and move.src == NERTZ:
            rank = 2
        elif move.kind in (Kind.PILE, Kind.UNDER) and move.src == WASTE:
            rank = 3
        elif move.kind is Kind.TURN:
            rank = 4
        else:
            continue
        if rank < best_rank:
            best, best_rank = move, rank
    return best


def time_step(kind: int, raw: int) -> int:
    """How far time moves before a step: never back (R8's clock only runs forward)."""
    if kind < 30:
        return 0
    if kind < 65:
        return raw % 50  # inside the default tie window (R16)
    if kind < 90:
        return raw % 3000  # the settle time of an all-blocked table (R25)
    if kind < 97:
        return 1000 + raw % 40_000  # the idle rotation (R25)
    return 30_000 + raw % 300_000  # idle rotations and the end of a blocked spell (R26)


Check = Callable[["Table", int], None]


class Table:
    """A hand driven by a hypothesis-drawn list of steps.

    With ``mirror``, every input is also given to a copy made just before it, and the
    two states must agree afterwards (``Hand.copy`` is faithful).
    """

    def __init__(self, game: Game, mirror: bool = False, partners: bool = False) -> None:
        self.game = game
        self.hand = Hand(deal(game.seats, game.rules, game.seed), game.rules)
        self.mirror = mirror
        self.holds = Holds(game.seats) if partners else None
        self.partner = 0
        """The partner (R40) whose step this is."""
        self.now = 0
        self.index = -1
        """The number of the step being played (-1 before the first)."""
        self.stats: Counter[str] = Counter()

    def run(self, check: Check, probe: Check | None = None) -> Hand:
        """Play every step (stopping when the hand is over); ``check`` after each step,
        ``probe`` before each step (it may try moves on the hand itself)."""
        hand = self.hand
        note(f"deal: seed={self.game.seed} seats={self.game.seats} {self.game.rules.changed()}")
        hand.start(0)
        check(self, -1)
        for index, packed in enumerate(self.game.steps):
            action, seat_pick, time_kind, pick, raw = decode(packed)
            if hand.over:
                break
            self.index = index
            self.now += time_step(time_kind, raw)
            seat = seat_pick % len(hand.seats)
            if probe is not None:
                probe(self, seat)
            self.step(action, seat, pick)
            check(self, seat)
        if not hand.over:
            self.now += 1
            self.tick()  # a last tick: the hand may end by its landing window (R28)
            check(self, -1)
        game_over_stats(self)
        return hand

    def step(self, action: int, seat: int, pick: int) -> None:
        hand = self.hand
        if action == 0:
            return  # wait: nobody is ever forced to play (R9); shrinking ends here
        if self.holds is not None:
            self.partner = (pick >> 12) & 1
            self.pick_up(seat, (pick >> 13) % 8)
        if action < 40:
            # A greedy burst: up to 8 moves of one seat, a millisecond or none apart; half
            # the time a card goes to "whichever foundation takes it" (X>F, R13).
            for k in range(1 + pick % 8):
                move = greedy(hand.legal_moves(seat))
                if move is None or hand.over:
                    break
                if move.kind is Kind.FOUNDATION and pick & 0x100:
                    move = Move.to_foundation(move.src)
                self.now += (pick >> k) & 1
                self.play(seat, move)
        elif action < 60:
            moves = hand.legal_moves(seat)
            if moves:
                self.play(seat, moves[pick % len(moves)])
            else:
                self.tick()
        elif action < 72:
            self.play(seat, probe_move(hand, seat, pick))
        elif action < 88:
            self.tick()
        elif action < 94:
            self.play(seat, Move.parse("STUCK"))
        else:
            self.play(seat, Move.parse("NERTZ"))

    def pick_up(self, seat: int, choice: int) -> None:
        """R40: the partner picks up a source (0-5), or (6, 7) puts their card down; a
        source the other partner holds is refused to them."""
        assert self.holds is not None
        if choice > WASTE:
            self.holds.drop(seat, self.partner)
            return
        other = self.holds.held(seat)[1 - self.partner]
        outcome = self.holds.pick(seat, self.partner, choice)
        assert outcome.ok == (other != choice), f"pick {choice} with the partner on {other}"
        self.stats[f"pick {'ok' if outcome.ok else outcome.code}"] += 1

    def play(self, seat: int, move: Move) -> None:
        if self.holds is not None:
            # R40: a move that takes or covers the card the other partner holds is
            # refused before the engine sees it; any other goes on as the seat's.
            other = self.holds.held(seat)[1 - self.partner]
            takes = other is not None and (
                other == move.src
                if move.kind in (Kind.FOUNDATION, Kind.ANNOUNCE)
                else other in (move.src, move.dst)
                if move.kind in (Kind.PILE, Kind.UNDER)
                else other == WASTE and move.kind is Kind.TURN
            )
            verdict = self.holds.check(seat, self.partner, move)
            assert verdict.ok != takes, f"{move} with the partner holding {other}: {verdict}"
            if not verdict.ok:
                assert verdict.code is Refusal.PARTNER_HOLDS and "partner" in verdict.reason
                self.stats["partner_holds"] += 1
                return
        twin = self.hand.copy() if self.mirror else None
        outcome = self.hand.play(seat, move, self.now)
        if outcome.ok and self.holds is not None:
            self.holds.drop(seat, self.partner)  # played: the partner's hand is empty
        note(f"{self.now} ms seat {seat} {move}: {outcome}")
        self.stats[f"{move.kind.name} {'ok' if outcome.ok else outcome.code}"] += 1
        for e in outcome.events:
            self.stats[type(e).__name__ + ("(tie)" if getattr(e, "tie", False) else "")] += 1
        if twin is not None:
            assert twin.play(seat, move, self.now) == outcome, f"copy: {move} differs"
            assert without_now(twin.snapshot()) == without_now(self.hand.snapshot()), (
                f"the copy diverged after {move}"
            )

    def tick(self) -> None:
        twin = self.hand.copy() if self.mirror else None
        outcome = self.hand.tick(self.now)
        if outcome.events:
            note(f"{self.now} ms tick: {[type(e).__name__ for e in outcome.events]}")
        for e in outcome.events:
            self.stats[type(e).__name__] += 1
        if twin is not None:
            assert twin.tick(self.now) == outcome, "copy: tick differs"
            assert without_now(twin.snapshot()) == without_now(self.hand.snapshot()), (
                "the copy diverged after a tick"
            )


def probe_move(hand: Hand, seat: int, pick: int) -> Move:
    """Any move text at all; or (one time in four) a card to whichever foundation takes
    it (``X>F``); or (one in four) a race for a foundation: a card of the same suit and
    rank as a foundation's top, played onto it (a true tie within ``tie_window_ms``, else
    beaten, R16)."""
    if pick % 4 == 1:
        return Move.to_foundation((pick // 4) % 6)
    if pick % 4 == 0:
        layout = hand.seats[seat]
        sources = [(NERTZ, layout.nertz), (WASTE, layout.waste), *enumerate(layout.work)]
        races = [
            Move.to_foundation(src, f.number)
            for src, pile in sources
            if pile
            for f in hand.foundations
            if f.suit == pile[-1].suit and f.top_rank == pile[-1].rank
        ]
        if races:
            return races[pick // 4 % len(races)]
    pool = FOUNDATION_PROBES if pick % 4 == 2 else PROBES
    return pool[(pick // 4) % len(pool)]


def game_over_stats(table: Table) -> None:
    hand = table.hand
    event(f"seats={len(hand.seats)}")
    event(f"end={hand.end_reason.value if hand.end_reason else hand.phase.value}")
    event(f"steps={len(table.game.steps) // 50 * 50}+")
    event(f"jokers={hand.rules.jokers}")
    for name in (
        "Called",
        "Rotated",
        "CardsMoved(tie)",
        "SaidStuck",
        "HandEnded",
        "JokerAnnounced",
        "JokerStayed",
    ):
        if table.stats[name]:
            event(f"saw {name}")


def canonical(text: str, outcome: Outcome) -> str:
    """The listed form of an accepted move: ``X>F`` (whichever foundation takes it) is
    listed under the foundation it lands on, except for an ace, which starts a new one
    (R12)."""
    if ">F=" in text and outcome.events:
        announced = outcome.events[0]
        assert isinstance(announced, JokerAnnounced)
        return announced.move.text  # R41: the foundation it is announced for is named
    if text.endswith(">F") and outcome.events:
        moved = outcome.events[0]
        assert isinstance(moved, CardsMoved)
        if moved.cards[0].rank != 1:
            return f"{text}{moved.foundation + 1}"
    return text


def without_now(snapshot: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in snapshot.items() if k != "now"}


# ---------------------------------------------------------------- the checks


DECKS = {jokers: sorted(card.key for card in full_deck(0, jokers)) for jokers in (False, True)}
"""The 52 cards of a deck (54 with jokers, R41) by suit and rank (``Card.key``), the same
for every owner."""


def check_cards(hand: Hand) -> None:
    """R1, R11, R29, R41: each seat's 52 cards (54 with jokers) are all present exactly
    once, in its own layout or in the middle, where every card carries its owner."""
    in_middle: list[list[Card]] = [[] for _ in hand.seats]
    for f in hand.foundations:
        for card in f.cards:
            assert 0 <= card.owner < len(hand.seats), card.tagged
            in_middle[card.owner].append(card)
    for seat, layout in enumerate(hand.seats):
        own = layout.cards()
        assert all(card.owner == seat for card in own), f"seat {seat} holds another's card"
        deck = DECKS[hand.rules.jokers]
        assert sorted(c.key for c in own + in_middle[seat]) == deck, f"seat {seat}'s deck"
        assert hand.middle[seat] == len(in_middle[seat]), "hand.middle miscounts (R29)"


def check_foundations(hand: Hand) -> None:
    """R12, R13, R15, R16: a foundation starts with an ace and runs up in its suit by
    one; an equal rank next to each other only as a true tie of different owners. R41: a
    joker there stands for the card announced for it, and only a joker does."""
    for number, f in enumerate(hand.foundations):
        cards = [f.stands_for(i) for i in range(len(f.cards))]
        assert all(f.cards[i].is_joker for i in f.jokers), f"F{number + 1}: a joker entry"
        assert all(c.is_joker == (i in f.jokers) for i, c in enumerate(f.cards))
        where = f"F{number + 1} {' '.join(f.texts())}"
        assert f.number == number, where
        assert cards[0].rank == 1 and cards[0].suit == f.suit, where
        assert f.top_rank == cards[-1].rank, where
        owners_at: dict[int, set[int]] = {}
        for below, above in pairwise(cards):
            assert above.suit == f.suit, where
            assert above.rank in (below.rank, below.rank + 1), where
        for card in cards:
            owners = owners_at.setdefault(card.rank, set())
            assert card.owner not in owners, f"{where}: one owner twice at one rank"
            owners.add(card.owner)
        # The index of what each foundation takes next (R13) agrees with the piles.
        wanted = [g for key, fs in hand.wants.items() for g in fs if g is f]
        if f.top_rank < 13:
            assert wanted == [f] and f in hand.wants[f.needs], where
        else:
            assert wanted == [], f"{where}: a finished foundation takes nothing (R15)"


def check_work_piles(hand: Hand) -> None:
    """R5, R17: work piles build down by one rank in alternating colours; R41: a joker
    may lie on anything and anything on a joker."""
    for seat, layout in enumerate(hand.seats):
        assert len(layout.work) == 4, "R5: four work piles"
        for number, pile in enumerate(layout.work, 1):
            for upper, lower in pairwise(pile):
                if upper.is_joker or lower.is_joker:
                    continue
                assert lower.rank + 1 == upper.rank, f"seat {seat} pile {number}: {pile}"
                assert (lower.suit in RED) != (upper.suit in RED), f"seat {seat} pile {number}"


def check_scores(hand: Hand) -> None:
    """R29-R31: middle count minus penalty per Nertz card left, plus the caller bonus
    when the hand ends by a call (R26: none when it ends blocked)."""
    rules = hand.rules
    if hand.over:
        assert (hand.end_reason is EndReason.CALLED) == (hand.caller is not None)
    counts = Counter(c.owner for f in hand.foundations for c in f.cards)
    for seat, got in enumerate(hand.scores()):
        bonus = rules.caller_bonus if seat == hand.caller else 0
        expected = counts[seat] - rules.penalty * len(hand.seats[seat].nertz) + bonus
        assert (got.middle, got.nertz_left, got.bonus, got.score) == (
            counts[seat],
            len(hand.seats[seat].nertz),
            bonus,
            expected,
        ), f"seat {seat}"


def check_hand(hand: Hand) -> None:
    """The rules every state of a hand keeps: cards, foundations, work piles, scores."""
    check_cards(hand)
    check_foundations(hand)
    check_work_piles(hand)
    check_scores(hand)


HIDDEN_KEYS = ("stock", "seed", "deal", "log", "nertz")
"""Keys no view may have: a stock's order, the deal, the log, a Nertz pile's cards."""

CARD_TEXT = {
    form: card.key
    for card in full_deck(0, jokers=True)
    for form in (str(card), card.symbol, *(f"{card}@{o}" for o in range(MAX_SEATS)))
}
"""Every text a card may appear as in a view, to its suit and rank."""


KEY = re.compile(r'"([^"]*)": ')
"""A key in ``json.dumps`` output (values are followed by ``,``, ``]`` or ``}``)."""


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def check_view(hand: Hand, data: dict[str, Any]) -> None:
    """R4, R6, R21: a view shows the Nertz pile's top and its size, the stock's size
    only, and the waste's top; never a face-down card, even to its owner. Each seat has
    its own deck, so a seat's hidden cards are looked for in its own part of the view."""
    keys = set(KEY.findall(json.dumps(data)))
    assert not keys & set(HIDDEN_KEYS), "a view holds a stock, deck, log or Nertz pile"
    for seat, (section, layout) in enumerate(zip(data["seats"], hand.seats, strict=True)):
        hidden = {card.key for card in layout.nertz[:-1] + layout.stock}
        for text in _strings(section):
            key = CARD_TEXT.get(text)
            assert key is None or key not in hidden, f"seat {seat} shows a face-down {text}"
        assert section["stock_count"] == len(layout.stock)
        assert section["nertz_count"] == len(layout.nertz)
        assert section["nertz_top"] == (str(layout.nertz[-1]) if layout.nertz else None)
        if layout.waste:
            assert section["waste"][-1:] == [str(layout.waste[-1])], "R21: the top is in play"
        assert section["pinned"] == [
            [describe(stands_for(pile, i)) if c.is_joker else None for i, c in enumerate(pile)]
            for pile in layout.work
        ], f"seat {seat}: a pinned joker shown wrong (R41)"


def stands_for(pile: list[Card], index: int) -> tuple[int, bool] | None:
    """R41, worked out afresh: a joker stands for the card one above and of the other
    colour from the first real card lying on it, stepping one rank and one colour per
    joker between them; with no real card on it, it is free."""
    for distance, card in enumerate(pile[index + 1 :], 1):
        if not card.is_joker:
            return card.rank + distance, card.red ^ (distance % 2 == 1)
    return None


def check_views(hand: Hand, seats: range | list[int]) -> None:
    check_view(hand, spectator_view(hand))
    for seat in seats:
        check_view(hand, view(hand, seat))


def check_blocked(hand: Hand) -> None:
    """R24: a seat with a card it can send to the middle, or its Nertz or waste card a
    legal place to go, is not blocked."""
    for seat in range(len(hand.seats)):
        progress = [
            m
            for m in hand.legal_moves(seat)
            if m.kind in (Kind.FOUNDATION, Kind.ANNOUNCE)
            or (m.kind in (Kind.PILE, Kind.UNDER) and m.src >= NERTZ)
        ]
        if progress:
            assert not hand.is_blocked(seat), f"seat {seat} can play {progress[0]} (R24)"


def check_blocked_cache(hand: Hand, seats: range | list[int]) -> None:
    """R24: the hand's cached answer is always what a fresh search says (the cache
    survives turns of the stock, which must never leave it stale)."""
    if hand.over:
        return
    for seat in seats:
        fresh = search_blocked(hand.seats[seat], hand.wants, hand.rules.draw, hand.rules.jokers)
        assert hand.is_blocked(seat) == fresh, f"seat {seat}: cached blocked answer is stale"


# ---------------------------------------------------------------- the tests


@PROPERTY_SETTINGS
@given(GAMES)
def test_every_step_keeps_cards_foundations_piles_scores_and_views(game: Game) -> None:
    """R1, R4-R6, R11-R17, R21, R24, R29-R31 hold after every input of random play."""

    def check(table: Table, seat: int) -> None:
        hand = table.hand
        check_hand(hand)
        everyone = seat < 0 or hand.over or table.index % 16 == 0
        check_views(hand, range(len(hand.seats)) if everyone else [seat])
        check_blocked_cache(hand, range(len(hand.seats)))
        if everyone:
            check_blocked(hand)

    Table(game).run(check)


@PROPERTY_SETTINGS
@given(GAMES)
def test_legal_moves_are_exactly_the_moves_play_accepts(game: Game) -> None:
    """R12-R28: every listed move is accepted by ``play`` on a copy at the hand's time;
    and (every 4th step for the seat that moved, every 16th for all) every move text
    ``play`` accepts is listed, except true ties (R16), which ``legal_moves`` leaves
    aside. After the landing window (R28) nothing is listed."""

    def check(table: Table, seat: int) -> None:
        hand = table.hand
        everyone = seat < 0 or table.index % 16 == 0
        for s in range(len(hand.seats)) if everyone else [seat]:
            moves = hand.legal_moves(s)
            if hand.phase is Phase.LANDING and hand.now > hand.call_ms + hand.rules.landing_ms:
                # R28: after the landing window, ``play`` refuses every move.
                assert moves == [], f"seat {s}: moves listed after the landing window"
            assert len(set(moves)) == len(moves), f"seat {s} lists a move twice"
            for move in moves:
                outcome = hand.copy().play(s, move, hand.now)
                assert outcome.ok, f"seat {s}: listed {move} is refused: {outcome}"
            if not everyone and table.index % 4:
                continue
            listed = {m.text for m in moves}
            accepted = set()
            layout = hand.seats[s]
            longest = max(len(pile) for pile in layout.work)
            tops = [("N", layout.nertz), ("W", layout.waste), *zip("1234", layout.work)]
            jokers = tuple(src for src, pile in tops if pile and pile[-1].is_joker)
            twin = hand.copy()
            for text in move_texts(len(hand.foundations) + 1, longest + 1, jokers):
                # A refused play changes nothing (tested below), so the copy is reused.
                outcome = twin.play(s, Move.parse(text), hand.now)
                if not outcome.ok:
                    continue
                twin = hand.copy()
                if any(isinstance(e, CardsMoved) and e.tie for e in outcome.events):
                    continue  # a true tie (R16): legal, but not listed
                name = canonical(text, outcome)
                assert name in listed, f"seat {s}: {text} is accepted but not listed"
                accepted.add(name)
            assert listed == accepted

    Table(game).run(check)


@PROPERTY_SETTINGS
@given(GAMES)
def test_a_copy_plays_exactly_like_the_hand(game: Game) -> None:
    """``Hand.copy`` (for bots' look-ahead and perft) is faithful: every input is also
    given to a copy made just before it, with the same outcome and the same state after
    (R13: ``X>F`` lands on the same foundation, R25: the same rotations)."""

    def check(table: Table, seat: int) -> None:
        """Where two foundations take the same card, ``X>F`` picks the same one on a
        copy as on the hand rebuilt from its log (``wants[key][0]`` is that pick)."""
        hand = table.hand
        heights = Counter((f.suit, f.top_rank) for f in hand.foundations if f.top_rank < 13)
        if max(heights.values(), default=0) > 1:
            rebuilt, twin = replay(hand.deal, hand.rules, hand.log), hand.copy()
            for key, fits in rebuilt.wants.items():
                assert twin.wants[key][0].number == fits[0].number, (
                    f"X>F for {Card.of(key % 16, Suit(key // 16))}: F{fits[0].number + 1} on "
                    f"the hand, F{twin.wants[key][0].number + 1} on a copy"
                )

    Table(game, mirror=True).run(check)


@PROPERTY_SETTINGS
@given(GAMES)
def test_a_refused_play_changes_nothing(game: Game) -> None:
    """R16, R27, R28 and the module contract: a refused play leaves the state (and the
    log) as it was. Before each step, two probe moves are tried on the hand itself."""

    def probe(table: Table, seat: int) -> None:
        hand = table.hand
        for k in range(2):
            move = probe_move(hand, seat, seat * 7919 + len(hand.log) * 31 + k * 104729)
            before, log = hand.snapshot(), list(hand.log)
            outcome = hand.play(seat, move, table.now)
            if outcome.ok:
                note(f"{table.now} ms seat {seat} probe {move}: ok")
                continue
            assert outcome.code is not None and outcome.reason
            assert without_now(hand.snapshot()) == without_now(before), f"{move}: {outcome}"
            assert hand.log == log

    Table(game).run(lambda table, seat: None, probe)


@PROPERTY_SETTINGS
@given(GAMES)
def test_replaying_the_log_rebuilds_the_hand(game: Game) -> None:
    """The log holds every accepted input, so ``replay(deal, rules, log)`` rebuilds the
    same state (every 16 inputs, and at the end)."""

    def check(table: Table, seat: int) -> None:
        hand = table.hand
        if seat >= 0 and len(hand.log) % 16 and not hand.over:
            return
        again = replay(hand.deal, hand.rules, hand.log)
        assert without_now(again.snapshot()) == without_now(hand.snapshot())
        assert again.log == hand.log
        assert again.scores() == hand.scores()

    Table(game).run(check)


@PROPERTY_SETTINGS
@given(GAMES)
def test_partners_share_one_layout_and_never_take_the_card_the_other_holds(game: Game) -> None:
    """R40: two partners move one seat's cards, each one card at a time, their plays
    settled in arrival order like anyone's: a card one partner holds is refused to the
    other (``partner_holds``) and everything else is the seat's play, so every rule of
    the hand still holds and the log replays with seats alone."""
    rules = game.rules.with_options(partnerships=True)
    table = Table(Game(game.seed, game.seats, rules, game.steps), partners=True)

    hand = table.run(lambda table, seat: check_hand(table.hand))
    assert replay(hand.deal, hand.rules, hand.log).snapshot() == hand.snapshot()
    event(f"partner refusals: {min(table.stats['partner_holds'], 5)}+")


# ---------------------------------------------------------------- the smallest cases found


def test_nothing_is_listed_after_the_landing_window_r28() -> None:
    """R28: a play that arrives after ``landing_ms`` is refused, so once the hand's time
    has passed the window ``legal_moves`` must list nothing, even before the tick that
    ends the hand. (Found by ``test_legal_moves_are_exactly_the_moves_play_accepts``.)"""
    hand = Hand(Deal.from_layouts(["nertz: AH; work: -", "nertz: 5C; work: 9D"]), Rules())
    hand.start(0)
    assert hand.play(0, Move.parse("N>F"), 10).ok
    assert hand.play(0, Move.parse("NERTZ"), 10).ok
    late = hand.play(1, Move.parse("T"), 10 + hand.rules.landing_ms + 1)
    assert not late.ok and late.code is Refusal.HAND_OVER
    listed = [m.text for m in hand.legal_moves(1)]
    refused = [t for t in listed if not hand.copy().play(1, Move.parse(t), hand.now).ok]
    assert refused == [], f"listed after the landing window, refused by play: {refused}"


def test_a_copy_sends_x_to_f_where_the_hand_would_r13() -> None:
    """R13: ``N>F`` goes to whichever foundation takes the card; a copy of the hand must
    pick the same one as the hand (and as the hand rebuilt from its log). Here F2 came
    to want the 3H before F1 did. (Found by ``test_a_copy_plays_exactly_like_the_hand``.)"""
    layouts = ["nertz: 3H 2H; work: -", "nertz: 5C; work: -"]
    hand = Hand(Deal.from_layouts(layouts, middle=["AH@1", "AH@0 2H@1"]), Rules())
    hand.start(0)
    assert hand.play(0, Move.parse("N>F1"), 100).ok  # now F1 and F2 both take the 3H
    on_copy = hand.copy().play(0, Move.parse("N>F"), 200)
    on_hand = hand.play(0, Move.parse("N>F"), 200)
    assert on_copy == on_hand, f"F{on_hand.events[0].foundation + 1} on the hand"  # type: ignore[attr-defined]
