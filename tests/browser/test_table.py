"""Tests 1, 2, 3 and 5 of issue 5: a hand through the UI, the keyboard alone, a refused
play, and a phone-sized screen played by touch. Every test also checks that the browser
console stays clean (test 6, the ``console`` fixture)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Console, Server
from .helpers import (
    BOT,
    drag,
    foundation,
    pile,
    seat_in,
    to_the_middle,
    touch_drag,
    watched_page,
)

ME = "nertz: 5D 2H AH; work: 6S / 9C / KC / 4C; stock: 3H 3C 7H; waste: -"
"""The first turn of the stock brings up the 3H for the hearts: the seat is never blocked,
so the table cannot end the hand (R24-R26) while a slow machine reaches for the call."""


def test_a_whole_hand_by_drags_and_taps(page: Page, server: Server, console: Console) -> None:
    code = server.table([ME, BOT, BOT, BOT])
    seat_in(page, f"{server.url}/t/{code}")
    nertz = '.mine [data-src="N"]'
    expect(page.locator(nertz)).to_have_attribute("aria-label", "ace of hearts")
    # A drag: the ace starts a foundation (R12).
    drag(page, nertz, ".middle")
    expect(page.locator(".fslot .card").first).to_have_attribute(
        "aria-label", "foundation F1: ace of hearts, 1 card"
    )
    # A double-click: the two of hearts goes to the foundation that takes it.
    expect(page.locator(nertz)).to_have_attribute("aria-label", "2 of hearts")
    page.dblclick(nertz)
    expect(page.locator(".fslot .card").first).to_have_attribute(
        "aria-label", "foundation F1: 2 of hearts, 2 cards"
    )
    # Tap, then tap: the five of diamonds onto the black six (R17).
    expect(page.locator(nertz)).to_have_attribute("aria-label", "5 of diamonds")
    page.click(nertz)
    expect(page.locator(".card.selected")).to_have_count(1)
    page.click(pile(1))
    expect(page.locator(pile(1))).to_have_attribute(
        "aria-label", "work pile 1: 6 of spades, 5 of diamonds"
    )
    # The Nertz pile is empty: the button comes alive; call (R27).
    call = page.locator("button.call")
    expect(call).to_be_enabled()
    call.click()
    breakdown = page.locator(".hand-end")
    expect(breakdown).to_be_visible(timeout=5000)
    expect(breakdown).to_contain_text("You called Nertz!")
    expect(breakdown).to_contain_text("2 − 2×0 = 2")
    expect(breakdown.locator("svg.chart")).to_be_visible()
    page.click(".ready-btn")
    expect(page.locator(".strip")).to_contain_text("Hand 2", timeout=5000)
    expect(breakdown).to_have_count(0)
    expect(page.locator(".status")).to_contain_text("Play!", timeout=5000)


def test_keyboard_only(page: Page, server: Server, console: Console) -> None:
    code = server.table(["nertz: 5D AH; work: 6S / 9C / KC / 4C; stock: 2C 3C 7H", BOT, BOT])
    page.goto(f"{server.url}/t/{code}")
    expect(page.locator("#join-name")).to_be_focused()  # the page puts the focus there
    page.keyboard.type("Kiki")
    page.keyboard.press("Enter")  # take the seat
    expect(page.locator(".ready-btn")).to_be_visible()
    page.keyboard.press("Enter")  # ready
    expect(page.locator(".status")).to_contain_text("Play!", timeout=10_000)
    page.keyboard.press("0")
    expect(page.locator(".card.selected")).to_have_attribute("aria-label", "ace of hearts")
    page.keyboard.press("f")
    expect(page.locator(".fslot .card").first).to_have_attribute(
        "aria-label", "foundation F1: ace of hearts, 1 card"
    )
    expect(page.locator('.mine [data-src="N"]')).to_have_attribute("aria-label", "5 of diamonds")
    page.keyboard.press("0")
    page.keyboard.press("1")
    expect(page.locator(pile(1))).to_have_attribute(
        "aria-label", "work pile 1: 6 of spades, 5 of diamonds"
    )
    page.keyboard.press("Space")
    expect(page.locator(".mine .pile.waste")).to_have_attribute(
        "aria-label", "waste: 3 cards, top 2 of clubs"
    )
    page.keyboard.press("Escape")
    page.keyboard.press("n")
    expect(page.locator(".hand-end")).to_contain_text("You called Nertz!", timeout=5000)


def test_a_refused_play_springs_back(page: Page, server: Server, console: Console) -> None:
    code = server.table([ME, BOT])
    seat_in(page, f"{server.url}/t/{code}")
    nine = '.mine [data-card="9C@0"]'
    drag(page, nine, ".middle")  # no foundation takes a nine of clubs (R13)
    expect(page.locator(".toast.error")).to_contain_text("does not fit")
    expect(page.locator(pile(2))).to_have_attribute("aria-label", "work pile 2: 9 of clubs")
    expect(page.locator(".fslot .card")).to_have_count(0)
    drag(page, nine, pile(3))  # nor does a king of clubs (R17)
    expect(page.locator(".toast.error").last).to_contain_text("cannot")
    expect(page.locator(pile(2))).to_have_attribute("aria-label", "work pile 2: 9 of clubs")
    expect(page.locator(pile(3))).to_have_attribute("aria-label", "work pile 3: king of clubs")


def test_phone_landscape_by_touch(browser: Browser, server: Server) -> None:
    context, page, console = watched_page(browser, 844, 390, touch=True, mobile=True)
    code = server.table([ME, BOT, BOT, BOT])
    page.goto(f"{server.url}/t/{code}")
    page.fill("#join-name", "Phoebe")
    page.tap("text=Take a seat")
    page.tap(".ready-btn")
    expect(page.locator(".status")).to_contain_text("Play!", timeout=10_000)
    size: Any = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    assert size[0] <= 844 and size[1] <= 390, size
    for selector in [*(pile(i) for i in range(1, 5)), ".mine .pile.nertz", ".mine .pile.stock"]:
        # The bots keep playing: a pile may be in the middle of being redrawn.
        box = None
        for _ in range(40):
            box = page.locator(selector).bounding_box()
            if box is not None:
                break
            page.wait_for_timeout(50)
        assert box is not None, f"{selector} is not on screen"
        assert box["x"] >= 0 and box["x"] + box["width"] <= 844, selector
        assert box["y"] >= 0 and box["y"] + 40 <= 390, selector
    touch_drag(page, '.mine [data-src="N"]', ".middle")
    expect(page.locator(".fslot .card").first).to_have_attribute(
        "aria-label", "foundation F1: ace of hearts, 1 card"
    )
    context.close()
    assert console.errors == [], console.errors


def test_tab_shows_the_scores_from_anywhere_but_forms_and_dialogs(
    page: Page, server: Server, console: Console
) -> None:
    code = server.table([ME, BOT])
    seat_in(page, f"{server.url}/t/{code}")
    strip = page.locator(".strip")
    focused = "() => document.activeElement.className || document.activeElement.tagName"

    def tab(shift: bool = False) -> None:
        page.keyboard.press("Shift+Tab" if shift else "Tab")

    expect(strip).to_have_attribute("aria-expanded", "false")
    tab()  # focus on the board
    expect(strip).to_have_attribute("aria-expanded", "true")
    expect(strip).to_contain_text("in middle")
    page.locator(".stuck-btn").focus()
    tab()  # focus on a button of the table: still the scores, and the focus stays
    expect(strip).to_have_attribute("aria-expanded", "false")
    assert page.evaluate(focused) == "stuck-btn"
    page.locator(".mine [data-src='N']").click()  # a card picked with the mouse
    tab()
    expect(strip).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Escape")
    page.locator(".rules-btn").focus()
    tab(shift=True)  # Shift+Tab moves the focus as usual (here back to the strip)
    assert page.evaluate(focused).startswith("strip")
    expect(strip).to_have_attribute("aria-expanded", "true")

    # In the display settings (a form), Tab moves between its fields.
    page.click(".settings summary")
    tab()
    assert page.evaluate("document.activeElement.type") == "checkbox"
    tab()
    assert page.evaluate("document.activeElement.type") == "checkbox"
    expect(strip).to_have_attribute("aria-expanded", "true")
    page.click(".settings summary")  # closed again

    # In the rules dialog, Tab is the dialog's.
    page.locator(".board").focus()
    page.keyboard.press("?")
    dialog = page.locator("dialog.rules-dialog")
    expect(dialog).to_be_visible()
    # Its options come from the server's declaration (GET /api/rules), with their meaning.
    expect(dialog.locator("table.options tr", has_text="tie_window_ms")).to_contain_text("R16")
    assert page.evaluate("document.activeElement.closest('dialog') !== null")
    tab()
    expect(dialog).to_be_visible()
    expect(strip).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    tab()  # back on the table: the scores again
    expect(strip).to_have_attribute("aria-expanded", "false")


def middle_of(page: Page, selector: str) -> tuple[float, float]:
    expect(page.locator(selector)).to_be_visible()  # drawn (a busy page draws late)
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


CALLER = "nertz: AH; work: 6S / 5H / KC / 4C; stock: 2C 3C 7H; waste: -"
"""One Nertz card to play before a call (R27), and a move left (5H on 6S): the table
is not blocked, so the hand goes on until she calls (R25)."""


@pytest.mark.parametrize("size", [(1280, 720), (390, 844), (844, 390)], ids=str)
def test_a_card_dropped_just_after_the_hand_ended_says_the_hand_is_over(
    browser: Browser, server: Server, size: tuple[int, int]
) -> None:
    """Issue 23: a drag let go after the hand ended is not "Wait for Go (R8)": the hand
    is over (R28), as the server says of a play that comes after it."""
    context, page, console = watched_page(browser, *size)
    try:
        code = server.table([CALLER, BOT])
        seat_in(page, f"{server.url}/t/{code}")
        to_the_middle(page)  # her one Nertz card: she may call (R27)
        expect(foundation(page, 1)).to_be_visible()
        # (Measured, not settled: the Nertz! button pulses while she may call.)
        mx, my = middle_of(page, ".middle")
        x, y = middle_of(page, '.mine [data-src="4"]')  # the 4 of clubs, picked up
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 10, y - 10, steps=3)
        page.keyboard.press("n")  # she calls while holding it: the hand ends (R28)
        expect(page.locator(".overlay .panel.hand-end")).to_be_visible()
        page.mouse.move(mx, my, steps=5)
        page.mouse.up()  # let go over the middle
        expect(page.locator(".toast").last).to_have_text("The hand is over (R28).")
        expect(page.locator(".toast", has_text="Wait for Go")).to_have_count(0)
        assert console.errors == [], console.errors
    finally:
        context.close()
