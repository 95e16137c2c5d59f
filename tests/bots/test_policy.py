"""The bot: decides from views and events only, and plays like a person would."""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from nertz.bots import LEVELS, Bot, Decision
from nertz.engine import Deal, Event, Hand, Move, Refusal, Rules, view
from nertz.sim import play_hand

BOTS_SRC = Path(__file__).resolve().parents[2] / "src" / "nertz" / "bots"
PUBLIC = {
    "ANY",
    "NERTZ",
    "PILES",
    "WASTE",
    "Card",
    "Called",
    "CardsMoved",
    "Event",
    "HandEnded",
    "JokerAnnounced",
    "JokerStayed",
    "Kind",
    "Move",
    "Refusal",
    "Rotated",
    "SaidStuck",
    "StockTurned",
    "touches",
    # Pure functions of cards and moves: joker fits (R41), what a move picks up (R40).
    "lies_on",
    "pin",
    "picked_up",
    # The driver's: the refusals a correct bot still meets, and the partners' holds at
    # a seat (R40), which name only sources and face-up cards.
    "LATE_REFUSALS",
    "Holds",
}
"""Engine names a bot may import: values and public events, never Hand or a layout."""


def test_bot_modules_import_only_public_values_from_the_engine() -> None:
    for path in BOTS_SRC.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nertz.engine"):
                assert node.module == "nertz.engine", f"{path.name} imports {node.module}"
                names = {a.name for a in node.names}
                assert names <= PUBLIC, f"{path.name} imports {names - PUBLIC}"


class Spy(Bot):
    """Checks every argument a driver passes: JSON views, public events, plain values."""

    calls = 0

    def _check_view(self, seat_view: Any) -> None:
        assert type(seat_view) is dict
        assert json.loads(json.dumps(seat_view)) == seat_view  # JSON only: no objects
        assert seat_view["you"] == self.seat
        Spy.calls += 1

    def begin(self, seat_view: Any, totals: Any = ()) -> None:
        self._check_view(seat_view)
        assert all(type(t) is int for t in totals)
        super().begin(seat_view, totals)

    def resync(self, seat_view: Any) -> None:
        self._check_view(seat_view)
        super().resync(seat_view)

    def observe(self, events: Any) -> None:
        assert all(isinstance(e, Event) for e in events)
        Spy.calls += 1
        super().observe(events)

    def refused(self, move: Move, code: Refusal) -> None:
        assert type(move) is Move and isinstance(code, Refusal)
        super().refused(move, code)

    def decide(
        self, now_ms: int, avoid: frozenset[int] = frozenset(), role: str | None = None
    ) -> Decision:
        assert type(now_ms) is int
        assert type(avoid) is frozenset and all(type(s) is int for s in avoid)
        assert role is None or type(role) is str
        return super().decide(now_ms, avoid, role)


def test_bots_receive_only_views_and_events() -> None:
    rules = Rules()
    for seed in range(3):
        bots = [Spy(s, "skilled", "scorer", seed * 4 + s) for s in range(4)]
        result = play_hand(bots, rules, seed, totals=(3, -2, 0, 11))
        assert not result.bad
        for bot in bots:
            assert not any(isinstance(v, Hand) for v in vars(bot).values())
    assert Spy.calls > 1000


EXACT = replace(LEVELS["expert"], overlook=0.0)
"""An expert that never overlooks: scenario tests need certainty."""
CARELESS = replace(LEVELS["beginner"], overlook=0.0)
"""A beginner's planning (none) without its inattention."""
OPPONENT = "nertz: 9C KH QS 2H 3H 4H 5H 6H; work: 7D / 8D / 9D / 10D; stock: AD JD; waste: -"


def _decide(level: Any, style: str, mine: str, middle: tuple[str, ...] = ()) -> str:
    rules = Rules()
    hand = Hand(Deal.from_layouts([mine, OPPONENT], middle), rules)
    hand.start(0)
    bot = Bot(0, level, style, 1)
    bot.begin(view(hand, 0))
    decision = bot.decide(0)
    return str(decision.move)


CLUBS_TO_4 = ("AC@1 2C@1 3C@1 4C@1",)


def test_racer_calls_as_soon_as_its_pile_is_empty() -> None:
    mine = "nertz: -; work: 5C / 9H / 6S / KD; stock: 2D 3D; waste: -"
    assert _decide(EXACT, "racer", mine, CLUBS_TO_4) == "NERTZ"


def test_scorer_plays_on_after_emptying_its_pile() -> None:
    """R27: the call is never compulsory; the scorer first sends its 5C to the middle."""
    mine = "nertz: -; work: 5C / 9H / 6S / KD; stock: 2D 3D; waste: -"
    assert _decide(EXACT, "scorer", mine, CLUBS_TO_4) == "1>F"


def test_nertz_card_goes_to_the_middle_first() -> None:
    mine = "nertz: 2D 5C; work: 6D / 9H / 6S / KD; stock: 2H 3D; waste: -"
    assert _decide(EXACT, "balanced", mine, CLUBS_TO_4) == "N>F"


def test_planner_frees_a_space_for_the_nertz_card() -> None:
    """R18: move the 7H onto the 8S so the 9C has a space; a beginner just turns."""
    mine = "nertz: 2S 9C; work: 8S / 7H / JD / 3C; stock: 4D 5D; waste: -"
    assert _decide(EXACT, "balanced", mine) == "2>1"
    assert _decide(CARELESS, "balanced", mine) == "T"


def test_planner_does_not_bury_a_card_the_middle_needs_next() -> None:
    """R13: spades are at 5, so the 7S is wanted soon: the expert keeps it uncovered."""
    middle = ("AS@1 2S@1 3S@1 4S@1 5S@1",)
    mine = "nertz: 2D KC; work: 7S / 9D / JC / 4H; stock: 5D; waste: 6H"
    assert _decide(EXACT, "balanced", mine, middle) == "T"
    assert _decide(CARELESS, "balanced", mine, middle) == "W>1"


def test_a_seat_with_nothing_to_do_says_stuck_then_waits() -> None:
    """R25: no play, no stock: say stuck once, then wait for the table."""
    rules = Rules()
    mine = "nertz: 2D KH; work: 5C / 9H / 6S / QD; stock: -; waste: -"
    hand = Hand(Deal.from_layouts([mine, OPPONENT]), rules)
    hand.start(0)
    bot = Bot(0, EXACT, "balanced", 1)
    bot.begin(view(hand, 0))
    decision = bot.decide(0)
    assert str(decision.move) == "STUCK"
    outcome = hand.play(0, decision.move, decision.delay_ms)  # type: ignore[arg-type]
    assert outcome.ok
    bot.observe(outcome.events)
    assert bot.decide(decision.delay_ms).move is None


@pytest.mark.parametrize("style", ["racer", "balanced", "scorer"])
def test_delays_follow_the_level(style: str) -> None:
    rules = Rules()
    fast = play_hand([Bot(s, "demon", style, s) for s in range(2)], rules, 3)
    slow = play_hand([Bot(s, "beginner", style, s) for s in range(2)], rules, 3)
    assert fast.length_ms * 2 < slow.length_ms


def test_a_new_hand_forgets_the_last_hands_plans() -> None:
    """R33: between hands the bot starts over; nothing planned for the last deal
    (here: moving the 7H onto the 8S) may be played on the next."""
    rules = Rules()
    bot = Bot(0, EXACT, "balanced", 1)
    for mine, expected in (
        ("nertz: 2S 9C; work: 8S / 7H / JD / 3C; stock: 4D 5D; waste: -", "2>1"),
        ("nertz: 2S 9C; work: 8S / 5H / JD / 3C; stock: 4D 5D; waste: -", "T"),
    ):
        hand = Hand(Deal.from_layouts([mine, OPPONENT]), rules)
        hand.start(0)
        bot.begin(view(hand, 0))
        assert str(bot.decide(0).move) == expected
