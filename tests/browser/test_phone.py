"""The table on phones and its panels (issue 23, section 3), each checked upright
(390×844), sideways (844×390) and on a desktop: the seating and end panels keep the
width their content needs (on a narrow screen the chat does not share it), every tap
target on a phone's table is at least 40 px, a reaction from the right-most seat shows
over the open chat, and a person the host removes is told in view, with the table
stopped and the way home."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Server
from .helpers import (
    BOT,
    SIZES,
    no_sideways_scroll,
    sized_page,
    to_the_middle,
    wait_go,
    watched_page,
)

ME = "nertz: AH; work: 6S / 9C / KC / 4C; stock: 2H 3C 7H; waste: -"
"""One Nertz card: play it and call (R27); the 2H keeps the seat from being blocked."""
OTHER = "nertz: 9S 2S; work: KS / QD / 8D / 3S; stock: 4H 5H 6H; waste: -"
"""A person's seat that never reaches the first's ace foundation."""
PHONES = {k: v for k, v in SIZES.items() if k != "desktop"}
TAP = 40
"""The least width and height of a tap target on a phone's table (px)."""


def box(page: Page, selector: str) -> dict[str, float]:
    """Where ``selector`` is drawn, once no animation runs; every event redraws the
    table, which may replace the element between finding and measuring it."""
    page.wait_for_function(
        "(sel) => document.querySelector(sel) && document.querySelector(sel)"
        ".getAnimations().every((a) => a.playState !== 'running')",
        arg=selector,
    )
    found = None
    while found is None:
        expect(page.locator(selector).first).to_be_attached()
        found = page.locator(selector).first.bounding_box()
    return found


def in_view(page: Page, selector: str) -> None:
    """``selector`` is visible and wholly inside the window, without scrolling."""
    expect(page.locator(selector).first).to_be_visible()
    b = box(page, selector)
    size = page.viewport_size
    assert size is not None
    assert b["x"] >= 0 and b["y"] >= 0, (selector, b)
    assert b["x"] + b["width"] <= size["width"] + 0.5, (selector, b, size)
    assert b["y"] + b["height"] <= size["height"] + 0.5, (selector, b, size)


def not_squeezed(page: Page, panel: str) -> None:
    """The panel shows all its content across (nothing cut off or scrolled sideways
    inside it) and no open chat panel lies beside or over it."""
    fits = page.evaluate(
        """(sel) => {
          const p = document.querySelector(sel);
          const inner = [...p.querySelectorAll('th, td, h2, button, p')];
          const r = p.getBoundingClientRect();
          return {
            scroll: p.scrollWidth, client: p.clientWidth, width: r.width,
            outside: inner.filter((e) => {
              const b = e.getBoundingClientRect();
              return b.width && (b.right > r.right + 0.5 || b.left < r.left - 0.5);
            }).map((e) => e.textContent.slice(0, 30)),
          };
        }""",
        panel,
    )
    assert fits["scroll"] <= fits["client"] + 1, (panel, fits)
    assert fits["outside"] == [], (panel, fits)
    chat = page.locator(".chat-panel")
    if chat.is_visible():
        c, p = box(page, ".chat-panel"), box(page, panel)
        apart = c["x"] >= p["x"] + p["width"] or c["x"] + c["width"] <= p["x"]
        assert apart, ("the chat lies over the panel", c, p)


@pytest.mark.parametrize("way", list(SIZES))
def test_the_seating_and_end_panels_keep_their_width_beside_the_chat(
    browser: Browser, server: Server, way: str
) -> None:
    context, page, console = sized_page(browser, way)
    try:
        code = server.table([ME, BOT], options={"match": "single"})
        page.goto(f"{server.url}/t/{code}")
        page.fill("#join-name", "Tess")
        page.click("text=Take a seat")
        expect(page.locator(".overlay .seating")).to_be_visible()
        not_squeezed(page, ".overlay .seating")
        in_view(page, ".overlay .ready-btn")
        page.click(".overlay .ready-btn")
        wait_go(page)
        to_the_middle(page)
        expect(page.locator(".fslot .card")).to_have_count(1)
        page.keyboard.press("n")
        expect(page.locator(".overlay .hand-end")).to_be_visible(timeout=10_000)
        no_sideways_scroll(page)
        not_squeezed(page, ".overlay .hand-end")
        headers = page.locator(".overlay .breakdown thead th")
        for name in ("Nertz cards left", "caller bonus", "total"):
            expect(headers.filter(has_text=name).first).to_be_visible()
        # The one-hand match is over: its winner is in sight without scrolling (R32).
        expect(page.locator(".overlay .winners")).to_have_text("You win the match with 1!")
        in_view(page, ".overlay .winners")
        # The chat is there when asked for, and then the panel is not squeezed either.
        if not page.locator(".chat-panel").is_visible():
            page.click(".chat-btn")
        expect(page.locator(".chat-panel")).to_be_visible()
        if SIZES[way][0] > 700:  # room for both: side by side
            not_squeezed(page, ".overlay .hand-end")
        else:  # the chat over the panel at full width; shut, the panel is whole again
            in_view(page, ".chat-panel .chat-close")
            page.click(".chat-panel .chat-close")
            expect(page.locator(".chat-panel")).to_be_hidden()
            not_squeezed(page, ".overlay .hand-end")
        assert console.errors == [], console.errors
    finally:
        context.close()


TARGETS = """(min) => {
  const seen = (e) => e.checkVisibility({ visibilityProperty: true });
  const els = [...document.querySelectorAll(
    '.board .bar button, .board .bar a[href], .board .bar summary, .board .actions button,'
    + ' .board .fslot, .board .mine .pile > .card:last-child')].filter(seen);
  return els.map((e) => {
    const r = e.getBoundingClientRect();
    return { what: (e.className || e.tagName) + ' ' + (e.textContent || '').trim().slice(0, 12),
             w: Math.round(r.width * 10) / 10, h: Math.round(r.height * 10) / 10 };
  }).filter((t) => t.w < min || t.h < min);
}"""
"""The tap targets of a phone's table smaller than ``min`` px either way: the bar's
buttons and links, Nertz! and Stuck, each foundation slot and the top card of each of
my piles."""


@pytest.mark.parametrize("way", list(PHONES))
def test_every_tap_target_on_a_phones_table_is_at_least_40_px(
    browser: Browser, server: Server, way: str
) -> None:
    width, height = PHONES[way]
    context, page, console = watched_page(browser, width, height, touch=True, mobile=True)
    try:
        code = server.table(
            [ME, BOT, BOT, BOT], bots={str(i): "beginner:scorer" for i in (1, 2, 3)}
        )
        page.goto(f"{server.url}/t/{code}")
        page.fill("#join-name", "Tess")
        page.click("text=Take a seat")
        page.click(".overlay .ready-btn")
        wait_go(page)
        no_sideways_scroll(page)
        to_the_middle(page)  # one foundation with a card, the others empty
        expect(page.locator(".fslot .card")).to_have_count(1)
        small = page.evaluate(TARGETS, TAP)
        assert small == [], "\n".join(map(str, small))
        assert page.locator(".fslot").count() >= 4
        assert console.errors == [], console.errors
    finally:
        context.close()


def sit(page: Page, url: str, name: str) -> None:
    page.goto(url)
    page.fill("#join-name", name)
    page.click("text=Take a seat")
    expect(page.locator(".overlay .seating")).to_be_visible()


def host_dialog(page: Page) -> None:
    """The host's controls: from the panel between matches, else from the bar."""
    opener = page.locator(".overlay .host-open")
    (opener if opener.is_visible() else page.locator(".host-btn")).click()
    expect(page.locator("dialog .host-panel")).to_be_visible()


@pytest.mark.parametrize("way", list(SIZES))
def test_a_reaction_from_the_right_most_seat_shows_over_the_open_chat(
    browser: Browser, server: Server, way: str
) -> None:
    context, ann, console = sized_page(browser, way)
    other, ben, other_console = watched_page(browser, 1280, 720)
    try:
        # Ann in seat 0, a bot in seat 1, Bert in seat 2: Bert is Ann's right-most opponent.
        code = server.table([ME, BOT, OTHER], bots={"1": "beginner:scorer"})
        url = f"{server.url}/t/{code}"
        sit(ann, url, "Ann")
        sit(ben, url, "Bert")
        for page in (ann, ben):
            page.click(".overlay .ready-btn")
        for page in (ann, ben):
            wait_go(page)
            page.click(".chat-btn")  # during play the chat is shut until asked for
            expect(page.locator(".chat-panel")).to_be_visible()
        ben.click('.react-btn[data-what="🎉"]')
        bubble = ann.locator('.opp[data-seat="2"] .reaction')
        expect(bubble).to_have_text("🎉")
        # Wholly in sight: not under the chat panel, and on the window.
        in_view(ann, '.opp[data-seat="2"] .reaction')
        r, chat = box(ann, '.opp[data-seat="2"] .reaction'), box(ann, ".chat-panel")
        apart = (
            r["x"] >= chat["x"] + chat["width"]
            or r["x"] + r["width"] <= chat["x"]
            or r["y"] >= chat["y"] + chat["height"]
            or r["y"] + r["height"] <= chat["y"]
        )
        assert apart, ("the reaction lies under the chat panel", r, chat)
        assert console.errors == other_console.errors == []
    finally:
        context.close()
        other.close()


def told_removed(page: Page, way: str, when: str) -> None:
    """The page says so in view, with no countdown, no Ready and no live card, and its
    way home works."""
    notice = page.locator(".removed")
    expect(notice).to_contain_text("The host removed you from this table")
    in_view(page, ".removed h2")
    in_view(page, ".removed a.button")
    for ready in (".overlay .ready-btn", ".actions .ready-side"):
        expect(page.locator(ready)).to_be_hidden()
    expect(page.locator(".banner")).to_have_text("")  # no countdown, no "Go!"
    expect(page.locator(".status")).to_have_text("The host removed you from this table.")
    # The table under the notice takes no tap and no key: it is not live.
    covered = page.evaluate(
        """() => [...document.querySelectorAll('.mine .card, .actions button')].every((el) => {
              const r = el.getBoundingClientRect();
              if (!r.width) return true;
              const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
              return !hit || !el.contains(hit);
            })"""
    )
    assert covered, "a card or button of the table can still be tapped"
    page.keyboard.press("Enter")  # "ready" by key: nothing is sent, nothing changes
    expect(notice).to_be_visible()
    page.click(".removed a.button")
    page.wait_for_url(lambda url: url.rstrip("/").count("/") == 2)  # the home page
    expect(page.locator("h1")).to_have_text("Nertz")


@pytest.mark.parametrize("way", list(SIZES))
def test_a_person_removed_by_the_host_is_told_in_view_and_the_table_stops(
    browser: Browser, server: Server, way: str
) -> None:
    host_context, ann, ann_console = watched_page(browser, 1280, 720)
    pages = [sized_page(browser, way) for _ in range(2)]
    (_, ben, ben_console), (_, cy, cy_console) = pages
    try:
        code = server.table([ME, OTHER, OTHER], bots={})
        url = f"{server.url}/t/{code}"
        sit(ann, url, "Ann")
        sit(ben, url, "Bert")
        sit(cy, url, "Cy")
        # At seating: Bert, not ready yet, is removed.
        host_dialog(ann)
        ann.locator("dialog .host-panel li").filter(has_text="Bert").locator(".host-remove").click()
        told_removed(ben, way, "seating")

        # Mid-hand: the host starts at once (a bot takes Bert's seat) and removes Cy.
        host_dialog(ann)
        ann.click("dialog .host-start")
        wait_go(ann)
        wait_go(cy)
        host_dialog(ann)
        ann.locator("dialog .host-panel li").filter(has_text="Cy").locator(".host-remove").click()
        told_removed(cy, way, "play")
        for console in (ann_console, ben_console, cy_console):
            assert console.errors == [], console.errors
    finally:
        host_context.close()
        for context, _, _ in pages:
            context.close()
