"""The running totals come from the server (``history`` in the table summary): a page
reloaded between hands, or opened by someone who comes in mid-match, charts every hand
from the first, not only the hands it saw."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from .conftest import Console, Server
from .helpers import BOT, seat_in, wait_go

ME = "nertz: AH; work: 6S / 9C / KC / 4C; stock: 2C 3C 7H; waste: -"
"""One Nertz card: play it and call. Each hand scores 1 (R30)."""


def play_and_call(page: Page) -> None:
    page.dblclick('.mine [data-src="N"]')
    expect(page.locator(".fslot .card").first).to_have_attribute(
        "aria-label", "foundation F1: ace of hearts, 1 card"
    )
    page.keyboard.press("n")


def test_the_chart_keeps_every_hand_after_a_reload_and_for_a_late_comer(
    page: Page, browser: Browser, server: Server, console: Console
) -> None:
    code = server.table([ME, BOT])
    url = f"{server.url}/t/{code}"
    seat_in(page, url)
    play_and_call(page)
    chart = page.locator(".hand-end svg.chart")
    expect(chart).to_contain_text("hand 1")
    total = server.get(f"/api/tables/{code}")
    assert total["history"] == [total["totals"]] and total["totals"][0] == 1

    page.reload()  # between hands: the breakdown is gone, the chart is not
    panel = page.locator(".hand-end")
    expect(panel).to_contain_text("Hand 1 over")
    expect(panel.locator("svg.chart")).to_contain_text("hand 1")
    expect(panel.locator("svg.chart title")).to_have_text(
        f"Running totals: You 1, Ben {total['totals'][1]}"
    )

    # Someone else comes to watch after hand 1; then hand 2 is played.
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 720})
    watcher = context.new_page()
    watcher_console = Console()
    watcher_console.watch(watcher)
    watcher.goto(url)
    watcher.click("text=Just watch")
    expect(watcher.locator(".hand-end svg.chart")).to_contain_text("hand 1")

    page.click(".ready-btn")
    wait_go(page)
    expect(page.locator(".strip")).to_contain_text("Hand 2")
    play_and_call(page)
    for p in (page, watcher):
        chart = p.locator(".hand-end svg.chart")
        expect(p.locator(".hand-end")).to_contain_text("Hand 2 over")
        expect(chart).to_contain_text("hand 1")
        expect(chart).to_contain_text("hand 2")
        for line in chart.locator("polyline").all():  # start, hand 1, hand 2 for each seat
            expect(line).to_have_attribute("points", re.compile(r"^\S+ \S+ \S+$"))
    after = server.get(f"/api/tables/{code}")
    assert after["history"] == [total["totals"], after["totals"]]
    expect(watcher.locator(".hand-end svg.chart title")).to_have_text(
        f"Running totals: Tess {after['totals'][0]}, Ben {after['totals'][1]}"
    )
    context.close()
    assert watcher_console.errors == [], watcher_console.errors
