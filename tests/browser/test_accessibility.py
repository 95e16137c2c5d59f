"""An axe-core scan (WCAG 2.1 A and AA, ``axe-playwright-python``, which bundles
axe.min.js: no network) of every kind of page a person sees — home, a table mid-hand
with its panel after a hand, the rules, a score sheet with a hand — on a desktop and on
a phone held upright: no violation, and no page wider than the screen."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

from .conftest import Console, Server
from .helpers import BOT, no_sideways_scroll, seat_in, settle, to_the_middle, watched_page

WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
SIZES = {"desktop": (1280, 720), "phone": (390, 844)}
ME = "nertz: 5D AH; work: 6S / 9C / KC / 4C; stock: 2C 3C 7H; waste: -"
"""The ace plays, the 5 stays: the hand goes on."""
ONE = "nertz: AH; work: 6S / 9C / KC / 4C; stock: 2C 3C 7H; waste: -"
"""One Nertz card: play it and call (R27)."""


def scan(page: Page, what: str) -> None:
    settle(page)
    results = Axe().run(page, options=WCAG)
    assert results.violations_count == 0, f"{what}:\n{results.generate_report()}"
    no_sideways_scroll(page)  # at a phone's width too


def sized(browser: Browser, size: str) -> tuple[BrowserContext, Page, Console]:
    """A fresh context at one of SIZES (touch on the phone), its page, and a console
    watching that page; the caller closes the context."""
    width, height = SIZES[size]
    return watched_page(browser, width, height, touch=size == "phone")


@pytest.mark.parametrize("size", list(SIZES))
def test_every_page_passes_an_axe_scan(browser: Browser, server: Server, size: str) -> None:
    context, page, console = sized(browser, size)
    try:
        page.goto(server.url)
        expect(page.locator(".bot-choice")).to_have_count(4)
        scan(page, "home")

        page.goto(f"{server.url}/rules")
        expect(page.locator(".summary .card").first).to_be_visible()
        scan(page, "rules")

        page.goto(f"{server.url}/sheet")
        page.click("text=− player")  # four to start with
        for i, name in enumerate(["Ann", "Bob", "Cat"]):
            page.fill(f".pname >> nth={i}", name)
        page.click("text=Start the sheet")
        page.wait_for_url("**/sheet/*")
        for seat, (middle, left) in enumerate([(18, 4), (3, 6), (14, 0)]):
            page.fill(f'.in-middle[data-seat="{seat}"]', str(middle))
            page.fill(f'.in-left[data-seat="{seat}"]', str(left))
        page.select_option(".in-caller", "2")
        page.click(".add-hand")
        expect(page.locator(".msg")).to_contain_text("Hand 1 added")
        scan(page, "score sheet")

        code = server.table([ME, BOT, BOT])
        seat_in(page, f"{server.url}/t/{code}")
        to_the_middle(page)
        expect(page.locator(".fslot .card")).to_have_count(1)
        scan(page, "a table mid-hand")
        page.click(".rules-btn")
        scan(page, "the rules at a table")
        page.keyboard.press("Escape")

        code = server.table([ONE, BOT, BOT])
        seat_in(page, f"{server.url}/t/{code}")
        to_the_middle(page)
        expect(page.locator(".fslot .card")).to_have_count(1)
        page.keyboard.press("n")
        expect(page.locator(".overlay .hand-end")).to_be_visible(timeout=10_000)
        scan(page, "the panel after a hand")
        assert console.errors == [], console.errors
    finally:
        context.close()
