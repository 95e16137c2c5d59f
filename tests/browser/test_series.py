"""A table plays a series: two people finish a one-hand match, both press "Play
again", and the next match deals at the same link with the series shown; a person who
leaves on purpose frees the seat, and the other page is told."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from .conftest import Server
from .helpers import TWO_ANN as ANN
from .helpers import TWO_BEN as BEN
from .helpers import Player, call_nertz, open_players, seat_all, wait_go


@pytest.fixture
def players(browser: Browser) -> Iterator[list[Player]]:
    yield from open_players(browser, 2)


def test_play_again_deals_the_next_match_at_the_same_link(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    code = server.table([ANN, BEN], bots={}, options={"match": "single"})
    url = f"{server.url}/t/{code}"
    seat_all([ann, ben], url, ["Ann", "Bert"])
    ann.dblclick('.mine [data-src="N"]')
    expect(ann.locator(".fslot .card").first).to_have_attribute(
        "aria-label", "foundation F1: ace of hearts, 1 card"
    )
    ann.keyboard.press("n")  # Nertz! (R27): the one-hand match is over
    for page in (ann, ben):
        panel = page.locator(".hand-end")
        expect(panel.locator(".winners")).to_contain_text(
            "You win" if page is ann else "Ann wins", timeout=10_000
        )
        expect(panel.locator(".series")).to_contain_text("Series after 1 match: 1–0")
        expect(panel.locator(".again-btn")).to_be_visible()
    ann.click(".again-btn")
    expect(ann.locator(".hand-end")).to_contain_text("Waiting for Bert to play again")
    expect(ben.locator(".series")).to_contain_text("Ann: 1 won — plays again")
    ben.click(".again-btn")
    for page in (ann, ben):
        wait_go(page)
        assert page.url.startswith(url)
        expect(page.locator(".strip")).to_contain_text("Hand 1")
        expect(page.locator(".strip")).to_contain_text("Series 1–0")
    assert server.get(f"/api/tables/{code}")["series"] == {
        "match": 2,
        "wins": [1, 0],
        "first_hand": 2,
        "names": [["Ann", "Bert"]],  # who played the finished match, and who won it
        "winners": [[0]],
    }


def test_leaving_on_purpose_frees_the_seat_and_the_other_page_is_told(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    code = server.table([ANN, BEN], bots={}, options={"match": "single"})
    seat_all([ann, ben], f"{server.url}/t/{code}", ["Ann", "Bert"])
    ann.dblclick('.mine [data-src="N"]')
    call_nertz(ann)
    expect(ben.locator(".leave-btn")).to_be_visible(timeout=10_000)
    ben.click(".leave-btn")
    ben.wait_for_url(f"{server.url}/")
    seat = server.get(f"/api/tables/{code}")["seats"][1]
    assert seat["name"] is None  # the place is free at once, not kept for Bert
    expect(ann.locator(".series")).not_to_contain_text("Bert")
