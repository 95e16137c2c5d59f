"""Between hands on the page (docs/server.md, "Lifetimes"): the next deal counted down
on the hand-end panel and in the status line, right after a reload too; a person who
closes the page keeps the place through a countdown the others see, and comes back to
it. At a table of people the Rules dialog says the hand runs on."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Server
from .helpers import TWO_ANN as ANN
from .helpers import TWO_BEN as BEN
from .helpers import Player, open_players, seat_all


@pytest.fixture
def players(browser: Browser) -> Iterator[list[Player]]:
    yield from open_players(browser, 2)


def seconds(page: Page, selector: str) -> int:
    """The seconds a countdown line says ("Next hand in 23 s")."""
    found = re.search(r"Next hand in (\d+) s", page.locator(selector).first.inner_text())
    assert found, page.locator(selector).first.inner_text()
    return int(found.group(1))


def test_the_next_hand_is_counted_down_and_a_page_that_leaves_keeps_its_seat(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    code = server.table([ANN, BEN], bots={}, next_hand_s=60, reconnect_s=120)
    url = f"{server.url}/t/{code}"
    seat_all([ann, ben], url, ["Ann", "Bert"])
    ann.keyboard.press("?")  # a race: the hand does not wait for her reading
    expect(ann.locator(".rules-note")).to_contain_text("The hand goes on while you read")
    ann.keyboard.press("Escape")
    ann.dblclick('.mine [data-src="N"]')
    expect(ann.locator(".fslot .card").first).to_have_attribute(
        "aria-label", "foundation F1: ace of hearts, 1 card"
    )
    ann.keyboard.press("n")  # Nertz! The match (to 100) goes on: between hands

    # The hand-end panel counts the next deal down, beside Ready.
    for page in (ann, ben):
        expect(page.locator(".hand-end .next-hand")).to_contain_text("Next hand in", timeout=10_000)
    first = seconds(ann, ".hand-end .next-hand")
    # At most a second over: the page sets its clock by when the state reached it.
    assert 50 <= first <= 61
    expect(ann.locator(".hand-end .next-hand")).not_to_have_text(f"Next hand in {first} s")
    assert seconds(ann, ".hand-end .next-hand") < first  # it ticks

    # Bert reloads mid-countdown: his page counts on from the table's clock, not anew.
    ben.reload()
    expect(ben.locator(".hand-end .next-hand")).to_contain_text("Next hand in")
    assert seconds(ben, ".hand-end .next-hand") <= seconds(ann, ".hand-end .next-hand") + 1

    # Bert goes home: his place is kept, and Ann sees for how long.
    ben.click(".home-link")
    ben.wait_for_url(f"{server.url}/")
    away = ann.locator(".hand-end .breakdown .away")
    expect(away).to_contain_text(re.compile(r"away, a bot in 0:\d\d, seat kept 1:\d\d"))
    kept = away.inner_text()
    expect(ann.locator(".opp-head").first).to_contain_text("seat kept 1:")  # above her cards
    expect(away).not_to_have_text(kept)  # counting down
    assert server.get(f"/api/tables/{code}")["seats"][1]["name"] == "Bert"

    # Ann looks at the table: the status line goes on counting.
    ann.click(".hand-end .close-x")
    expect(ann.locator(".status")).to_contain_text(re.compile(r"Hand over · Next hand in \d+ s"))

    # Bert comes back before it runs out: the same seat, his own.
    ben.goto(url)
    expect(ben.locator(".hand-end .ready-btn")).to_be_visible()
    expect(ben.locator(".status")).not_to_contain_text("watching")
    expect(ann.locator(".opp-head").first).not_to_contain_text("away")
    seat = server.get(f"/api/tables/{code}")["seats"][1]
    assert seat["name"] == "Bert" and seat["connected"] and "kept_until_ms" not in seat
    ben.click(".hand-end .ready-btn")
    ann.click(".ready-side")  # both ready: the next hand deals at once
    for page in (ann, ben):
        expect(page.locator(".strip")).to_contain_text("Hand 2", timeout=10_000)
