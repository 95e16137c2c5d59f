"""Presence: an empty seat says it waits for a player, and when a person closes their
page or leaves on purpose the other page is told (the notice waits for the event)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from .conftest import Server
from .helpers import BOT, Player, call_nertz, open_players, seat_all
from .helpers import TWO_ANN as ANN
from .helpers import TWO_BEN as BEN


@pytest.fixture
def players(browser: Browser) -> Iterator[list[Player]]:
    yield from open_players(browser, 2)


def test_an_empty_seat_waits_for_a_player_and_leaving_is_told(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    code = server.table([ANN, BEN, BOT], bots={})
    url = f"{server.url}/t/{code}"
    ann.goto(url)
    ann.fill("#join-name", "Ann")
    ann.click("text=Take a seat")
    expect(ann.locator(".seat-list")).to_contain_text("waiting for a player")
    ben.goto(url)
    ben.fill("#join-name", "Bert")
    ben.click("text=Take a seat")
    expect(ann.locator(".toast").filter(has_text="Bert joined")).to_be_visible()
    expect(ann.locator(".seat-list")).to_contain_text("Bert — not ready")  # connected
    ben.close()  # Bert's page is gone: away, his seat kept
    expect(ann.locator(".toast").filter(has_text="Bert is away")).to_be_visible()
    expect(ann.locator(".seat-list")).to_contain_text("Bert — not here")


def test_a_person_who_leaves_on_purpose_is_told_to_the_other_page(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    code = server.table([ANN, BEN], bots={}, options={"match": "single"})
    seat_all([ann, ben], f"{server.url}/t/{code}", ["Ann", "Bert"])
    ann.dblclick('.mine [data-src="N"]')
    call_nertz(ann)
    ben.locator(".leave-btn").click(timeout=10_000)
    expect(ann.locator(".toast").filter(has_text="Bert left")).to_be_visible()
