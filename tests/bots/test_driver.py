"""The bot driver: one committed move and its time, the same loop for the simulator
and the server (docs/bots.md); at a partnership seat (R40) it chooses around the
partner and holds its own move's source until the move lands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nertz.bots import NERTZ_ROLE, STOCK_ROLE, Driver, parse_seat, role_for
from nertz.engine import (
    Hand,
    Holds,
    Move,
    Refusal,
    Rules,
    deal,
    picked_up,
    touches,
    view,
)

SRC = Path(__file__).resolve().parents[2] / "src" / "nertz"


def started(rules: Rules, seats: int = 2) -> Hand:
    return Hand(deal(seats, rules, seed=5), rules)


def test_a_driver_plans_commits_and_stops() -> None:
    hand = started(Rules())
    driver = Driver.of(1, parse_seat("demon:racer"), seed=3)
    assert (driver.seat, driver.spec) == (1, "demon:racer")
    driver.begin(view(hand, 1))
    assert (driver.due, driver.move) == (None, None)
    driver.observe(hand.start(100).events)
    due = driver.plan(100)
    assert driver.due == due and due > 100 and driver.move is not None
    assert driver.decided_at == 100
    # A lost race (R16) is normal; a move that does not fit means a wrong picture.
    assert not driver.refused(Move.parse("N>F"), Refusal.BEATEN)
    assert driver.refused(Move.parse("N>F"), Refusal.DOES_NOT_FIT)
    driver.resync(view(hand, 1))
    driver.stop()
    assert (driver.due, driver.move) == (None, None)


def test_r40_partners_choose_around_each_other_and_hold_their_own_source() -> None:
    rules = Rules(partnerships=True)
    hand = started(rules)
    holds = Holds(2)
    pair = [Driver.of(0, parse_seat("expert"), seed=s, partner=s) for s in (0, 1)]
    start = hand.start(0)
    for driver in pair:
        driver.begin(view(hand, 0))
        driver.observe(start.events)
    first, second = pair
    first.plan_beside(0, holds, second, role_for(0), lambda src: hand.top(0, src))
    assert first.move is not None and first.role == NERTZ_ROLE
    held = picked_up(first.move)
    assert holds.held(0)[0] == held
    second.plan_beside(0, holds, first, role_for(1))
    assert second.move is not None and second.role == STOCK_ROLE
    assert touches(second.move).isdisjoint(touches(first.move))
    # The first partner's card is named in what the second is refused (R40).
    assert held is not None
    card = hand.top(0, held)
    assert card is not None
    refusal = holds.check(0, 1, Move.to_foundation(held))
    assert refusal.code is Refusal.PARTNER_HOLDS and card.name in refusal.reason


def test_r40_a_bot_looks_again_when_its_partner_takes_what_its_move_needs() -> None:
    hand = started(Rules(partnerships=True))
    driver = Driver.of(0, parse_seat("expert"), seed=1)
    driver.begin(view(hand, 0))
    driver.observe(hand.start(0).events)
    assert driver.stale(None, NERTZ_ROLE)  # nothing committed yet
    driver.plan(0, role=NERTZ_ROLE)
    assert driver.move is not None
    src = picked_up(driver.move)
    assert not driver.stale(None, NERTZ_ROLE)
    assert driver.stale(None, STOCK_ROLE)  # a person sat down beside it
    assert driver.stale(src, NERTZ_ROLE)


@pytest.mark.parametrize(
    ("partner", "beside_person", "role"),
    [
        (None, False, None),
        (0, False, NERTZ_ROLE),
        (1, False, STOCK_ROLE),
        (0, True, STOCK_ROLE),
        (1, True, STOCK_ROLE),
    ],
)
def test_r40_roles_a_person_watches_the_nertz_pile(
    partner: int | None, beside_person: bool, role: str | None
) -> None:
    assert role_for(partner, beside_person) == role


def test_only_the_driver_asks_a_bot_to_decide() -> None:
    """The driving loop is written once: the simulator and the server go through
    ``Driver``, never ``Bot.decide`` themselves."""
    callers = [
        path.relative_to(SRC).as_posix()
        for path in sorted(SRC.rglob("*.py"))
        if re.search(r"\.decide\(", path.read_text())
    ]
    assert callers == ["bots/driver.py"]
