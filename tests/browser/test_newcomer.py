"""A newcomer's way in: bots chosen in plain words and named like people."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .conftest import Console, Server


def test_bots_are_chosen_by_plain_words_and_named_like_people(
    page: Page, server: Server, console: Console
) -> None:
    page.goto(server.url)
    page.fill("#name", "Tess")
    choices = page.locator(".bot-choice")
    # The four choices come from the server (GET /api/rules), the gentlest picked.
    expect(choices).to_have_count(4)
    expect(choices.locator("b")).to_have_text(["Relaxed", "Even", "Sharp", "Fierce"])
    expect(page.locator("input[name=bots][value=relaxed]")).to_be_checked()
    expect(page.locator("select[name=level-1]")).to_have_value("beginner")
    choices.filter(has_text="Sharp").click()  # master bots: a level the server lists (issue 28)
    expect(page.locator("select[name=level-2]")).to_have_value("master")
    choices.filter(has_text="Fierce").click()
    expect(page.locator("select[name=level-1]")).to_have_value("expert")
    expect(page.locator("select[name=style-2]")).to_have_value("racer")
    # A seat for a person needs no bot level or style.
    page.select_option("select[name=who-3]", "person")
    expect(page.locator("select[name=level-3]")).to_be_hidden()
    page.select_option("select[name=who-3]", "bot")
    expect(page.locator("select[name=level-3]")).to_be_visible()
    # A table of people only offers no bots at all.
    page.select_option("select[name=seats]", "2")
    page.select_option("select[name=who-1]", "person")
    expect(page.locator(".bot-choices")).to_be_hidden()
    page.select_option("select[name=who-1]", "bot")
    expect(page.locator(".bot-choices")).to_be_visible()
    page.select_option("select[name=seats]", "4")
    page.click("text=Create table and sit down")

    # At the table the bots go by people's names, with no spec anywhere on screen.
    heads = page.locator(".opp-head b")
    expect(heads).to_have_text(["Ben", "Cleo", "Dev"])
    expect(page.locator(".opp-head").first).to_contain_text("bot")
    page.click(".ready-btn")
    expect(page.locator(".status")).to_contain_text("Play!", timeout=15_000)
    body = page.locator("body").inner_text()
    for jargon in ("beginner", "skilled", "expert", "master", "demon", "racer", "balanced"):
        assert jargon not in body, jargon


def test_practice_is_against_the_bots_picked_beside_it(
    page: Page, server: Server, console: Console
) -> None:
    page.goto(server.url)
    picker = page.locator("#practice-bots")
    # The plain choices, the gentlest first and picked: a first practice stays gentle.
    expect(picker.locator("option")).to_have_text(["Relaxed", "Even", "Sharp", "Fierce"])
    expect(picker).to_have_value("relaxed")
    picker.select_option("sharp")  # master bots (issue 28): out-thought, not out-run
    page.click("text=Practice against a bot")
    page.wait_for_url(re.compile(r"/t/[A-Z0-9]+\?key="))
    code = re.search(r"/t/([A-Z0-9]+)", page.url).group(1)  # type: ignore[union-attr]
    key = page.url.split("key=", 1)[1].split("#", 1)[0]
    seats = server.get(f"/api/tables/{code}?key={key}")["seats"]
    assert [s["bot"] for s in seats[1:]] == ["master:balanced"]
    expect(page.locator(".opp-head b")).to_have_count(1)
