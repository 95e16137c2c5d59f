"""Issue 6, "Done when": both variants are chosen when a table is created from the home
page and played to the end in the browser against bots. Tess creates a quick table
(a single hand) with partnerships (R40) and jokers (R41) on: she shares seat 1 with a
bot partner, against a seat of two demon racers. The hand and the match end with the
breakdown, and the rules in force show both variants."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from nertz.server.app import Config

from ..live_server import free_port, running
from .conftest import Console

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
