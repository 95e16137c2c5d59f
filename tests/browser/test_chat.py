"""Chat and reactions between two pages: a line appears on the other page as text (its
markup shown, not run), over-long and too-fast lines are refused with a sentence, a
reaction shows on the sender's seat, a muted person's chat and reactions do not show,
and during play the open panel never covers the page's own cards (desktop and phone)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Server
from .helpers import TWO_ANN as ANN
from .helpers import TWO_BEN as BEN
from .helpers import Player, open_players, seat_all
from .test_host import host_dialog


@pytest.fixture
def players(browser: Browser) -> Iterator[list[Player]]:
    yield from open_players(browser, 2)


def take_seats(server: Server, pages: list[Page], names: list[str]) -> None:
    """Both at a two-person table, before the first deal (the chat stands open)."""
    code = server.table([ANN, BEN], bots={})
    for page, name in zip(pages, names, strict=True):
        page.goto(f"{server.url}/t/{code}")
        page.fill("#join-name", name)
        page.click("text=Take a seat")
        expect(page.locator(".chat-panel")).to_be_visible()
    expect(pages[0].locator(".seat-list")).to_contain_text(names[1])


def say(page: Page, text: str) -> None:
    page.fill(".chat-input", text)
    page.press(".chat-input", "Enter")


def test_chat_lines_arrive_as_text_and_bad_lines_are_refused_with_a_sentence(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    take_seats(server, [ann, ben], ["Ann", "Bert"])
    say(ann, "<b>x</b> <img src=x onerror=alert(1)>")
    line = ben.locator(".chat-line").filter(has_text="<b>x</b>")
    expect(line.locator(".chat-who")).to_have_text("Ann")
    expect(line.locator(".chat-text")).to_have_text("<b>x</b> <img src=x onerror=alert(1)>")
    assert ben.locator(".chat-log b:not(.chat-who), .chat-log img").count() == 0  # never run

    say(ann, "y" * 201)
    expect(ann.locator(".chat-note")).to_contain_text("201 characters; the limit is 200")
    expect(ann.locator(".chat-input")).to_have_value("y" * 201)  # kept, to be shortened

    for i in range(2, 6):  # five lines in ten seconds are fine; the sixth is refused
        say(ann, f"line {i}")
        expect(ann.locator(".chat-line").filter(has_text=f"line {i}")).to_be_visible()
    say(ann, "one too many")
    expect(ann.locator(".chat-note")).to_contain_text("Slow down: at most 5 lines in 10 seconds")
    expect(ben.locator(".chat-line").filter(has_text="line 5")).to_be_visible()
    assert ben.locator(".chat-line").filter(has_text="one too many").count() == 0
    assert ben.locator(".chat-line").filter(has_text="y" * 201).count() == 0

    ann.click('.react-btn[data-what="🎉"]')
    bubble = ben.locator('.opp[data-seat="0"] .reaction')
    expect(bubble).to_have_text("🎉")
    expect(bubble).to_have_attribute("aria-label", "Ann: 🎉")
    expect(bubble).to_have_count(0, timeout=6000)  # for a moment only


def test_a_muted_person_is_not_heard(server: Server, players: list[Player]) -> None:
    ann, ben = (p.page for p in players)
    take_seats(server, [ann, ben], ["Ann", "Bert"])
    say(ann, "before the mute")
    expect(ben.locator(".chat-line").filter(has_text="before the mute")).to_be_visible()
    ben.click(".chat-mute summary")
    ben.check('.mute-list input[data-name="Ann"]')
    expect(ben.locator(".chat-line").filter(has_text="before the mute")).to_have_count(0)

    say(ann, "can you hear me")
    ann.click('.react-btn[data-what="😂"]')
    # Once Ann's page has both back, Bert's has had them too (one table, in order).
    expect(ann.locator(".chat-line").filter(has_text="can you hear me")).to_be_visible()
    expect(ann.locator(".mine .reaction")).to_have_text("😂")
    say(ben, "ben still talks")
    expect(ben.locator(".chat-line").filter(has_text="ben still talks")).to_be_visible()
    assert ben.locator(".chat-line").filter(has_text="can you hear me").count() == 0
    assert ben.locator(".reaction").count() == 0

    ben.reload()  # remembered for the table
    expect(ben.locator(".chat-line").filter(has_text="ben still talks")).to_be_visible()
    assert ben.locator(".chat-line").filter(has_text="Ann").count() == 0
    ben.click(".chat-mute summary")
    ben.uncheck('.mute-list input[data-name="Ann"]')
    expect(ben.locator(".chat-line").filter(has_text="can you hear me")).to_be_visible()


def test_a_muted_person_stays_muted_under_a_new_name(server: Server, players: list[Player]) -> None:
    """Muting is of the person, not the name: Ann mutes Bert and removes him (she is the
    host); he comes back as "Bert2" from the same browser, and Ann's page still does not
    show what he says."""
    ann, ben = (p.page for p in players)
    take_seats(server, [ann, ben], ["Ann", "Bert"])
    ann.click(".chat-mute summary")
    ann.check('.mute-list input[data-name="Bert"]')
    host_dialog(ann)
    ann.locator("dialog .host-panel li").filter(has_text="Bert").locator(".host-remove").click()
    expect(ben.locator(".removed")).to_contain_text("The host removed you from this table")
    ann.keyboard.press("Escape")
    ben.reload()  # the token is gone: the page offers a seat again
    ben.fill("#join-name", "Bert2")
    ben.click("text=Take a seat")
    expect(ann.locator('.mute-list input[data-name="Bert2"]')).to_be_checked()  # still muted
    say(ben, "you cannot escape me")
    ben.click('.react-btn[data-what="😂"]')
    expect(ben.locator(".chat-line").filter(has_text="you cannot escape me")).to_be_visible()
    say(ann, "quiet now")
    # Ann's own line comes back after Bert2's (one table, in order): his was not shown.
    expect(ann.locator(".chat-line").filter(has_text="quiet now")).to_be_visible()
    assert ann.locator(".chat-line").filter(has_text="escape").count() == 0
    assert ann.locator(".reaction").count() == 0
    ann.uncheck('.mute-list input[data-name="Bert2"]')
    expect(ann.locator(".chat-line").filter(has_text="you cannot escape me")).to_be_visible()


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_during_play_the_panel_never_covers_your_own_cards(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    code = server.table([ANN, BEN], bots={})
    seat_all([ann, ben], f"{server.url}/t/{code}", ["Ann", "Bert"])
    expect(ann.locator(".chat-panel")).to_be_hidden()  # collapsed during play
    ben.click(".chat-btn")
    say(ben, "good luck")
    expect(ann.locator(".chat-unread")).to_have_text("1")  # told, not covered
    ann.click(".chat-btn")
    expect(ann.locator(".chat-line").filter(has_text="good luck")).to_be_visible()
    for width, height in ((1280, 720), (844, 390)):
        ann.set_viewport_size({"width": width, "height": height})
        # The resize redraws: the panel then ends above the page's own layout.
        ann.wait_for_function(
            f"window.innerWidth === {width} && document.querySelector('.chat-panel')"
            ".getBoundingClientRect().bottom <= document.querySelector('.mine-wrap')"
            ".getBoundingClientRect().top"
        )
        panel = ann.locator(".chat-panel").bounding_box()
        assert panel is not None and panel["height"] > 60, (width, panel)
        for mine in (".mine", ".actions", '.mine [data-src="N"]'):
            box = ann.locator(mine).first.bounding_box()
            assert box is not None and not _overlap(panel, box), (width, mine, panel, box)
    ann.click(".chat-close")
    expect(ann.locator(".chat-panel")).to_be_hidden()
