"""Invites in the browser: a private table joined by typing its short code on the home
page; the invite dialog's code, link, "Copy invite" (the clipboard, or the share sheet
on a phone) and QR code; the watch link opens the table to a spectator; and the host
starts the next match once the wait after a match is over."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Server
from .helpers import TWO_ANN as ANN
from .helpers import TWO_BEN as BEN
from .helpers import Player, open_players, seat_all, wait_go

RECORD_COPIES = """
Object.defineProperty(navigator, "clipboard", {
  value: { writeText: async (text) => { window.copied = text; } },
});
"""
"""A test hook: what "Copy invite" writes to the clipboard lands in ``window.copied``."""


@pytest.fixture
def players(browser: Browser) -> Iterator[list[Player]]:
    yield from open_players(browser, 2, RECORD_COPIES)


def private_table(server: Server) -> dict[str, str]:
    return server.post("/api/tables", {"seats": 2, "public": False, "countdown_ms": 300})


def take_seat(page: Page, name: str) -> None:
    page.fill("#join-name", name)
    page.click("text=Take a seat")
    expect(page.locator(".ready-btn")).to_be_visible()


def test_a_private_table_is_joined_by_typing_its_code_on_the_home_page(
    server: Server, players: list[Player]
) -> None:
    ann = players[0].page
    made = private_table(server)
    invite = made["invite"]
    ann.goto(server.url)
    ann.fill("#name", "Ann")
    ann.fill("#join-code", invite.lower().replace("-", " "))  # as someone types it
    ann.click("text=Go to table")
    expect(ann.locator("h1")).to_have_text(f"Table {made['code']}")
    take_seat(ann, "Ann")
    assert server.get(f"/api/tables/{made['code']}?key={made['key']}")["seats"][0]["name"] == "Ann"


def test_the_invite_dialog_copies_the_invite_and_shows_its_qr_code(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    made = private_table(server)
    ann.goto(f"{server.url}{made['link']}")
    take_seat(ann, "Ann")
    ann.click(".overlay .invite-open")
    dialog = ann.locator("dialog")
    expect(dialog.locator(".invite-code")).to_have_text(made["invite"])
    link = f"{server.url}{made['link']}"
    expect(dialog.locator(".invite-link")).to_have_text(link)
    expect(dialog.locator(".watch-link")).to_have_text(f"{server.url}{made['watch']}")
    qr = dialog.locator(".qr-box svg")
    expect(qr).to_be_visible()
    assert qr.bounding_box()["width"] >= 100  # type: ignore[index]  # big enough to scan
    assert qr.locator("path").count() >= 1
    dialog.locator("text=Copy invite").click()
    expect(ann.locator(".toast").filter(has_text="Invite copied")).to_be_visible()
    copied = ann.evaluate("window.copied")
    assert link in copied and made["invite"] in copied
    # The friend pastes the link and sits down.
    ben.goto(link)
    take_seat(ben, "Bert")


def test_copy_invite_opens_the_share_sheet_on_a_phone(server: Server, browser: Browser) -> None:
    context = browser.new_context(
        bypass_csp=True, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    context.add_init_script(
        "navigator.share = async (data) => { window.shared = data; };" + RECORD_COPIES
    )
    phone = context.new_page()
    errors: list[str] = []
    phone.on("pageerror", lambda e: errors.append(str(e)))
    made = private_table(server)
    phone.goto(f"{server.url}{made['link']}")
    take_seat(phone, "Ann")
    phone.locator(".overlay .invite-open").tap()
    phone.locator("dialog >> text=Copy invite").tap()
    expect(phone.locator(".toast").filter(has_text="Invite shared")).to_be_visible()
    shared = phone.evaluate("window.shared")
    assert shared["url"] == f"{server.url}{made['link']}" and made["invite"] in shared["text"]
    assert phone.evaluate("window.copied") is None  # the share sheet, not the clipboard
    context.close()
    assert errors == []


def test_the_watch_link_opens_a_spectator_view(server: Server, players: list[Player]) -> None:
    ann, watcher = (p.page for p in players)
    made = private_table(server)
    ann.goto(f"{server.url}{made['link']}")
    take_seat(ann, "Ann")
    watcher.goto(f"{server.url}{made['watch']}")
    expect(watcher.locator(".status")).to_contain_text("watching")
    expect(watcher.locator(".mine")).to_contain_text("You are watching this table.")
    expect(watcher.locator(".overlay .seat-list")).to_contain_text("Ann")
    expect(watcher.locator("#join-name")).to_have_count(0)  # no seat to take
    expect(watcher.locator(".ready-btn")).to_have_count(0)
    expect(watcher.locator(".invite-btn")).to_be_hidden()  # it holds no invite to pass on


def test_the_host_starts_the_next_match_once_the_wait_is_over(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    code = server.table([ANN, BEN], bots={}, options={"match": "single"}, host_start_s=3)
    seat_all([ann, ben], f"{server.url}/t/{code}", ["Ann", "Bert"])
    ann.dblclick('.mine [data-src="N"]')
    expect(ann.locator(".fslot .card").first).to_have_attribute(
        "aria-label", "foundation F1: ace of hearts, 1 card"
    )
    ann.keyboard.press("n")  # the one-hand match is over; nobody says Play again
    start = ann.locator(".overlay .host-start-next")
    expect(start).to_be_disabled(timeout=10_000)
    expect(ann.locator(".host-start-wait")).to_contain_text("or when everyone has said Play again")
    expect(ben.locator(".host-start-line")).to_contain_text("The host may start the next match in")
    expect(ben.locator(".host-start-next")).to_have_count(0)  # only the host has the button
    expect(start).to_be_enabled(timeout=10_000)
    expect(ben.locator(".host-start-line")).to_have_text("The host may start the next match now.")
    start.click()
    for page in (ann, ben):
        wait_go(page)
        expect(page.locator(".strip")).to_contain_text("Series 1–0")
