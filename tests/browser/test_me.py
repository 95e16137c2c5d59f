"""A player's own history: two people finish a one-hand match beside a bot; each
browser's "My games" (/me) lists it with that person's figures, and opens it hand by
hand with its running totals."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Server
from .helpers import BOT, Player, open_players, seat_all
from .helpers import TWO_ANN as ANN
from .helpers import TWO_BEN as BEN


@pytest.fixture
def players(browser: Browser) -> Iterator[list[Player]]:
    yield from open_players(browser, 2)


def figures(page: Page) -> dict[str, str]:
    expect(page.locator(".figures")).to_be_visible()
    out: dict[str, str] = {}
    for item in page.locator(".figure").all():
        out[str(item.get_attribute("data-figure"))] = item.locator("dd").inner_text()
    return out


def test_my_games_lists_the_finished_match_with_my_figures_and_opens_it(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    code = server.table([ANN, BEN, BOT], bots={"2": "beginner:scorer"}, options={"match": "single"})
    seat_all([ann, ben], f"{server.url}/t/{code}", ["Ann", "Bert"])
    ann.dblclick('.mine [data-src="N"]')
    expect(ann.locator(".fslot .card").first).to_have_attribute(
        "aria-label", "foundation F1: ace of hearts, 1 card"
    )
    ann.keyboard.press("n")  # Nertz! (R27): the one-hand match is over
    expect(ann.locator(".hand-end .winners")).to_contain_text("You win", timeout=10_000)
    expect(ben.locator(".hand-end .winners")).to_contain_text("Ann wins", timeout=10_000)

    ann.locator(".settings summary").click()  # the ⚙ menu, above the end panel
    ann.locator(".settings a.my-games").click()
    ann.wait_for_url(f"{server.url}/me")
    expect(ann.locator("h1")).to_have_text("My games — Ann")
    assert figures(ann) == {
        "matches": "1",
        "wins": "1",
        "points_per_hand": "1",  # R30: her ace in the middle, no Nertz card left
        "best_hand": "1",
        "calls": "1",
        "races_won": "0",
        "races_lost": "0",
    }
    line = ann.locator(".series-block .match")
    expect(line).to_have_count(1)
    expect(ann.locator(".series-block h2")).to_contain_text(f"Table {code}")
    expect(line).to_contain_text("Match 1 — won with 1")
    line.get_by_role("link", name="Match 1").click()
    ann.wait_for_url(f"{server.url}/matches/**")
    expect(ann.locator("h1")).to_have_text(f"Table {code}, match 1")
    expect(ann.locator(".match-result")).to_contain_text("won by you with 1")
    expect(ann.locator("svg.chart")).to_be_visible()
    rows = ann.locator(".match-hands tr.hand")
    expect(rows).to_have_count(1)
    expect(rows.first.locator("td").nth(0)).to_contain_text("1 → 1")
    expect(rows.first.locator("td").nth(0)).to_contain_text("called")
    expect(rows.first.locator("td").nth(1)).to_contain_text("−4 → −4")
    expect(ann.locator(".match-hands thead")).to_contain_text("Ann (you)")

    ben.goto(server.url)  # the home page's link
    ben.get_by_role("link", name="My games").click()
    ben.wait_for_url(f"{server.url}/me")
    mine = figures(ben)
    assert (mine["matches"], mine["wins"], mine["best_hand"], mine["calls"]) == (
        "1",
        "0",
        "−4",
        "0",
    )
    expect(ben.locator(".series-block .match")).to_contain_text("Match 1 — lost with −4")
