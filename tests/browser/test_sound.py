"""Sound: none before the page's first gesture (browsers refuse it, and it would startle),
then the table's events sound (counted by the test hook ``window.__nertzSounds``, as the
sounds are sent to the audio output); the setting in ⚙ survives a reload."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import Server
from .helpers import BOT, TWO_ANN, TWO_BEN, Player, call_nertz, open_players, to_the_middle, wait_go


@pytest.fixture
def players(browser: Browser) -> Iterator[list[Player]]:
    yield from open_players(browser, 2)


def sounds(page: Page) -> list[str]:
    return list(page.evaluate("window.__nertzSounds.names"))


def test_no_sound_before_the_first_gesture_one_after_and_the_setting_is_kept(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    code = server.table([TWO_BEN, TWO_ANN, BOT], bots={}, options={"match": "single"})
    url = f"{server.url}/t/{code}"
    ben.goto(url)  # Bert sits first: he is the host
    ben.fill("#join-name", "Bert")
    ben.click("text=Take a seat")
    expect(ben.locator(".host-btn")).to_be_visible()  # his seat is taken before Ann's
    token = server.post(f"/api/tables/{code}/join", {"name": "Ann"})["token"]
    ann.goto(f"{url}#seat={token}")  # Ann's page opens at her seat: no click, no key
    expect(ann.locator(".overlay .seating")).to_be_visible()

    # Bert deals at once: Ann's page sees the deal, the countdown and Go, all silent.
    ben.click(".host-btn")
    ben.click("dialog .host-start")
    for page in (ann, ben):
        wait_go(page)
    assert sounds(ann) == []
    assert ann.evaluate("typeof window.__nertzSounds.count") == "number"

    # Her first gesture plays her ace to the middle, and that one sounds.
    to_the_middle(ann)  # keys are a gesture too
    expect(ann.locator(".fslot .card")).to_have_count(1)
    ann.wait_for_function("window.__nertzSounds.names.includes('mine')")
    assert sounds(ann).count("mine") == 1
    # Someone else's card to the middle, on Bert's page (when his page has the event).
    ben.wait_for_function("window.__nertzSounds.names.includes('theirs')")

    # Sound off in ⚙: remembered after a reload, and then nothing sounds.
    ann.click(".settings summary")
    ann.uncheck(".settings .sound-on")
    ann.reload()
    ann.click(".settings summary")  # a gesture: sound would be allowed now
    expect(ann.locator(".settings .sound-on")).not_to_be_checked()
    expect(ann.locator(".settings .sound-volume")).to_be_disabled()
    call_nertz(ann)  # Ann calls Nertz (R27): a call sounds, when sound is on
    expect(ann.locator(".hand-end")).to_be_visible(timeout=10_000)
    assert sounds(ann) == []
    ben.wait_for_function("window.__nertzSounds.names.includes('call')")
