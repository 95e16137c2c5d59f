"""Bots in seats: the driver keeps one committed move and its time (docs/bots.md)."""

from __future__ import annotations

import pytest

from nertz.engine import Hand, Move, Refusal, Rules, deal, view
from nertz.server.bots import BotDriver


def test_a_driver_plans_commits_and_stops() -> None:
    hand = Hand(deal(2, Rules(), seed=5), Rules())
    driver = BotDriver(1, "demon:racer", seed=3)
    assert driver.spec == "demon:racer"
    driver.begin(view(hand, 1), (), 0)
    assert driver.due is None
    start = hand.start(100)
    driver.observe(start.events)
    driver.plan(100)
    assert driver.due is not None and driver.due > 100 and driver.move is not None
    driver.refused(Move.parse("N>F"), Refusal.DOES_NOT_FIT, view(hand, 1))  # resyncs
    driver.stop()
    assert (driver.due, driver.move) == (None, None)


def test_a_bad_spec_names_the_choices() -> None:
    with pytest.raises(ValueError, match="levels are"):
        BotDriver(0, "wizard", seed=1)
