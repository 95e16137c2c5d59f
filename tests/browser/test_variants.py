"""Issue 6, "Done when": both variants are chosen when a table is created from the home
page and played to the end in the browser against bots. Tess creates a quick table
(a single hand) with partnerships (R40) and jokers (R41) on: she shares seat 1 with a
bot partner, against a seat of two demon racers. The hand and the match end with the
breakdown, and the rules in force show both variants."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from nertz.server.http.app import Config

from ..live_server import free_port, running
from .conftest import Console, Server
from .helpers import watched_page

SPEED = 8.0
"""Table time runs eight times faster (a test-only server setting): a two-seat hand of
bots is long, and what is tested here is that it ends, not how fast bots are."""


@pytest.fixture(scope="module")
def fast_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("variants") / "variants.db"
    with running(Config(db=str(db), port=free_port(), speed=SPEED)) as port:
        yield f"http://127.0.0.1:{port}"


def test_a_partnership_table_with_jokers_from_the_home_page_plays_to_the_end(
    page: Page, fast_server: str, console: Console
) -> None:
    page.goto(fast_server)
    page.fill("#name", "Tess")
    page.select_option("#preset", "quick")  # R4 variant: 11 Nertz cards, one hand
    page.click("summary")  # all options
    page.select_option("select[name=partnerships]", "on")
    page.select_option("select[name=jokers]", "on")
    page.select_option("#seats", "2")
    # With partnerships on, each seat is two people or bots (R40).
    page.select_option("select[name=who-0]", "mate")  # Tess and a bot partner
    page.select_option("select[name=who-1]", "bots")
    page.select_option("select[name=level-1]", "demon")
    page.select_option("select[name=style-1]", "racer")  # calls as soon as it can
    page.click("text=Create table and sit down")
    page.click(".ready-btn")
    expect(page.locator(".status")).to_contain_text("Play!", timeout=15_000)
    expect(page.locator(".my-head b")).to_have_text("Tess (you) & Fay")

    # The two racers call (or the table blocks): the hand, and so the match, ends.
    breakdown = page.locator(".hand-end")
    expect(breakdown).to_be_visible(timeout=120_000)
    expect(breakdown).to_contain_text("You & Fay")
    expect(breakdown).to_contain_text("wins the match")

    # The rules page of this table shows both variants in force.
    # A table made on the home page is private unless listed: its key opens its options.
    code, _, query = page.url.split("/t/")[1].split("#")[0].partition("?")
    page.goto(f"{fast_server}/rules?t={code}&{query}")
    options = page.locator("table.options")
    for name in ("jokers", "partnerships"):
        expect(options.locator("tr", has_text=name).first).to_contain_text("on (changed)")


@pytest.mark.parametrize("size", [(1280, 720), (390, 844), (844, 390)], ids=str)
def test_the_rules_in_one_minute_say_the_tables_own_options(
    browser: Browser, server: Server, size: tuple[int, int]
) -> None:
    """Issue 23: at an 11-card table (the quick preset: one hand decides, R4 and R32
    variants) drawing one card, the one-minute summary in the Rules dialog and on the
    rules page its seating panel opens says so, not the defaults."""
    made = server.post(
        "/api/tables",
        {"preset": "quick", "options": {"draw": "1", "penalty": "1"}, "public": False},
    )
    context, page, console = watched_page(browser, *size)
    try:
        page.goto(server.url + made["link"])
        page.fill("#join-name", "Tess")
        page.click("text=Take a seat")
        expect(page.locator(".ready-btn")).to_be_visible()
        page.keyboard.press("?")
        summary = page.locator(".rules-dialog .summary")
        for said in (
            "Your Nertz pile holds 11 cards",
            "costs you 1 point.",
            "Turn your stock one card at a time.",
            "−1 for each card left in your Nertz pile",
            "One hand decides: the highest hand score wins.",
        ):
            expect(summary).to_contain_text(said)
        expect(summary).not_to_contain_text("13 cards")
        page.keyboard.press("Escape")
        with context.expect_page() as opened:
            page.click("text=Rules and options in force")
        rules_page = opened.value
        expect(rules_page.locator(".summary")).to_contain_text("Your Nertz pile holds 11 cards")
        expect(rules_page.locator(".summary")).to_contain_text("One hand decides")
        assert console.errors == [], console.errors
    finally:
        context.close()
