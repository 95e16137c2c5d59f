"""Partnerships in the browser (R40): two pages share one seat. Both show both names;
the card one partner picks up is marked on the other's page as held by them, and the
other's try to play it is refused with the reason shown; both play cards and the hand
goes on. No console errors (the ``players`` fixture checks both pages)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Server, serving
from .helpers import Player, drag, foundation, open_players, pile, seat_all

SEAT = "nertz: KS 2H AH; work: 2C / 9H / 9C / AS; stock: 3D 4D 5D 6D 7D; waste: -"
"""One seat for Ann and Bob: the ace of hearts on top of the Nertz pile, the two next.
The ace of spades at the end of work pile 4 is never played: a seat with an ace in sight
is never blocked (R24), so the table never rotates nor ends the hand as blocked (R25,
R26) however slowly the pages go (once the two hearts were played the seat was blocked
and the hand ended two seconds later), and the king under them keeps anyone from
calling (R27)."""

SLOW = 0.01
"""The table clock's speed (``Config.speed``, test-only) where two pages take turns:
a hold lapses after 5 s of table time (``HOLD_LAPSE_MS``), 500 s here, so Ann's hold
still stands when Bob reaches for her card however long a loaded machine takes between
the two pages. (The lapse itself is tested at the usual speed.)"""


@pytest.fixture
def partners(browser: Browser) -> Iterator[list[Player]]:
    yield from open_players(browser, 2)


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("partners") / "slow.db", SLOW) as served:
        yield served


def held(page: Page, src: str) -> Any:
    return page.locator(f'.mine .pile[data-pile="{src}"] .card.held')


def test_r40_two_pages_share_a_seat_and_respect_each_others_hand(
    slow_server: Server, partners: list[Player]
) -> None:
    # No countdown: at the slow clock the usual 300 ms would be 30 s.
    code = slow_server.table([SEAT], bots={}, options={"partnerships": "on"}, countdown_ms=0)
    ann, bob = (p.page for p in partners)
    seat_all([ann, bob], f"{slow_server.url}/t/{code}", ["Ann", "Bob"])  # paired: Bob with Ann
    expect(ann.locator(".my-head b")).to_have_text("Ann (you) & Bob")
    expect(bob.locator(".my-head b")).to_have_text("Ann & Bob (you)")

    # Ann picks up the ace: Bob sees it held by her.
    ann.click('.mine [data-src="N"]')
    expect(ann.locator(".card.selected")).to_have_attribute("aria-label", "ace of hearts")
    expect(held(bob, "N")).to_have_attribute("aria-label", "ace of hearts")
    expect(bob.locator('.mine .pile[data-pile="N"] .held-by')).to_have_text("Ann holds")
    expect(held(ann, "N")).to_have_count(0)  # her own hand is not marked as someone else's

    # Bob reaches for it anyway: refused, with the reason on his screen.
    drag(bob, '.mine [data-src="N"]', ".middle")
    expect(bob.locator(".toast.error")).to_contain_text(
        "your partner has picked up the ace of hearts from your Nertz pile (R40)"
    )
    expect(foundation(bob, 1)).to_have_count(0)

    # Ann plays it; then Bob plays the two on it, and Ann a card of her own.
    ann.click(".middle")
    for page in (ann, bob):
        expect(foundation(page, 1)).to_have_attribute(
            "aria-label", "foundation F1: ace of hearts, 1 card"
        )
    expect(held(bob, "N")).to_have_count(0)  # the play put it down
    drag(bob, '.mine [data-src="N"]', ".middle")
    for page in (ann, bob):
        expect(foundation(page, 1)).to_have_attribute(
            "aria-label", "foundation F1: 2 of hearts, 2 cards"
        )
    ann.keyboard.press("Space")  # she turns the stock while he watches the Nertz pile
    for page in (ann, bob):
        expect(page.locator(pile("W")).locator(".card").last).to_have_attribute(
            "aria-label", "5 of diamonds"
        )
    drag(ann, '.mine [data-src="1"]', ".middle")  # her 2 of clubs needs an ace: refused
    expect(ann.locator(".toast.error")).to_contain_text("2 of clubs")
    for page in (ann, bob):
        expect(page.locator(".status")).to_contain_text("Play!")  # the hand goes on


def test_r40_a_hold_left_resting_lapses_and_the_holder_is_told(
    server: Server, partners: list[Player]
) -> None:
    """A card picked up and left resting is put down after ``HOLD_LAPSE_MS`` (5 s), on
    the holder's page too: it says so, and the partner may then take the card."""
    code = server.table([SEAT], bots={}, options={"partnerships": "on"})
    ann, bob = (p.page for p in partners)
    seat_all([ann, bob], f"{server.url}/t/{code}", ["Ann", "Bob"])
    ann.click('.mine [data-src="N"]')
    expect(held(bob, "N")).to_have_attribute("aria-label", "ace of hearts")
    expect(ann.locator(".toast").filter(has_text="it is put down")).to_be_visible(timeout=10_000)
    expect(ann.locator(".card.selected")).to_have_count(0)
    expect(held(bob, "N")).to_have_count(0)
    drag(bob, '.mine [data-src="N"]', ".middle")  # now Bob may play it
    expect(foundation(ann, 1)).to_have_attribute(
        "aria-label", "foundation F1: ace of hearts, 1 card"
    )
