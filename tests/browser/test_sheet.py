"""Test 4 of issue 5: the score sheet for real cards reproduces R31's worked hands,
declares the winner, and refuses bad input with a message, saving nothing."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Console, Server
from .helpers import no_sideways_scroll, watched_page

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve"]
HAND = [(18, 4), (3, 6), (14, 0), (22, 3), (22, 1)]
"""R31: scores 10, -9, 14, 16, 20; Cat called (her Nertz pile is empty)."""


def enter(page: Page, hand: list[tuple[int, int]], caller: str) -> None:
    for seat, (middle, left) in enumerate(hand):
        page.fill(f'.in-middle[data-seat="{seat}"]', str(middle))
        page.fill(f'.in-left[data-seat="{seat}"]', str(left))
    page.select_option(".in-caller", caller)
    page.click(".add-hand")


def test_score_sheet(page: Page, server: Server, console: Console) -> None:
    page.goto(f"{server.url}/sheet")
    page.click("text=+ player")
    for i, name in enumerate(NAMES):
        page.fill(f".pname >> nth={i}", name)
    page.fill('input[name="target"]', "15")
    page.click("text=Start the sheet")
    page.wait_for_url("**/sheet/*")
    sheet_id = page.url.rsplit("/", 1)[1]
    message = page.locator(".msg")

    enter(page, [(18, 14), *HAND[1:]], "")  # 14 left from a pile of 13
    expect(message).to_contain_text("Ann: Nertz cards left must be 0 to 13")
    enter(page, [(53, 4), *HAND[1:]], "")
    expect(message).to_contain_text("cards in the middle must be 0 to 52")
    enter(page, HAND, "1")  # Bob called with 6 cards left
    expect(message).to_contain_text("Bob called Nertz, so their Nertz cards left must be 0")
    assert server.get(f"/api/sheets/{sheet_id}")["hands"] == []  # nothing was saved

    enter(page, HAND, "2")
    expect(message).to_contain_text("Hand 1 added")
    for seat, points in enumerate([10, -9, 14, 16, 20]):
        expect(page.locator(f'tr[data-hand="1"] td[data-seat="{seat}"]')).to_contain_text(
            f"→ {points}"
        )
    expect(page.locator(".winners")).to_have_text("Winner: Eve with 20!")

    page.click('tr[data-hand="1"] >> text=Void')  # a voided hand is not scored
    expect(page.locator(".winners")).not_to_contain_text("Winner")
    page.click('tr[data-hand="1"] >> text=Unvoid')
    expect(page.locator(".winners")).to_have_text("Winner: Eve with 20!")

    page.reload()  # stored on the server: the link shows the same sheet
    expect(page.locator(".winners")).to_have_text("Winner: Eve with 20!")
    csv = page.request.get(f"{server.url}/api/sheets/{sheet_id}/csv").text()
    assert "1,Eve,22,1,,0,20,20" in csv and "winner,Eve" in csv


def test_a_jokers_sheet_takes_54_cards_and_refuses_55(
    page: Page, server: Server, console: Console
) -> None:
    """R41: with the jokers option a deck has 54 cards; the message names the limit."""
    page.goto(f"{server.url}/sheet")
    for i, name in enumerate(["Ann", "Bob"]):
        page.fill(f".pname >> nth={i}", name)
    page.click("text=− player")
    page.click("text=− player")
    page.select_option('select[name="jokers"]', "on")
    page.click("text=Start the sheet")
    page.wait_for_url("**/sheet/*")
    expect(page.locator(".rules-line")).to_contain_text("jokers: 54 cards a deck (R41)")
    message = page.locator(".msg")
    enter(page, [(55, 0), (30, 5)], "0")
    expect(message).to_have_text(
        "hand 1, Ann: cards in the middle must be 0 to 54 (a deck of 54, R1, R41: jokers on),"
        " not 55"
    )
    enter(page, [(54, 0), (30, 5)], "0")
    expect(message).to_contain_text("Hand 1 added")
    expect(page.locator('tr[data-hand="1"] td[data-seat="0"]')).to_contain_text("→ 54")
    page.click("text=Change players or options")  # the option reads back as set
    expect(page.locator('select[name="jokers"]')).to_have_value("on")


def test_a_sheet_shows_the_callers_bonus_names_a_missing_partner_and_clears_old_errors(
    page: Page, server: Server, console: Console
) -> None:
    page.goto(f"{server.url}/sheet")
    page.click("text=− player")
    page.click("text=− player")  # two seats
    page.fill(".pname >> nth=0", "Ann &")
    page.fill(".pname >> nth=1", "Cy")
    page.fill('input[name="caller_bonus"]', "10")
    page.click("text=Start the sheet")
    message = page.locator(".msg")
    # Said at once, without a refused request (the console stays clean).
    expect(message).to_have_text(
        "player 1: 'Ann &' names one partner: a partnership is two names, 'Ann & Bob' (R40)"
    )
    page.fill(".pname >> nth=0", "Ann&Bob")
    expect(message).to_have_text("")  # an old refusal goes as soon as the entry changes
    page.click("text=Start the sheet")
    page.wait_for_url("**/sheet/*")
    expect(page.locator("table.hands thead")).to_contain_text("Ann & Bob")

    enter(page, [(30, 14), (10, 5)], "")
    expect(message).to_contain_text("Nertz cards left must be 0 to 13")
    page.fill('.in-left[data-seat="0"]', "0")
    expect(message).to_have_text("")
    enter(page, [(30, 0), (10, 5)], "0")
    cell = page.locator('tr[data-hand="1"] td[data-seat="0"]')
    expect(cell).to_have_text("30 · 0 +10 → 40 (40)")  # the caller's bonus, where it is added

    page.goto(f"{server.url}/sheet")  # "Your sheets" names the pair as the sheet keeps it
    expect(page.locator("li").filter(has_text="Ann & Bob, Cy")).to_have_count(1)


@pytest.mark.parametrize("size", [(390, 844), (844, 390), (1280, 720)])
def test_the_sheet_on_a_phone_keeps_who_called_and_add_hand_in_sight(
    browser: Browser, server: Server, size: tuple[int, int]
) -> None:
    """At 390 px "called" and "Add hand" sat off-screen inside the table's scroll; and
    with one player at 14 left (of 13) and another's box empty, the message named only
    the empty one. Both problems are named, and nothing is saved."""
    width, height = size
    context, page, console = watched_page(browser, width, height, touch=width < 900)
    try:
        page.goto(f"{server.url}/sheet")
        for i, name in enumerate(["Ann", "Bob", "Cat", "Dan"]):
            page.fill(f".pname >> nth={i}", name)
        page.click("text=Start the sheet")
        page.wait_for_url("**/sheet/*")
        sheet_id = page.url.rsplit("/", 1)[1]
        no_sideways_scroll(page)
        for selector in (".in-caller", ".add-hand"):  # in sight, the table not scrolled
            box = page.locator(selector).bounding_box()
            assert box is not None
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, (selector, box)

        for seat, (middle, left) in enumerate([(18, 14), (3, None), (14, 0), (22, 3)]):
            page.fill(f'.in-middle[data-seat="{seat}"]', str(middle))
            if left is not None:
                page.fill(f'.in-left[data-seat="{seat}"]', str(left))
        page.click(".add-hand")
        message = page.locator(".msg")
        expect(message).to_contain_text("Ann: Nertz cards left must be 0 to 13")
        expect(message).to_contain_text("Bob: type Nertz cards left as a whole number")
        assert server.get(f"/api/sheets/{sheet_id}")["hands"] == []
        page.fill('.in-left[data-seat="0"]', "4")
        page.fill('.in-left[data-seat="1"]', "6")
        page.select_option(".in-caller", "2")
        page.click(".add-hand")
        expect(message).to_contain_text("Hand 1 added")
        assert console.errors == [], console.errors
    finally:
        context.close()
