"""Duplicate Nertz in the browser (option ``duplicate``, R42-R46 of
docs/rules-decisions.md): the panel after each hand shows the points and the duplicate
score, pending until the deal has been played from every seat; the match's end says
who won on the duplicate total, with both totals; so does the match's sheet in "My
games"."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from .conftest import Console, Server
from .helpers import BOT, foundation, seat_in, to_the_middle

TESS = "nertz: AH; work: 6S / 9C / KC / 4C; stock: 3C 7D 2H; waste: -"
"""Tess's cards on hand 1 (draw 1): the ace from her Nertz pile, then the 2H she turns,
then the call: 2 points. On hand 2 the bot plays these cards (R42); a prompt bot calls
the moment its ace is in: 1 point."""

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def test_the_panels_show_points_and_duplicate_scores_r43(
    page: Page, server: Server, console: Console, tmp_path: Path
) -> None:
    code = server.table(
        [TESS, BOT],
        bots={"1": "beginner:prompt"},
        options={"duplicate": "on", "match": "single", "draw": "1"},
        next_hand_s=600,
    )
    seat_in(page, f"{server.url}/t/{code}")
    to_the_middle(page)
    f1 = foundation(page, 1)
    expect(f1).to_have_attribute("aria-label", "foundation F1: ace of hearts, 1 card")
    page.keyboard.press("Space")  # turns the 2H (draw 1)
    expect(page.locator(".mine .pile.waste")).to_have_attribute(
        "aria-label", re.compile(r"top 2 of hearts$")
    )
    page.keyboard.press("w")
    page.keyboard.press("f")
    expect(f1).to_have_attribute("aria-label", "foundation F1: 2 of hearts, 2 cards")
    page.keyboard.press("n")

    panel = page.locator(".overlay .hand-end")
    expect(panel).to_be_visible(timeout=10_000)
    expect(panel.locator(".duplicate-line")).to_contain_text("play 1 of 2 of this deal")
    heads = panel.locator(".breakdown thead th")
    expect(heads.nth(6)).to_have_text("duplicate this deal (R43)")
    expect(heads.nth(7)).to_have_text("duplicate total")
    mine = panel.locator(".breakdown tbody tr").nth(0)
    expect(mine.locator(".arith")).to_have_text("2 − 2×0 = 2")
    expect(mine.locator("td.dup-score.pending")).to_have_text("after play 2")  # R44
    panel.screenshot(path=str(tmp_path / "duplicate-pending.png"))

    page.click(".overlay .ready-btn")  # hand 2: Tess gets the bot's cards, it gets hers
    expect(panel.locator(".duplicate-line")).to_contain_text(
        "played 2 times, once from every seat", timeout=30_000
    )
    rows = panel.locator(".breakdown:not(.duplicate-totals) tbody tr")
    # Tess: 2 then -2 (the bot's 9S stays in her pile); the bot: -2 then 1. On Tess's
    # cards of hand 1, 2 and 1 (average 1.5); on the bot's, -2 and -2 (R43).
    expect(rows.nth(0).locator(".arith")).to_have_text("0 − 2×1 = -2")
    expect(rows.nth(0).locator("td.dup-score").first).to_have_text("+0.5")
    expect(rows.nth(1).locator("td.dup-score").first).to_have_text("-0.5")
    expect(panel.locator(".winners")).to_have_text(
        "You win the match with +0.5 duplicate (0 points)!"
    )
    totals = panel.locator(".duplicate-totals tbody tr")
    expect(totals.nth(0).locator("td")).to_have_text(["0", "+0.5"])
    expect(totals.nth(1).locator("td")).to_have_text(["-1", "-0.5"])
    panel.screenshot(path=str(tmp_path / "duplicate-end.png"))

    # The match's sheet, hand by hand ("My games"): both scores on every hand.
    page.locator(".settings summary").click()
    page.locator(".settings a.my-games").click()
    page.wait_for_url(f"{server.url}/me")
    line = page.locator(".series-block .match")
    expect(line).to_have_count(1)
    line.get_by_role("link", name="Match 1").click()
    page.wait_for_url(f"{server.url}/matches/**")
    expect(page.locator(".match-result")).to_contain_text(
        "won by you with +0.5 duplicate (0 points) (R45)"
    )
    hands = page.locator(".match-hands tr.hand")
    expect(hands).to_have_count(2)
    expect(hands.nth(0).locator("td .dup-score")).to_have_text([" duplicate +0.5", " duplicate 0"])
    expect(hands.nth(1).locator("td .dup-score")).to_have_text([" duplicate 0", " duplicate -0.5"])
    expect(page.locator(".match-hands tr.duplicate-totals td")).to_have_text(["+0.5", "-0.5"])
    page.screenshot(path=str(tmp_path / "duplicate-sheet.png"), full_page=True)
    assert not console.errors
