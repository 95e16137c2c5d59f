"""The host in the browser: start now with a bot in the empty seat, change an option
between matches (both rules dialogs show it), put a bot in for an away person (a
stand-in: the place, the name and the results stay theirs, and they take it back),
remove a person (their page says so), pass the role (and it passes by itself when the
host leaves)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, expect

from .conftest import Server
from .helpers import BOT, Player, call_nertz, open_players, to_the_middle, wait_go, watched_page

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
    expect(ann.locator("dialog .host-bots option")).to_have_text(
        ["Relaxed", "Even", "Sharp", "Fierce"]
    )
    ann.select_option("dialog .host-bots", "even")
    ann.click("dialog .host-start")  # seat 3 is empty: a bot takes it
    for page in (ann, ben):
        wait_go(page)
        expect(page.locator(".opp").filter(has_text="Cleo")).to_have_count(1)  # a bot's name

    ann.dblclick('.mine [data-src="N"]')
    call_nertz(ann)  # the one-hand match is over
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
    # A bot stands in for Cy: the place stays Cy's.
    expect(ann.locator(".overlay .seat-list li").filter(has_text="Cy")).to_contain_text(
        "not here, a bot plays until they come back"
    )
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
    page.check("input[name=public]")  # listed: the racer polling the list sees it
    page.click("text=Create table and sit down")
    expect(page.locator(".host-line")).to_have_text("You are the host.")
    assert raced == [409, 200]  # seat 0 was kept; the racer sat at seat 1, host of nothing
    assert len(sent[0]["host_token"]) >= 32
    expect(page.locator(".opp").filter(has_text="Racer")).to_have_count(1)


SIZES = [(1280, 720), (390, 844), (844, 390)]
"""A desktop, a phone upright and a phone sideways."""


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_a_bot_for_cat_stands_in_and_cat_takes_her_seat_back_by_the_invite_link(
    server: Server, browser: Browser, size: tuple[int, int]
) -> None:
    """Issue 23: Cat wins a one-hand match at a private table and closes her tab; Ann,
    the host, puts in "a bot for Cat". The win stays Cat's, Cat takes her seat back by
    the invite link, the host can take a bot out again, and after Cat is removed the
    finished match still names her; by the bare table URL she finds the table again."""
    width, height = size
    made = server.post(
        "/api/test/tables",
        {
            "layouts": [BEN, ANN],  # Cat, at seat 2, holds the one Nertz card
            "seats": 2,
            "bots": {},
            "public": False,
            "countdown_ms": 300,
            "options": {"match": "single"},
        },
    )
    code, key = made["code"], made["key"]
    invite = f"{server.url}/t/{code}?key={key}"
    contexts, consoles = [], []
    for _ in range(2):
        context, page, console = watched_page(browser, width, height)
        contexts.append(context)
        consoles.append(console)
    ann_ctx, cat_ctx = contexts
    ann, cat = ann_ctx.pages[0], cat_ctx.pages[0]
    sit(ann, invite, "Ann")
    sit(cat, invite, "Cat")
    for page in (ann, cat):
        page.click(".ready-btn")
    for page in (ann, cat):
        wait_go(page)
    to_the_middle(cat)
    call_nertz(cat)  # Cat calls: she wins the one-hand match
    won = ann.locator(".winners")
    expect(won).to_have_text("Cat wins the match with 1!", timeout=10_000)
    host_dialog(ann)  # open while Cat is here: it shows her going away as it happens
    cat.close()  # Cat closes her tab
    away = ann.locator("dialog .host-panel li").filter(has_text="Cat (away)")
    away.locator(".host-bot").click()
    expect(ann.locator(".series li").filter(has_text="Cat")).to_contain_text("a bot plays")
    expect(won).to_have_text("Cat wins the match with 1!")  # not the bot's win
    expect(ann.locator(".series li").filter(has_text="Cat")).to_contain_text("Cat: 1 won")
    host_dialog(ann)  # the host sees Cat, a bot playing for her, and may take it out
    cat_row = ann.locator("dialog .host-panel li").filter(has_text="Cat")
    expect(cat_row).to_contain_text("a bot plays for them until they come back")
    expect(cat_row.locator(".host-bot-off")).to_have_text("No bot for Cat")
    ann.keyboard.press("Escape")

    cat = cat_ctx.new_page()
    cat.goto(invite)  # Cat comes back by the same invite link: her seat, not "Just watch"
    expect(cat.locator(".again-btn")).to_be_visible()
    expect(cat.locator(".winners")).to_have_text("You win the match with 1!")
    expect(cat.locator("text=Just watch")).to_have_count(0)
    seat = server.get(f"/api/tables/{code}?key={key}")["seats"][1]
    assert seat["name"] == "Cat" and seat["connected"] and not seat["takeover"]
    cat.close()

    cat_line = ann.locator(".series li").filter(has_text="Cat")
    expect(cat_line).to_contain_text("Cat: 1 won — away")
    host_dialog(ann)  # a bot for Cat again, then the host takes it out
    ann.locator("dialog .host-panel li").filter(has_text="Cat (away)").locator(".host-bot").click()
    expect(cat_line).to_contain_text("a bot plays until they come back")
    host_dialog(ann)
    ann.locator("dialog .host-panel .host-bot-off").click()
    expect(cat_line).not_to_contain_text("a bot plays")
    host_dialog(ann)
    expect(ann.locator("dialog .host-panel li").filter(has_text="Cat (away)")).to_have_count(1)
    expect(ann.locator("dialog .host-panel .host-bot")).to_have_text("A bot for Cat")
    ann.locator("dialog .host-panel .host-remove").click()  # and removes her
    expect(ann.locator(".overlay .winners")).to_have_text("Cat wins the match with 1!")
    expect(ann.locator(".series li").filter(has_text="Cat")).to_contain_text(
        "Cat: 1 won — left the table"
    )
    expect(ann.locator(".strip .score-chip .who")).to_have_text(["You", "Cat"])  # not "seat 2"

    cat = cat_ctx.new_page()
    cat.goto(f"{server.url}/t/{code}")  # the bare table URL: the key she came with is kept
    expect(cat.locator("h1")).to_have_text(f"Table {code}")
    expect(cat.locator("#join-name")).to_be_visible()
    for context in contexts:
        context.close()
    for console in consoles:
        assert console.errors == [], console.errors


def test_a_stranger_at_a_private_table_s_bare_url_is_told_how_to_get_in(
    server: Server, page: Page
) -> None:
    made = server.post("/api/tables", {"seats": 2, "public": False})
    page.goto(f"{server.url}/t/{made['code']}")
    expect(page.locator(".page .error")).to_contain_text("private table")
    expect(page.locator(".page .error")).to_contain_text("invite link")
    expect(page.locator(".page .error")).to_contain_text("invite code")
