"""The table fits a phone either way up: at 390×844 (upright) and 844×390 (sideways) the
page never scrolls sideways, every primary button lies inside the screen without
scrolling (the seating's Ready, Nertz! and Stuck, the panel after a hand's Ready, the
rules' ✕), and your own cards are large enough to tap."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Server
from .helpers import BOT, no_sideways_scroll, to_the_middle, wait_go, watched_page

ME = "nertz: AH; work: 6S / 9C / KC / 4C; stock: 2H 3C 7H; waste: -"
"""One Nertz card: play it and call (R27). The two of hearts in the stock keeps the seat
from being blocked once the ace is played (R24): with the bots' seats blocked from the
start, the table would otherwise rotate and end the hand two seconds later (R25, R26),
and its panel would cover the Nertz! button before a slow machine clicked it."""
PHONES = {"upright": (390, 844), "sideways": (844, 390)}


def inside(page: Page, selector: str) -> None:
    """``selector`` is visible and wholly inside the viewport as it is (no scrolling)."""
    expect(page.locator(selector).first).to_be_visible()
    box = page.locator(selector).first.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= size["width"] + 0.5, (selector, box, size)
    assert box["y"] + box["height"] <= size["height"] + 0.5, (selector, box, size)


@pytest.mark.parametrize("way", list(PHONES))
def test_a_phone_either_way_up_fits_without_scrolling(
    browser: Browser, server: Server, way: str
) -> None:
    width, height = PHONES[way]
    context, page, console = watched_page(browser, width, height, touch=True, mobile=True)
    try:
        code = server.table(
            [ME, BOT, BOT, BOT], bots={str(i): "beginner:scorer" for i in (1, 2, 3)}
        )
        page.goto(f"{server.url}/t/{code}")
        page.fill("#join-name", "Tess")
        page.click("text=Take a seat")
        inside(page, ".ready-btn")
        no_sideways_scroll(page)
        page.click(".ready-btn")
        wait_go(page)
        no_sideways_scroll(page)
        for button in (".call", ".stuck-btn", ".rules-btn", ".settings summary", ".home-link"):
            inside(page, button)
        for pile in ("N", "1", "4"):
            # A bot's move redraws the layouts: measure again if the card was replaced.
            card = None
            for _ in range(20):
                card = page.locator(f'.mine .pile[data-pile="{pile}"] .card').last.bounding_box()
                if card is not None:
                    break
                page.wait_for_timeout(50)
            assert card is not None and card["width"] >= 44, (pile, card)
        expect(page.locator(".status")).to_have_text("Play!")  # not cut to "P…"

        page.click(".rules-btn")
        inside(page, "dialog .close-x")
        page.click("dialog .close-x")

        to_the_middle(page)
        expect(page.locator(".fslot .card")).to_have_count(1)
        page.click(".call")
        expect(page.locator(".overlay .hand-end")).to_be_visible(timeout=10_000)
        no_sideways_scroll(page)
        inside(page, ".overlay .ready-btn")
        inside(page, ".overlay .close-x")
        page.click(".overlay .ready-btn")
        assert console.errors == [], console.errors
    finally:
        context.close()
