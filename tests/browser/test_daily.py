"""The daily deal in the browser (issue 27, point 4): from the home page Tess plays
today's deal to its end, sees the day's board with her score and its distribution,
and the best hand's replay link; from the same address a fresh browser's counted try
is refused and practice offered, which deals the same deal uncounted."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from nertz.server.http.app import Config

from ..live_server import free_port, running
from .conftest import ROOMY
from .helpers import wait_go, watched_page
from .test_accessibility import scan

SPEED = 20.0
"""The bots play the hand twenty times faster (``Config.speed``): it ends in seconds."""
SHOTS = Path(os.environ.get("NERTZ_SHOTS", "/tmp/nertz-shots"))
"""Where the test's screenshots go, to be looked at (not part of the repository)."""


class DayClock:
    """The server's wall clock: the real one, ``ahead`` seconds on (a day: 86,400)."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


CLOCK = DayClock()


@pytest.fixture
def daily_server(tmp_path: Path) -> Iterator[str]:
    CLOCK.ahead = 0.0
    config = Config(
        db=str(tmp_path / "daily.db"),
        port=free_port(),
        limits=ROOMY,
        speed=SPEED,
        clock=CLOCK,
    )
    with running(config) as port:
        yield f"http://127.0.0.1:{port}"


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"daily-{name}.png"))


COUNT_ROTATIONS = """
window.__rotations = 0;
new MutationObserver((changes) => {
  for (const change of changes)
    for (const node of change.addedNodes)
      if (node.textContent?.startsWith("Rotation:")) window.__rotations += 1;
}).observe(document, { childList: true, subtree: true });
"""
"""A page's count of the rotations it has told of (its toast: every stock turned over)."""


def until_the_end_saying_stuck(page: Page, end: Locator) -> None:
    """The person plays nothing more and says stuck whenever she may (R25), until ``end``
    shows: bots blocked on a deal with their aces under their Nertz cards then rotate at
    once, and a table still blocked ends (R26), as a player at a real table would have
    it, instead of waiting out ``idle_rotate_s`` (or for ever, while she could play).
    The page counts rotations with ``COUNT_ROTATIONS``."""
    for _ in range(100):  # a bound: each round is a rotation, or the end
        page.wait_for_function(
            """() => document.querySelector(".daily-board-link")
                || document.querySelector(".stuck-btn:not([disabled])")""",
            timeout=60_000,
        )
        if end.count():
            return
        rotations = page.evaluate("window.__rotations")
        page.keyboard.press("s")
        page.wait_for_function(  # the server has it: she is stuck, or everyone was
            """(before) => document.querySelector(".daily-board-link")
                || document.querySelector(".stuck-btn[disabled]")
                || window.__rotations > before""",
            arg=rotations,
        )


def test_play_the_daily_deal_see_the_board_and_a_second_try_is_refused(
    browser: Browser, daily_server: str
) -> None:
    tess_context, tess, tess_console = watched_page(browser, 1280, 800)
    other_context, other, other_console = watched_page(browser, 1280, 800)
    try:
        # A second browser from the same address opens today's deal first: not played.
        other.goto(daily_server + "/daily")
        expect(other.locator("#daily-play")).to_be_visible()

        tess.add_init_script(COUNT_ROTATIONS)
        tess.goto(daily_server)
        tess.click("#daily-link")
        expect(tess.locator("h1")).to_have_text("Today's deal")
        tess.fill("#daily-name", "Tess")
        tess.click("#daily-play")
        expect(tess).to_have_url(re.compile(r"/t/[A-Z0-9]+"))
        tess.locator(".ready-btn").click()
        wait_go(tess)
        tess.keyboard.press("Space")  # her stock turned; the bots play the rest
        link = tess.locator(".daily-board-link")
        until_the_end_saying_stuck(tess, link)
        expect(link).to_be_visible()
        shot(tess, "end")
        link.click()

        board = tess.locator(".daily-board")
        expect(board).to_contain_text("Tess")
        expect(tess.locator(".daily-board tr.yours")).to_contain_text("Tess")
        expect(tess.locator(".daily-played")).to_contain_text("You scored")
        expect(tess.locator("svg.histogram rect.bar.yours")).to_have_count(1)
        expect(tess.locator(".daily-best a")).to_have_attribute(
            "href", re.compile(r"^/replay/[0-9a-f]+\?hand=1$")
        )
        expect(tess.locator(".commitment")).to_be_visible()
        expect(tess.locator(".seed")).to_have_count(0)  # published the next day
        shot(tess, "board")
        scan(tess, "the daily deal's board")

        # The other browser tries its counted try: refused, practice offered.
        other.fill("#daily-name", "Tessa")
        other.click("#daily-play")
        refused = other.locator(".daily-refused")
        expect(refused).to_contain_text("counted try has been played from this address")
        shot(other, "refused")
        scan(other, "a refused counted try")
        other.click("#daily-practice")
        expect(other).to_have_url(re.compile(r"/t/[A-Z0-9]+"))
        expect(other.locator(".ready-btn")).to_be_visible()

        # Tess's page offers practice too, never a second counted try.
        tess.goto(daily_server + "/daily")
        expect(tess.locator("#daily-practice")).to_be_visible()
        expect(tess.locator("#daily-play")).to_have_count(0)
        phone_context, phone, _ = watched_page(browser, 390, 844, touch=True, mobile=True)
        try:  # upright on a phone: the board fits the screen, and passes the scan
            phone.goto(daily_server + "/daily")
            expect(phone.locator(".daily-board")).to_contain_text("Tess")
            scan(phone, "the board on a phone")
            shot(phone, "phone")
        finally:
            phone_context.close()
        # The next day: yesterday's board stays readable, with its seed and its deal.
        day = tess.locator(".daily-table").inner_text().split(" on ")[1][:10]
        CLOCK.ahead = 86_400
        tess.goto(daily_server + "/daily")
        tess.click("text=The day before")
        expect(tess.locator("h1")).to_have_text(f"The deal of {day}")
        expect(tess.locator(".daily-board")).to_contain_text("Tess")
        expect(tess.locator(".seed")).to_have_text(re.compile(r"^\d+$"))
        seed = tess.locator(".seed").inner_text()
        fingerprint = tess.evaluate(
            """async (text) => [...new Uint8Array(await crypto.subtle.digest(
                "SHA-256", new TextEncoder().encode(text)))]
                .map((b) => b.toString(16).padStart(2, "0")).join("")""",
            f"nertz-daily:{day}:{seed}",
        )
        expect(tess.locator(".daily-seed")).to_contain_text(fingerprint)  # the seed exact
        expect(tess.locator(".daily-layouts li")).to_have_count(4)
        shot(tess, "yesterday")
        # The refused try's 409 is the browser's own note of an answer it was meant to get.
        unexpected = [e for e in other_console.errors if "409 (Conflict)" not in e]
        assert tess_console.errors == [] and unexpected == [], tess_console.errors + unexpected
    finally:
        tess_context.close()
        other_context.close()
