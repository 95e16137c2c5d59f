"""Jokers in the browser (R41): a joker dragged onto a work pile like any card and pinned by
the card laid on it; a joker sent to the middle through the chooser, its announcement seen
counting down on another page, then landing with what it stands for; and a joker beaten by
the real card, whose owner is told why it stayed home. No console errors (``console``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Console, Server
from .helpers import Player, drag, foundation, open_players, pile, seat_all, seat_in

ME = "nertz: 3S 5D JK1; work: AH / 9C / KC / JK2; stock: 2C 3C 7H; waste: -"
"""A joker on the Nertz pile (the five of diamonds under it), one at the end of pile 4
and the ace of hearts for F1."""
JOKERS = {"jokers": "on"}


@pytest.fixture
def watcher(browser: Browser) -> Iterator[Player]:
    """A second browser that only watches the table."""
    for players in open_players(browser, 1):
        yield players[0]


@pytest.fixture
def two(browser: Browser) -> Iterator[list[Player]]:
    yield from open_players(browser, 2)


def test_a_joker_on_a_work_pile_and_one_announced_to_the_middle(
    page: Page, server: Server, console: Console, watcher: Player
) -> None:
    code = server.table([ME], options=JOKERS)  # one seat: nobody else moves a card
    seat_in(page, f"{server.url}/t/{code}")
    nertz = '.mine [data-src="N"]'
    expect(page.locator(nertz)).to_have_attribute("aria-label", "joker")
    expect(page.locator(f"{nertz}.joker")).to_have_count(1)  # its own face

    # A joker goes on any card of a work pile (R41): a drag, as for any card.
    drag(page, nertz, pile(2))
    expect(page.locator(pile(2))).to_have_attribute("aria-label", "work pile 2: 9 of clubs, joker")
    # A real card laid on it pins it: it now stands for a black 6 (one above the red 5).
    expect(page.locator(nertz)).to_have_attribute("aria-label", "5 of diamonds")
    drag(page, nertz, pile(2))
    expect(page.locator(pile(2))).to_have_attribute(
        "aria-label", "work pile 2: 9 of clubs, joker (black 6), 5 of diamonds"
    )
    # On its face, in the strip of it that shows: "=6" and the black suits.
    expect(page.locator(f'{pile(2)} [data-card="JK1@0"] .corner')).to_have_text("=6♣♠")

    # Someone else watches the table.
    other = watcher.page
    other.goto(f"{server.url}/t/{code}")
    other.click("text=Just watch")
    expect(other.locator(".opp")).to_contain_text("Tess")

    # The ace starts F1; then the joker at the end of pile 4 goes to the middle by keys:
    # 4 picks it, F opens the chooser with only the cards it may stand for now.
    page.dblclick('.mine [data-src="1"]')
    expect(foundation(page, 1)).to_have_attribute(
        "aria-label", "foundation F1: ace of hearts, 1 card"
    )
    page.keyboard.press("4")
    page.keyboard.press("f")
    chooser = page.locator(".chooser")
    expect(chooser).to_be_visible()
    choices = chooser.locator("button.choice")
    expect(choices).to_have_count(5)  # the 2 of hearts for F1, or an ace for a new one
    assert choices.evaluate_all("els => els.map(e => e.ariaLabel)") == [
        "2 of hearts on F1",
        "ace of clubs to start a new foundation",
        "ace of diamonds to start a new foundation",
        "ace of hearts to start a new foundation",
        "ace of spades to start a new foundation",
    ]
    expect(choices.first).to_be_focused()
    page.keyboard.press("Enter")
    expect(chooser).to_be_hidden()

    # The announcement: on F1 on both pages, with who and a countdown; the joker waits
    # on its pile, marked, for the window (1.5 s).
    for p in (page, other):
        badge = p.locator('.fslot[data-drop="F1"] .announce')
        expect(badge).to_be_visible()
        expect(badge).to_contain_text("2♥")
        expect(badge).to_contain_text(" s")
    expect(page.locator('.fslot[data-drop="F1"] .announce')).to_contain_text("You")
    expect(other.locator('.fslot[data-drop="F1"] .announce')).to_contain_text("Tess")
    expect(page.locator(f'{pile(4)} [data-card="JK2@0"].announced')).to_have_count(1)
    # Then it lands, showing what it stands for, on both pages.
    for p in (page, other):
        expect(foundation(p, 1)).to_have_attribute(
            "aria-label", "foundation F1: joker as 2 of hearts, 2 cards", timeout=5000
        )
        expect(p.locator('.fslot[data-drop="F1"] .means')).to_have_text("= 2♥")
        expect(p.locator(".announce")).to_have_count(0)
    expect(page.locator(pile(4))).to_have_attribute("aria-label", "work pile 4: empty")
    # The next real card builds on what the joker stands for (R13, R41): the three of
    # hearts is not in this deal, so the chooser now offers the 3 of hearts for F1.
    drag(page, f'{pile(2)} [data-card="5D@0"]', pile(4))
    drag(page, f'{pile(2)} [data-card="JK1@0"]', ".middle")
    expect(chooser.locator("button.choice").first).to_have_attribute(
        "aria-label", "3 of hearts on F1"
    )
    page.keyboard.press("Escape")
    expect(chooser).to_be_hidden()
    expect(page.locator(pile(2))).to_have_attribute("aria-label", "work pile 2: 9 of clubs, joker")
    drag(page, f'{pile(2)} [data-card="JK1@0"]', ".middle")  # the chooser's ✕ keeps it too
    chooser.locator(".close-x").click()
    expect(chooser).to_be_hidden()
    expect(page.locator(pile(2))).to_have_attribute("aria-label", "work pile 2: 9 of clubs, joker")


ANN = "nertz: 5D JK1; work: AH / 9C / KC / 4C; stock: 2C 3C 7H; waste: -"
BEN = "nertz: 9S 2H; work: AS / 8D / QD / 3S; stock: 4H 5H 6H; waste: -"
"""Bert holds the real two of hearts on his Nertz pile."""


def test_the_real_card_first_sends_the_joker_home(server: Server, two: list[Player]) -> None:
    ann, ben = (p.page for p in two)
    code = server.table([ANN, BEN], bots={}, options={**JOKERS, "joker_announce_ms": "4000"})
    seat_all([ann, ben], f"{server.url}/t/{code}", ["Ann", "Bert"])
    ann.dblclick('.mine [data-src="1"]')
    expect(foundation(ben, 1)).to_have_attribute(
        "aria-label", "foundation F1: ace of hearts, 1 card"
    )
    # Ann double-clicks her joker: the chooser; she clicks the two of hearts.
    ann.dblclick('.mine [data-src="N"]')
    ann.click('.chooser button[aria-label="2 of hearts on F1"]')
    expect(ben.locator('.fslot[data-drop="F1"] .announce')).to_contain_text("Ann")
    expect(ben.locator(".toast.info")).to_contain_text("Ann announced a joker as the 2 of hearts")
    # Bert holds that real card and plays it there first, as usual.
    ben.dblclick('.mine [data-src="N"]')
    for p in (ann, ben):
        expect(foundation(p, 1)).to_have_attribute(
            "aria-label", "foundation F1: 2 of hearts, 2 cards"
        )
    # When the window ends Ann's joker stays home, and she is told why.
    expect(ann.locator(".toast.warn")).to_contain_text(
        "Your joker stays home: the 2 of hearts reached F1 first (R41)", timeout=8000
    )
    for p in (ann, ben):
        expect(p.locator(".announce")).to_have_count(0)
    expect(ann.locator('.mine [data-src="N"]')).to_have_attribute("aria-label", "joker")
    expect(ben.locator(".toast.warn")).to_have_count(0)


def test_no_joker_is_announced_after_a_call(page: Page, server: Server, console: Console) -> None:
    """R28, R41: after a call, cards in the air may land, but a joker is not announced
    any more: the chooser does not open, and the page says why."""
    code = server.table(
        ["nertz: AH; work: 9C / JK1 / - / -; stock: 2C; waste: -"],
        options={**JOKERS, "landing_ms": "5000"},  # a long landing window to act in
    )
    seat_in(page, f"{server.url}/t/{code}")
    page.keyboard.press("0")
    page.keyboard.press("f")  # the ace of hearts: the Nertz pile is empty
    expect(foundation(page, 1)).to_have_count(1)
    page.keyboard.press("n")  # call (R27)
    expect(page.locator(".status")).not_to_contain_text("Play!")
    page.keyboard.press("2")
    page.keyboard.press("f")  # the joker to the middle, during the landing window
    expect(page.locator(".toast")).to_contain_text("no joker can be announced now (R41)")
    expect(page.locator(".chooser button.choice")).to_have_count(0)


def test_two_open_announcements_are_both_drawn_legibly(
    page: Page, server: Server, console: Console
) -> None:
    """R41: two jokers announced at once, one as the 2 of hearts for F1 and one as an
    ace for a new foundation: each badge shows its card, who and the time left, and
    neither lies over the other."""
    code = server.table([ME], options={**JOKERS, "joker_announce_ms": "10000"})
    seat_in(page, f"{server.url}/t/{code}")
    page.dblclick('.mine [data-src="1"]')
    expect(foundation(page, 1)).to_have_count(1)
    page.keyboard.press("4")
    page.keyboard.press("f")
    page.click('.chooser button[aria-label="2 of hearts on F1"]')
    page.keyboard.press("0")
    page.keyboard.press("f")
    page.click('.chooser button[aria-label="ace of spades to start a new foundation"]')
    badges = page.locator(".announce")
    expect(badges).to_have_count(2)
    expect(page.locator('.fslot[data-drop="F1"] .announce')).to_contain_text("2♥")
    expect(page.locator(".fslot.new-announce .announce")).to_contain_text("A♠")
    boxes = []
    for i in range(2):
        badge = badges.nth(i)
        expect(badge).to_contain_text("You")
        expect(badge).to_contain_text(" s")
        box = badge.bounding_box()
        assert box is not None and box["width"] > 20 and box["height"] > 20
        boxes.append(box)
    one, two = boxes
    apart = (
        one["x"] + one["width"] <= two["x"]
        or two["x"] + two["width"] <= one["x"]
        or one["y"] + one["height"] <= two["y"]
        or two["y"] + two["height"] <= one["y"]
    )
    assert apart, boxes
