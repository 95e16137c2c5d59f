"""The home page (issue 23, section 3): a new table is private unless listing it is
chosen; "Your past matches" lists this browser's own matches at private tables too (as
/me does); offline, the page still leads to what works without the network (the rules,
the guided hand). Each checked upright (390×844), sideways (844×390) and on a desktop."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Server
from .helpers import BOT, SIZES, sized_page, wait_go

ME = "nertz: AH; work: 6S / 9C / KC / 4C; stock: 2H 3C 7H; waste: -"
"""One Nertz card: play it and call (R27), the one-hand match won."""


def in_view(page: Page, selector: str) -> None:
    """``selector`` is visible and wholly inside the window's width."""
    expect(page.locator(selector).first).to_be_visible()
    page.locator(selector).first.scroll_into_view_if_needed()
    box = page.locator(selector).first.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5, (selector, box)


@pytest.mark.parametrize("way", list(SIZES))
def test_a_new_table_is_private_unless_listing_is_chosen(
    browser: Browser, server: Server, way: str
) -> None:
    context, page, console = sized_page(browser, way)
    try:
        page.goto(server.url)
        listed = page.locator('#create input[name="public"]')
        expect(listed).not_to_be_checked()
        in_view(page, '#create input[name="public"]')
        page.fill("#name", "Pat")
        page.click("text=Create table and sit down")
        page.wait_for_url("**/t/*")
        code = page.url.split("/t/")[1].split("?")[0]
        assert "key=" in page.url  # a private table's link carries its key
        assert code not in [t["code"] for t in server.get("/api/tables")["tables"]]
        # Its seating panel's "Rules and options in force" opens them (the key goes along).
        link = page.locator(".overlay .seating a[href^='/rules']")
        page.goto(server.url + str(link.get_attribute("href")))
        expect(page.locator("h2").filter(has_text="Options in force")).to_have_text(
            f"Options in force at table {code}"
        )

        page.goto(server.url)  # listing is a choice
        page.check('#create input[name="public"]')
        page.click("text=Create table and sit down")
        page.wait_for_url("**/t/*")
        listed_code = page.url.split("/t/")[1].split("?")[0]
        assert listed_code in [t["code"] for t in server.get("/api/tables")["tables"]]
        assert console.errors == [], console.errors
    finally:
        context.close()


@pytest.mark.parametrize("way", list(SIZES))
def test_past_matches_include_this_browsers_matches_at_private_tables(
    browser: Browser, server: Server, way: str
) -> None:
    context, page, console = sized_page(browser, way)
    try:
        made = server.post(
            "/api/test/tables",
            {
                "layouts": [ME, BOT],
                "seats": 2,
                "bots": {"1": "beginner:scorer"},
                "countdown_ms": 300,
                "public": False,
                "options": {"match": "single"},
            },
        )
        assert "key" in made
        page.goto(server.url + made["link"])
        page.fill("#join-name", "Pat")
        page.click("text=Take a seat")
        page.click(".overlay .ready-btn")
        wait_go(page)
        page.dblclick('.mine [data-src="N"]')
        expect(page.locator(".fslot .card")).to_have_count(1)
        page.keyboard.press("n")  # the one-hand match is over: Pat won it
        expect(page.locator(".overlay .hand-end")).to_be_visible(timeout=10_000)

        page.goto(server.url)
        past = page.locator(".past li").filter(has_text=f"table {made['code']}")
        expect(past).to_have_count(1)
        expect(past).to_contain_text("and won")
        expect(past).to_contain_text("you 1")
        in_view(page, ".past li a")
        page.click(".past li a")  # the match's own page
        page.wait_for_url("**/matches/**")
        assert console.errors == [], console.errors
    finally:
        context.close()


@pytest.mark.parametrize("way", list(SIZES))
def test_offline_the_home_page_leads_to_the_rules_and_the_guided_hand(
    browser: Browser, server: Server, way: str
) -> None:
    width, height = SIZES[way]
    phone = way != "desktop"
    context = browser.new_context(
        bypass_csp=True,  # wait_for_function evaluates its predicate (conftest.py)
        viewport={"width": width, "height": height},
        has_touch=phone,
        is_mobile=phone,
    )
    try:
        page = context.new_page()
        page.goto(server.url)  # one visit: the service worker keeps the shell
        page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=15_000)
        page.wait_for_function(
            "caches.keys().then(ks => Promise.all(ks.map(k => caches.open(k)"
            ".then(c => c.match('/static/js/main.js'))))).then(rs => rs.some(Boolean))",
            timeout=15_000,
        )
        context.set_offline(True)
        page.reload()
        expect(page.locator(".error")).to_contain_text("could not be loaded")
        for link in ('a[href="/rules"]', 'a[href="/learn"]'):
            in_view(page, f".page.home {link}")
        page.click('.page.home a[href="/rules"]')
        expect(page.locator("h1")).to_have_text("How to play Nertz")
    finally:
        context.close()
