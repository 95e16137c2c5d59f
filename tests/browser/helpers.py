"""Shared steps of the browser tests."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

from .conftest import Console

BOT = "nertz: 9S; work: KS / QS / JS / 10S; stock: 8S 7S; waste: -"
"""A bot seat that can never empty its Nertz pile nor call: no spade ace is dealt anywhere,
and its 9S fits none of its own black work piles. The hand is the test's (a bot that
could lay a red 9 on its 10S called Nertz before a slow page finished)."""


TWO_ANN = "nertz: AH; work: 6S / 9C / KC / 4C; stock: 2C 3C 7H; waste: -"
"""Ann's seat at a two-person table: one Nertz card, so she can play it and call (R27)."""
TWO_BEN = "nertz: 9S 2S; work: KS / QD / 8D / 3S; stock: 4H 5H 6H; waste: -"
"""Bert's seat beside her: nothing he plays reaches her ace's foundation first."""


def watched_page(
    browser: Browser, width: int, height: int, *, touch: bool = False, mobile: bool = False
) -> tuple[BrowserContext, Page, Console]:
    """A fresh context at one screen size, its page, and a console watching that page;
    the caller closes the context."""
    context = browser.new_context(
        bypass_csp=True,
        viewport={"width": width, "height": height},
        has_touch=touch,
        is_mobile=mobile,
    )
    page = context.new_page()
    console = Console()
    console.watch(page)
    return context, page, console


def seat_in(page: Page, url: str, name: str = "Tess") -> None:
    """Open a table, take a seat, say ready and wait for Go."""
    page.goto(url)
    page.fill("#join-name", name)
    page.click("text=Take a seat")
    page.click(".ready-btn")
    wait_go(page)


def seat_all(pages: list[Page], url: str | list[str], names: list[str]) -> None:
    """Each page, in turn, opens the table at ``url`` (one for all, or one each) and
    takes a seat under its name (the next free one; at a partnership table the next
    free place, R40); then all say ready and wait for Go."""
    urls = [url] * len(pages) if isinstance(url, str) else url
    for page, name, at in zip(pages, names, urls, strict=True):
        page.goto(at)
        page.fill("#join-name", name)
        page.click("text=Take a seat")
        expect(page.locator(".ready-btn")).to_be_visible()
    for page in pages:
        page.click(".ready-btn")
    for page in pages:
        wait_go(page)


SIZES = {"upright": (390, 844), "sideways": (844, 390), "desktop": (1280, 720)}
"""A phone held upright, one held sideways, and a desktop (issue 23's three sizes)."""


def sized_page(browser: Browser, way: str) -> tuple[BrowserContext, Page, Console]:
    """``watched_page`` at one of ``SIZES``: a phone's with touch, as a phone is."""
    width, height = SIZES[way]
    phone = way != "desktop"
    return watched_page(browser, width, height, touch=phone, mobile=phone)


def no_sideways_scroll(page: Page) -> None:
    """The page is no wider than its window (a phone would scroll it sideways)."""
    settle(page)
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page is {width[0]} px wide in a {width[1]} px window"


def to_the_middle(page: Page) -> None:
    """The Nertz card to the middle by its keys (0, then F): keys do not depend on the
    card's element, which a bot's move may redraw between the two clicks of a
    double-click."""
    page.keyboard.press("0")
    page.keyboard.press("f")


def call_nertz(page: Page) -> None:
    """Call Nertz by its key (N, R27) once the page has the Nertz pile empty: the key
    pressed before the server has taken the last Nertz card would be refused, and the
    hand would go on."""
    expect(page.locator("button.call")).to_be_enabled()
    page.keyboard.press("n")


def foundation(page: Page, number: int) -> Any:
    """The top card of foundation F``number`` as drawn in the middle."""
    return page.locator(f'.fslot .card[aria-label^="foundation F{number}:"]')


def wait_go(page: Page) -> None:
    expect(page.locator(".status")).to_contain_text("Play!", timeout=10_000)


SETTLED = """
async () => {
  // Every animation that ends (a card's flight, a fade; not a pulse that repeats for
  // good) has finished: awaited as the page runs them, however slowly a busy machine
  // lets it. New ones may start while we wait (a bot's card), so look again until none.
  for (;;) {
    const ending = document.getAnimations().filter(
      (a) => a.playState === "running" && a.effect?.getComputedTiming().endTime !== Infinity,
    );
    if (!ending.length) return;
    await Promise.allSettled(ending.map((a) => a.finished));
  }
}
"""


def settle(page: Page) -> None:
    """Wait until no card is flying (a card in flight is not where it will land)."""
    page.evaluate(SETTLED)


def centre(page: Page, selector: str) -> tuple[float, float]:
    settle(page)
    box = None
    for _ in range(40):
        # Every event redraws the layouts: a bot's turn can replace the element between
        # finding it and measuring it.
        box = page.locator(selector).first.bounding_box()
        if box is not None:
            break
        page.wait_for_timeout(50)
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page: Page, source: str, target: str) -> None:
    """A mouse drag with pointer events, in small steps as a hand moves."""
    drag_from(page, centre(page, source), target)


def drag_from(page: Page, start: tuple[float, float], target: str) -> None:
    """A mouse drag from a point (not always a card's centre) to target's centre."""
    x0, y0 = start
    x1, y1 = centre(page, target)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x0 + 8, y0 - 8, steps=2)
    page.mouse.move(x1, y1, steps=8)
    page.mouse.up()


def touch_drag(page: Page, source: str, target: str) -> None:
    """A finger drag: Chromium turns these touch events into pointer events."""
    x0, y0 = centre(page, source)
    x1, y1 = centre(page, target)
    cdp: Any = page.context.new_cdp_session(page)

    def touch(kind: str, x: float, y: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", x0, y0)
    for i in range(1, 11):
        touch("touchMove", x0 + (x1 - x0) * i / 10, y0 + (y1 - y0) * i / 10)
    touch("touchEnd", x1, y1)


def pile(n: int | str) -> str:
    return f'.mine .pile[data-pile="{n}"]'


@dataclass
class Player:
    """One browser page at a table, with its console watched for errors."""

    page: Page
    console: Console


def open_players(browser: Browser, count: int, init_script: str = "") -> Iterator[list[Player]]:
    """``count`` pages, each in its own browser context (its own storage: a different
    person); after the test, closes them and fails on any console error."""
    made: list[tuple[Any, Player]] = []
    for _ in range(count):
        context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 720})
        if init_script:
            context.add_init_script(init_script)
        page = context.new_page()
        console = Console()
        console.watch(page)
        made.append((context, Player(page, console)))
    yield [p for _, p in made]
    for context, _ in made:
        context.close()
    for _, p in made:
        assert p.console.errors == [], p.console.errors
