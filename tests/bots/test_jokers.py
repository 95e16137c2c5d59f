"""Bots with jokers (R41): what they announce, what they keep, how they answer another
seat's announcement, and that they play whole hands with jokers without a misplay."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from nertz.bots import LEVELS, Bot
from nertz.engine import (
    CardsMoved,
    Deal,
    Event,
    Hand,
    JokerAnnounced,
    JokerStayed,
    Kind,
    Rules,
    view,
)
from nertz.sim import play_hand

JOKERS = Rules(jokers=True)
EXACT = replace(LEVELS["expert"], overlook=0.0)
"""An expert that never overlooks: scenario tests need certainty."""
HEARTS_TO_5 = ("AH@1 2H@1 3H@1 4H@1 5H@1",)
OPPONENT = "nertz: 9C KS QS 2C 3C 4C; work: 7D / 8D / 9D / 10D; stock: AD JD; waste: -"


def _hand(mine: str, middle: tuple[str, ...] = HEARTS_TO_5) -> Hand:
    hand = Hand(Deal.from_layouts([mine, OPPONENT], middle), JOKERS)
    hand.start(0)
    return hand


def _decide(hand: Hand, style: str = "balanced", level: Any = EXACT) -> str:
    bot = Bot(0, level, style, 1)
    bot.begin(view(hand, 0))
    return str(bot.decide(0).move)


def test_a_joker_on_the_nertz_pile_is_announced_as_the_card_that_lets_the_bot_go_on() -> None:
    """R41: the hearts stand at 5 and the bot holds the 7H: its Nertz joker goes to the
    middle as the 6H, a legal announcement; once the window has closed the joker lies
    there as the 6H and the bot plays its 7H on it."""
    hand = _hand("nertz: 2D JK1; work: 7H / 9C / QS / KD; stock: 3D 4D; waste: -")
    bot = Bot(0, EXACT, "balanced", 1)
    bot.begin(view(hand, 0))
    decision = bot.decide(0)
    assert str(decision.move) == "N>F=6H"
    assert decision.move is not None
    assert "N>F1=6H" in view(hand, 0)["legal"]  # the same announcement, F1 named
    outcome = hand.play(0, decision.move, decision.delay_ms)
    assert outcome.ok and isinstance(outcome.events[0], JokerAnnounced)
    bot.observe(outcome.events)
    until = outcome.events[0].until_ms
    assert str(bot.decide(decision.delay_ms).move) != "N>F=6H"  # announced once only
    landed = hand.tick(until).events
    assert isinstance(landed[0], CardsMoved) and landed[0].move.kind is Kind.ANNOUNCE
    bot.observe(landed)
    assert str(bot.decide(until).move) == "1>F"  # the 7H follows the joker (R13)
    assert view(hand, 0)["foundations"][0]["top_as"] == "6H"


def test_a_nertz_joker_is_never_announced_as_a_card_the_bot_holds() -> None:
    """R41: the bot holds the 6H itself (and plays it); its joker goes as something
    else, here an ace, which no real card can beat to the middle (R12)."""
    move = _decide(_hand("nertz: 2D JK1; work: 6H / 9C / QS / KD; stock: 3D 4D; waste: -"))
    assert move.startswith("N>F=") and move != "N>F=6H"
    assert move.endswith(("AC", "AD", "AS"))


@pytest.mark.parametrize(
    ("work", "expected"),
    [
        ("7H / 9C / QS / KD", "W>F=6H"),  # the 7H can follow: spend the joker (R41)
        ("8S / 9C / QS / KD", "T"),  # nothing follows: keep it for later
    ],
)
def test_a_waste_joker_is_spent_only_when_it_lets_the_bot_play_on(work: str, expected: str) -> None:
    """R41: a scorer with an empty Nertz pile plays on (R27); its waste joker goes to
    the middle as the 6H only when the bot holds the 7H to follow it."""
    hand = _hand(f"nertz: -; work: {work}; stock: 3D 4D 5C; waste: JK2")
    assert _decide(hand, "scorer") == expected


def test_a_waste_joker_becomes_a_landing_for_a_nertz_card_with_nowhere_to_go() -> None:
    """R41: anything lies on a joker. The KC has no place (no space, nothing a rank
    above it, no pile that could move to make a space), so the racer lays its waste
    joker on a work pile and then the king on the joker."""
    hand = _hand("nertz: 2D KC; work: 8S / 4C / QS / 10C; stock: 3D 4D 5D; waste: JK2")
    bot = Bot(0, EXACT, "racer", 1)
    bot.begin(view(hand, 0))
    first = bot.decide(0)
    assert str(first.move) == "W>1"
    assert first.move is not None
    outcome = hand.play(0, first.move, first.delay_ms)
    assert outcome.ok
    bot.observe(outcome.events)
    assert str(bot.decide(first.delay_ms).move) == "N>1"


class Recorder(Bot):
    """A bot that keeps every event it is told, in order."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.events: list[Event] = []

    def observe(self, events: Any) -> None:
        self.events += events
        super().observe(events)


def test_a_bot_holding_the_real_card_answers_an_announcement_in_time() -> None:
    """R41: seat 1 announces its Nertz joker as the 6H (it holds the 7H). Seat 0, a
    racer, would leave the 6H on its work pile (it sends work cards to the middle
    only to empty a space), but it holds the real card: it plays it to that
    foundation (``1>F1``, not the usual ``1>F``) within the window, and seat 1's
    joker stays home. The hand is driven as the simulator drives it."""
    deal = Deal.from_layouts(
        [
            "nertz: 9D KC; work: 7C 6H / 10D / QD / 8S; stock: 2S 3S 4S 5S 6S 7S; waste: -",
            "nertz: 2D JK1; work: 7H / 9C / QS / KD; stock: 3D 4D; waste: -",
        ],
        HEARTS_TO_5,
    )
    bots = [Recorder(0, EXACT, "racer", 3), Recorder(1, EXACT, "balanced", 4)]
    result = play_hand(bots, JOKERS, 0, fixed=deal)
    events = bots[0].events
    said = next(e for e in events if isinstance(e, JokerAnnounced))
    assert (said.seat, str(said.move)) == (1, "N>F1=6H")  # the engine names F1
    answer = next(
        e for e in events if isinstance(e, CardsMoved) and e.seat == 0 and str(e.cards[0]) == "6H"
    )
    assert str(answer.move) == "1>F1"
    stayed = [e for e in events if isinstance(e, JokerStayed)]
    assert stayed and stayed[0].seat == 1
    assert events.index(said) < events.index(answer) < events.index(stayed[0])
    assert result.answers[0] >= 1 and result.jokers_stayed[1] >= 1
    assert not result.bad


@pytest.mark.parametrize("style", ["racer", "prompt", "balanced", "scorer"])
def test_no_misplay_over_many_joker_hands(style: str) -> None:
    """R41, R16, R28: over whole hands at every level, with 2 to 5 seats, bots
    announce jokers, answer announcements and keep playing; every refusal they get is
    a lost race or a late play, never a misplay."""
    levels = list(LEVELS)
    announced = stayed = 0
    for seed in range(30):
        n = 2 + seed % 4
        bots = [Bot(s, levels[(seed + s) % len(levels)], style, seed * 8 + s) for s in range(n)]
        result = play_hand(bots, JOKERS, seed)
        assert result.bad == (), (seed, result.bad)
        announced += sum(result.jokers_announced)
        stayed += sum(result.jokers_stayed)
    assert announced > 30 and stayed > 0
