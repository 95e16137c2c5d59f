"""Panels and dialogs never trap the mouse: with the panel after a hand up, the top bar
(Rules, ⚙, Home) is still the top bar; every dialog closes by its ✕, by Esc and by a
click outside it; after "Look at the table" a Ready button beside the table deals on."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import Console, Server
from .helpers import BOT, seat_in, to_the_middle

ME = "nertz: AH; work: 6S / 9C / KC / 4C; stock: 2C 3C 7H; waste: -"
"""One Nertz card: play it and call."""


def element_at_centre(page: Page, selector: str) -> bool:
    """Whether the element a click at the centre of ``selector`` reaches is that one."""
    return bool(
        page.evaluate(
            """(sel) => {
              const el = document.querySelector(sel);
              const r = el.getBoundingClientRect();
              const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
              return el === hit || el.contains(hit);
            }""",
            selector,
        )
    )


def test_the_top_bar_stays_clickable_and_every_dialog_closes_three_ways(
    page: Page, server: Server, console: Console
) -> None:
    code = server.table([ME, BOT])
    seat_in(page, f"{server.url}/t/{code}")
    to_the_middle(page)
    expect(page.locator(".fslot .card")).to_have_count(1)
    page.keyboard.press("n")
    panel = page.locator(".overlay .hand-end")
    expect(panel).to_be_visible(timeout=10_000)
    for button in (".rules-btn", ".settings summary", ".home-link"):
        assert element_at_centre(page, button), button

    # The rules over the panel: closed by the ✕, by Esc, and by a click outside.
    dialog = page.locator("dialog.rules-dialog")
    page.click(".rules-btn")
    expect(dialog).to_be_visible()
    page.click("dialog .close-x")
    expect(dialog).to_be_hidden()
    page.click(".rules-btn")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.click(".rules-btn")
    expect(dialog).to_be_visible()
    page.mouse.click(5, 700)  # on the backdrop, beside the dialog
    expect(dialog).to_be_hidden()
    expect(panel).to_be_visible()  # the panel under it stays

    # The panel after the hand closes the same three ways ("Look at the table").
    page.click(".overlay .hand-end .close-x")
    expect(panel).to_be_hidden()
    ready = page.locator(".actions .ready-side")
    expect(ready).to_be_visible()
    page.reload()  # the panel is back (between hands, from the server's totals)
    expect(panel).to_be_visible()
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    page.reload()
    expect(panel).to_be_visible()
    page.mouse.click(20, 700)  # the table's shade beside the panel
    expect(panel).to_be_hidden()

    # The button beside the table deals the next hand.
    expect(ready).to_have_text("Ready Enter")
    ready.click()
    expect(ready).to_be_hidden()
    expect(page.locator(".status")).to_contain_text("Play!", timeout=10_000)
