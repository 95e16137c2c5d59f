"""The host in the browser: start now with a bot in the empty seat, change an option
between matches (both rules dialogs show it), put a bot in an away person's place,
remove a person (their page says so), pass the role (and it passes by itself when the
host leaves)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, expect

from .conftest import Server
from .helpers import BOT, Player, open_players, wait_go

ANN = "nertz: AH; work: 6S / 9C / KC / 4C; stock: 2C 3C 7H; waste: -"
"""One Nertz card: Ann plays it and calls (R27), and wins the one-hand match."""
BEN = "nertz: 9S 2S; work: KS / QD / 8D / 3S; stock: 4H 5H 6H; waste: -"


@pytest.fixture
def players(browser: Browser) -> Iterator[list[Player]]:
    yield from open_players(browser, 2)


def sit(page: Page, url: str, name: str) -> None:
    page.goto(url)
    page.fill("#join-name", name)
    page.click("text=Take a seat")
    expect(page.locator(".ready-btn")).to_be_visible()


def host_dialog(page: Page) -> None:
    """The host's controls: from the panel between matches, else from the bar."""
    opener = page.locator(".overlay .host-open")
    (opener if opener.is_visible() else page.locator(".host-btn")).click()
    expect(page.locator("dialog .host-panel")).to_be_visible()


def test_the_host_starts_now_changes_an_option_and_passes_the_role(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    code = server.table([ANN, BEN, BOT], bots={}, options={"match": "single"})
    url = f"{server.url}/t/{code}"
    sit(ann, url, "Ann")
    sit(ben, url, "Bert")
    expect(ann.locator(".host-line")).to_have_text("You are the host.")
    expect(ben.locator(".host-line")).to_have_text("Ann is the host.")
    expect(ben.locator(".host-btn")).to_be_hidden()
    host_dialog(ann)
    # The bots go by the home page's plain choices, not levels.
    expect(ann.locator("dialog .host-bots option")).to_have_text(["Relaxed", "Even", "Fierce"])
    ann.select_option("dialog .host-bots", "even")
    ann.click("dialog .host-start")  # seat 3 is empty: a bot takes it
    for page in (ann, ben):
        wait_go(page)
        expect(page.locator(".opp").filter(has_text="Cleo")).to_have_count(1)  # a bot's name

    ann.dblclick('.mine [data-src="N"]')
    ann.keyboard.press("n")  # the one-hand match is over
    expect(ann.locator(".again-btn")).to_be_visible(timeout=10_000)
    host_dialog(ann)
    ann.fill('dialog .host-options input[name="caller_bonus"]', "10")
    ann.click("dialog .host-apply")
    expect(ben.locator(".toast").filter(has_text="caller bonus to 10")).to_be_visible()
    ann.keyboard.press("Escape")
    for page in (ann, ben):
        page.keyboard.press("?")
        row = page.locator("dialog tr").filter(has_text="caller_bonus")
        expect(row).to_contain_text("10 (changed)")
        page.keyboard.press("Escape")

    host_dialog(ann)
    ann.click("dialog .host-pass")  # Bert is host now
    expect(ben.locator(".overlay .host-open")).to_be_visible()
    expect(ann.locator(".overlay .host-open")).to_have_count(0)
    ben.click(".leave-btn")  # the host leaves: the role passes back to Ann by itself
    expect(ann.locator(".overlay .host-open")).to_be_visible()
    assert server.get(f"/api/tables/{code}")["host"]["seat"] == 0


def test_the_host_puts_a_bot_in_for_an_away_person_and_removes_another(
    server: Server, players: list[Player], browser: Browser
) -> None:
    ann, ben = (p.page for p in players)
    code = server.table([ANN, BEN, BOT], bots={})
    url = f"{server.url}/t/{code}"
    sit(ann, url, "Ann")
    sit(ben, url, "Bert")
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 720})
    cy = context.new_page()
    sit(cy, url, "Cy")
    cy.close()  # Cy is away
    # The Host dialog lists people as they are when it opens: once Ann's page knows.
    expect(ann.locator(".seat-list li").filter(has_text="Cy")).not_to_contain_text("not ready")
    host_dialog(ann)
    away = ann.locator("dialog .host-panel li").filter(has_text="Cy (away)")
    away.locator(".host-bot").click()
    expect(ann.locator(".seat-list li").filter(has_text="Cleo")).to_have_count(1)  # Cy's bot
    host_dialog(ann)
    ann.locator("dialog .host-panel li").filter(has_text="Bert").locator(".host-remove").click()
    expect(ben.locator(".removed")).to_contain_text("The host removed you from this table")
    assert server.get(f"/api/tables/{code}")["seats"][1]["name"] is None
    ben.reload()  # the token is gone: the page offers a seat again
    expect(ben.locator("#join-name")).to_be_visible()
    context.close()


def test_the_home_page_makes_its_creator_host_though_someone_joins_first(
    page: Page, server: Server
) -> None:
    """Issue 24: a client polling the public tables joins a new table before the home
    page sits its creator (here while the page's join is held back): the creator's
    place is kept, and with the create answer's host token they sit there as host."""
    sent: list[dict[str, Any]] = []
    raced: list[int] = []

    def racer_first(route: Route) -> None:
        sent.append(route.request.post_data_json)
        code = route.request.url.split("/api/tables/")[1].split("/")[0]
        transport = httpx.HTTPTransport(local_address="127.0.0.2")  # another address
        with httpx.Client(base_url=server.url, transport=transport, timeout=10) as racer:
            for body in ({"name": "Racer", "seat": 0}, {"name": "Racer"}):
                raced.append(racer.post(f"/api/tables/{code}/join", json=body).status_code)
        route.continue_()

    page.route("**/api/tables/*/join", racer_first)
    page.goto(server.url)
    page.fill("#name", "Ann")
    page.select_option("select[name=seats]", "2")
    page.select_option("select[name=who-1]", "person")
    page.click("text=Create table and sit down")
    expect(page.locator(".host-line")).to_have_text("You are the host.")
    assert raced == [409, 200]  # seat 0 was kept; the racer sat at seat 1, host of nothing
    assert len(sent[0]["host_token"]) >= 32
    expect(page.locator(".opp").filter(has_text="Racer")).to_have_count(1)
