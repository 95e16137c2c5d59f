"""Quick match as people use it (issue 26, point 3, "Tested as people use it"): two
people in two browsers make accounts with passkeys (Chromium's virtual authenticator,
as ``test_accounts.py``), press Quick match on the home page for a three-player table,
see the wait and the countdown until a bot fills the third seat, and are seated at
one rated table with that bot; they play it out to a rated result and their ratings
change on the home page, in the store and on each player's page (``/p/NAME``).

The queue's clock is moved past the countdown once both wait (the 25 s are the
policy's, tested in tests/server/test_quick.py); the tables run twenty times faster
(``Config.speed``, as test_daily.py) so the bot ends the one-hand match in seconds."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from nertz.rating import POLICY
from nertz.server.http.app import Config, create_app
from nertz.server.http.services import Services, services_of
from nertz.server.lobby.ratings import ratings_of

from ..live_server import eventually, free_port, running
from .conftest import ROOMY
from .helpers import wait_go
from .test_accessibility import scan
from .test_accounts import Person

SPEED = 20.0


class Skew:
    """The queue's clock, moved forward by hand."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.ahead


@dataclass
class Site:
    url: str
    services: Services


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    port = free_port()
    url = f"http://localhost:{port}"  # a passkey's relying party is a name, not an IP
    config = Config(
        db=str(tmp_path / "quick.db"),
        port=port,
        public_urls=(url,),
        limits=ROOMY,
        speed=SPEED,
        forwarded_allow_ips="127.0.0.1",  # each person's address is their own (below)
    )
    app = create_app(config)
    with running(config, app=app):
        yield Site(url, services_of(app))


@pytest.fixture
def people(browser: Browser) -> Iterator[list[Person]]:
    made = [Person(browser) for _ in range(2)]
    for number, person in enumerate(made, start=1):  # strangers: an address each
        person.context.set_extra_http_headers({"X-Forwarded-For": f"203.0.113.{number}"})
    yield made
    for person in made:
        person.close()


def make_account(page: Page, site: str, name: str) -> None:
    page.goto(f"{site}/account")
    page.fill("#account-name", name)
    page.click("text=Make it with a passkey")
    expect(page.locator(".recovery-code")).to_be_visible(timeout=10_000)
    page.click(".kept-code")
    expect(page.locator("h1")).to_have_text(f"Your account — {name}", timeout=10_000)


def shot(page: Page, where: Path, name: str) -> None:
    page.screenshot(path=str(where / f"quick-{name}.png"))


def test_two_people_and_a_bot_through_quick_match_to_a_rated_result(
    site: Site, people: list[Person], tmp_path: Path
) -> None:
    clock = Skew()
    site.services.quick.clock = clock
    pages = [p.page for p in people]
    for page, name in zip(pages, ("Ann", "Bea"), strict=True):
        make_account(page, site.url, name)
        page.goto(site.url)
        expect(page.locator("#quick-rating")).to_have_text("Your rating: 1500? (solo)")
        page.select_option("#quick-low", "3")
        page.select_option("#quick-high", "3")  # three players: a bot takes the third
        page.click("#quick-match")
        expect(page.locator("#quick-waiting")).to_be_visible()
        expect(page.locator("#quick-bots-in")).to_contain_text("Bots fill the empty seats in")
    expect(pages[0].locator("#quick-waited")).to_have_text(re.compile(r"^\d+ s$"))
    shot(pages[0], tmp_path, "waiting")
    scan(pages[0], "the quick match waiting panel")  # axe, WCAG 2.1 AA, as every page

    clock.ahead = POLICY.bots_after_s + 1  # the countdown ends: the bot fills the seat
    codes = []
    for page in pages:
        expect(page).to_have_url(re.compile(r"/t/[A-Z0-9]+\?key="), timeout=10_000)
        codes.append(re.search(r"/t/([A-Z0-9]+)", page.url).group(1))  # type: ignore[union-attr]
    assert codes[0] == codes[1]
    table = site.services.lobby.find(codes[0]).table
    assert table.settings.rated and table.settings.bots == {2: "skilled"}
    for page in pages:
        page.locator(".ready-btn").click()  # at once: the ready time is 20 times shorter
    for page in pages:
        wait_go(page)
    # The table says it is rated and shows each rating beside its name: the two
    # newcomers' 1500? and the bot's fixed rating (skilled: 1799, no "?").
    for page in pages:
        expect(page.locator(".strip .rated-label")).to_have_text("Rated")
        expect(page.locator(".my-head .rating")).to_have_text("1500?")
        expect(page.locator(".opp-head .rating")).to_have_text(["1500?", "1799"])
    shot(pages[0], tmp_path, "playing")

    # The bot goes out (R27): a one-hand rated match ends and is rated in the store.
    engine = site.services.store.engine
    rated = eventually(lambda: ratings_of(engine, "solo") or None, "the match's ratings", 90)
    assert len(rated) == 2 and all(r.matches == 1 for r in rated.values())
    # The match's end panel gives each person's change, as the store rated it.
    line = pages[0].locator(".rating-changes")
    expect(line).to_contain_text("You 1500? → ", timeout=30_000)  # Ann's own page
    expect(line).to_contain_text("Bea 1500? → ")
    expect(line.locator(".rating-change")).to_have_text([re.compile(r"^\([+−±]\d+\)$")] * 2)
    shot(pages[0], tmp_path, "rated-table")
    for page, name in zip(pages, ("Ann", "Bea"), strict=True):
        page.goto(site.url)
        shown = page.locator("#quick-rating")
        expect(shown).to_have_text(re.compile(r"^Your rating: \d+\? \(solo\)$"))
        expect(shown).not_to_have_text("Your rating: 1500? (solo)")
        rating = shown.inner_text().split()[2]  # "1412?"
        page.goto(f"{site.url}/p/{name}")  # the player's page says the same
        solo = page.locator('.figure[data-figure="solo"] dd')
        expect(solo).to_have_text(f"{rating} (1 rated match)")
        expect(page.locator("li.match")).to_have_count(1)
    shot(pages[1], tmp_path, "rated")


def test_leave_takes_a_waiting_person_out(site: Site, people: list[Person]) -> None:
    page = people[0].page
    make_account(page, site.url, "Cyd")
    page.goto(site.url)
    page.click("#quick-match")
    expect(page.locator("#quick-waiting")).to_be_visible()
    page.click("#quick-leave")
    expect(page.locator("#quick-match")).to_be_visible()
    expect(page.locator("#quick-waiting")).to_be_hidden()
    assert not site.services.quick.waiting


def test_without_an_account_the_page_asks_to_sign_in(site: Site, people: list[Person]) -> None:
    page = people[0].page
    page.goto(site.url)
    expect(page.locator(".quick-sign-in")).to_be_visible()
    expect(page.locator("#quick-match")).to_be_hidden()
