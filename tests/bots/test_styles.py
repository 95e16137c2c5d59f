"""Styles: when a bot with an empty Nertz pile calls (R27)."""

from __future__ import annotations

from dataclasses import replace

from nertz.bots import STYLES, CallSituation

# Empty Nertz pile, two cards ready for the middle, opponents far from calling,
# no bonus, nobody near the target.
CALM = CallSituation(
    ready_plays=2,
    out_of_plays=False,
    opponent_nertz=8,
    caller_bonus=0,
    my_total=20,
    best_other_total=15,
    target=100,
)


def test_racer_calls_at_once() -> None:
    assert STYLES["racer"].should_call(CALM)


def test_scorer_plays_on_until_a_pass_finds_nothing() -> None:
    scorer = STYLES["scorer"]
    assert not scorer.should_call(CALM)
    assert not scorer.should_call(replace(CALM, ready_plays=0))  # turns for more
    assert scorer.should_call(replace(CALM, opponent_nertz=1))
    assert scorer.should_call(replace(CALM, out_of_plays=True))


def test_balanced_weighs_bonus_opponents_and_lead() -> None:
    balanced = STYLES["balanced"]
    behind = replace(CALM, my_total=40, best_other_total=85)
    assert balanced.should_call(CALM)  # calling at once pays (docs/strategy.md)
    assert balanced.should_call(replace(behind, best_other_total=60))  # far from the end
    assert not balanced.should_call(behind)  # the race is nearly lost: gamble
    assert balanced.should_call(replace(behind, caller_bonus=10))
    assert balanced.should_call(replace(behind, opponent_nertz=3))
    assert balanced.should_call(replace(behind, ready_plays=0))
    assert balanced.should_call(replace(behind, my_total=104, best_other_total=100))
    assert balanced.should_call(replace(behind, target=0))  # not a race: no end in sight


def test_prompt_calls_at_once_but_plays_wide() -> None:
    prompt = STYLES["prompt"]
    assert prompt.should_call(CALM)
    assert prompt.wide and not STYLES["racer"].wide
