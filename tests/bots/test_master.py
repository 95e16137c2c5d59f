"""The ``master`` level (issue 28, point 4): expert's speed and attention exactly, its
own choices. What it gains over expert in paired hands is measured by
``bench/master.py`` (docs/strategy.md, section 6), not here: a unit test's few hands
could not tell a point a hand from chance."""

from __future__ import annotations

import random
from dataclasses import replace

from nertz.bots import LEVELS, Bot
from nertz.bots.search import GOAL_EXPOSE, GOAL_LANDING, rearrangement
from nertz.engine import Card, Deal, Hand, Move, Rules, view

TIMING = ("card_ms", "turn_ms", "spread", "floor_ms", "overlook")
"""A level's timing model: its delays, their spread and floor, and its inattention."""


def test_master_has_experts_timing_so_only_its_choices_differ() -> None:
    master, expert = LEVELS["master"], LEVELS["expert"]
    for field in TIMING:
        assert getattr(master, field) == getattr(expert, field), field
    # The same draws give the same delays: nothing about master is quicker.
    for mean in (master.card_ms, master.turn_ms):
        a, b = random.Random(7), random.Random(7)
        assert [master.delay(a, mean) for _ in range(200)] == [
            expert.delay(b, mean) for _ in range(200)
        ]
    assert master.search > expert.search == 0 and master.patience > expert.patience


def test_master_sits_between_expert_and_demon_in_the_offered_levels() -> None:
    names = list(LEVELS)
    assert names.index("expert") + 1 == names.index("master") == names.index("demon") - 1


WANTS_5H_3D = ("AH@1 2H@1 3H@1 4H@1", "AD@1 2D@1")
"""The middle takes the 5 of hearts and the 3 of diamonds next (R13)."""
BURIED = "nertz: 7D KC; work: 6C 5H 4S 3D 2C / 6S 5D / 9H / JD; stock: 8D 8C; waste: -"
"""The 5 of hearts lies under a run (4S 3D 2C) that the 5D takes; the 3D, nearer the
end, under a 2C nothing takes. The king of clubs needs a space (R18): none is free."""
OPPONENT = "nertz: 9S QS; work: 7C / 8C / 10C / KH; stock: JC; waste: -"


def _decide(level_name: str, mine: str, middle: tuple[str, ...]) -> str:
    hand = Hand(Deal.from_layouts([mine, OPPONENT], middle), Rules())
    hand.start(0)
    bot = Bot(0, replace(LEVELS[level_name], overlook=0.0), "balanced", 1)
    bot.begin(view(hand, 0))
    return str(bot.decide(0).move)


def test_master_finds_the_wanted_card_an_expert_looks_past() -> None:
    """R17: the expert looks only under the run nearest each pile's end (the 3D, which
    nothing frees) and turns its stock; master's search finds that moving 4S 3D 2C onto
    the 5D bares the 5 of hearts for the middle."""
    assert _decide("expert", BURIED, WANTS_5H_3D) == "T"
    assert _decide("master", BURIED, WANTS_5H_3D) == str(Move.to_pile(0, 1, 3))


def _piles(text: str) -> list[list[Card]]:
    return [[Card.parse(c) for c in pile.split()] for pile in text.split("/")]


def test_the_search_empties_a_space_for_a_nertz_card_with_no_place() -> None:
    """R17, R18: the 10C is the head of its pile and lies on the red jack: moving the
    whole pile empties a space for the king."""
    work = _piles("10C 9D / JH / 4S / 7S")
    move = rearrangement(work, Card.parse("KD"), {}, 2, GOAL_LANDING)
    assert move == Move.to_pile(0, 1, 2)


def test_the_search_keeps_the_nertz_cards_only_space() -> None:
    """A run into the last empty space would bare a wanted card but leave the Nertz
    card (the queen, which no end takes) nowhere to go: no such line is played."""
    work = _piles("8H 7C / 2S / 9D / ")
    wants = {Card.parse("8H").key: 1}
    assert rearrangement(work, Card.parse("QD"), wants, 3, GOAL_EXPOSE) is None
    # Without a Nertz card the same line is the answer: 7C into the space.
    assert rearrangement(work, None, wants, 3, GOAL_EXPOSE) == Move.to_pile(0, 3, 1)


def test_the_search_answers_nothing_when_no_line_reaches_a_goal() -> None:
    work = _piles("KS / KH / KC / KD")
    assert rearrangement(work, Card.parse("5D"), {}, 4, GOAL_LANDING | GOAL_EXPOSE) is None
