"""The ready countdown on the page (docs/server.md, "Lifetimes"): once everyone is at
the table, whoever is not ready sees the first deal counted down; when it runs out the
hand deals with a bot in their place, and they take it back by playing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from .conftest import Server
from .helpers import BOT, Player, open_players, wait_go
from .helpers import TWO_ANN as ANN
from .helpers import TWO_BEN as BEN


@pytest.fixture
def players(browser: Browser) -> Iterator[list[Player]]:
    yield from open_players(browser, 2)


def test_a_person_not_ready_sees_the_countdown_then_takes_the_place_back_from_a_bot(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    code = server.table([ANN, BEN, BOT], bots={"2": "casual"}, ready_s=4)
    url = f"{server.url}/t/{code}"
    for page, name in ((ann, "Ann"), (ben, "Bert")):
        page.goto(url)
        page.fill("#join-name", name)
        page.click("text=Take a seat")
        expect(page.locator(".ready-btn")).to_be_visible()
    ann.click(".ready-btn")  # Bert reads the rules instead
    expect(ben.locator(".status")).to_contain_text(
        "a bot plays for anyone not ready until they play"
    )
    expect(ben.locator(".status")).to_contain_text("Dealing in")
    wait_go(ann)  # 4 s later, ready or not
    expect(ann.locator(".opponents")).to_contain_text("bot playing")
    # Bert was here all along: he is told what happened, not that he was away.
    told = ben.locator(".toast", has_text="a bot is playing your seat")
    expect(told).to_have_text(
        "You were not ready in time, so a bot is playing your seat: make any move to take it back."
    )
    ben.keyboard.press("Space")  # Bert turns his stock: his place is his again
    expect(ann.locator(".opponents")).not_to_contain_text("bot playing")
