"""A person plays a match against an outside bot in Chromium (issue 28, "Done when"):
the example bot of docs/bots.md, run from its code block, takes the other seat of a
table that allows outside bots, plays its Nertz card and calls; the person sees it
marked as a bot at the table, in the end panel and on the match's page. A host invites
a registered bot by name from the Host dialog to a table that allows none."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from playwright.sync_api import Page, expect

from nertz.client import join_as_bot

from ..server.test_outside_bots import example_bot
from .conftest import Console, Server
from .helpers import TWO_ANN, TWO_BEN, wait_go

ROBO = TWO_ANN
"""The bot's seat: one Nertz card, the ace of hearts: it plays it and calls (R27)."""
TESS = TWO_BEN
"""The person's seat beside it."""


def test_a_person_plays_a_match_against_an_outside_bot(
    page: Page, server: Server, console: Console
) -> None:
    token = server.post("/api/bots", {"name": "Robo"})["token"]
    made = server.post(
        "/api/test/tables",
        {
            "layouts": [TESS, ROBO],
            "seats": 2,
            "countdown_ms": 300,
            "outside_bots": True,
            "options": {"match": "single"},
        },
    )
    code = made["code"]
    page.goto(f"{server.url}/t/{code}")
    page.fill("#join-name", "Tess")
    page.click("text=Take a seat")
    expect(page.locator(".ready-btn")).to_be_visible()

    ended: list[Any] = []  # the bot runs its own event loop, beside the page's

    def run_the_bot() -> None:
        play = example_bot()["play"]
        ended.append(asyncio.run(asyncio.wait_for(play(server.url, code, token), 120)))

    bot = threading.Thread(target=run_the_bot, daemon=True)
    bot.start()
    seating = page.locator(".panel.seating")
    expect(seating).to_contain_text("Robo (bot)")  # marked while seating
    page.click(".ready-btn")
    wait_go(page)
    opponent = page.locator(".opp-head", has_text="Robo")
    expect(opponent).to_contain_text("bot")  # marked at the table
    page.keyboard.press("t")  # the person turns the stock meanwhile (R21)
    end = page.locator(".overlay .panel.hand-end")
    expect(end).to_contain_text("Robo called Nertz!", timeout=30_000)
    expect(end).to_contain_text("Robo (bot)")  # marked in the end panel
    expect(page.locator(".status")).to_have_text("Match over")
    bot.join(60)
    assert ended and type(ended[0]).__name__ == "MatchOver", ended
    assert ended[0].winners == (1,)
    page.screenshot(path="/tmp/outside_bot_end.png")

    assert server.get(f"/api/tables/{code}")["seats"][1]["bot"] == "outside"
    finished = [m for m in server.get("/api/matches")["matches"] if m["code"] == code]
    page.goto(f"{server.url}/matches/{finished[0]['match']}/1")  # the match's own page
    expect(page.locator("body")).to_contain_text("Robo (bot)")


def test_the_host_invites_a_registered_bot_by_name_from_the_dialog(
    page: Page, server: Server, console: Console
) -> None:
    token = server.post("/api/bots", {"name": "Gizmo"})["token"]
    code = server.table([TESS, ROBO], bots={})  # outside bots not allowed here
    page.goto(f"{server.url}/t/{code}")
    page.fill("#join-name", "Tess")
    page.click("text=Take a seat")
    expect(page.locator(".host-line")).to_have_text("You are the host.")
    page.locator(".overlay .host-open").click()
    dialog = page.locator("dialog .host-panel")
    expect(dialog).to_contain_text("Invite a bot")
    dialog.locator(".host-invite-name").fill("Gizmo")
    dialog.locator(".host-invite").click()
    page.keyboard.press("Escape")
    seating = page.locator(".panel.seating")
    expect(seating).to_contain_text("kept for Gizmo (bot)")

    joined: list[Any] = []

    def the_bot_joins() -> None:
        joined.append(asyncio.run(join_as_bot(server.url, code, token)))

    bot = threading.Thread(target=the_bot_joins, daemon=True)
    bot.start()
    bot.join(30)
    assert joined and joined[0]["seat"] == 1, joined
    expect(seating).to_contain_text("Gizmo (bot)")
    expect(seating).not_to_contain_text("kept for")
    # Unlike the server's bots, an outside bot is ready only once it says so.
    expect(seating).not_to_contain_text("Gizmo (bot) — ready")


def test_the_home_page_makes_a_table_that_allows_outside_bots_when_asked(
    page: Page, server: Server, console: Console
) -> None:
    page.goto(server.url)
    allowed = page.locator('#create input[name="outside_bots"]')
    expect(allowed).not_to_be_checked()  # off unless the host chooses it
    page.fill("#name", "Pat")
    allowed.check()
    page.click("text=Create table and sit down")
    page.wait_for_url("**/t/*")
    code = page.url.split("/t/")[1].split("?")[0]
    key = page.url.split("key=")[1].split("#")[0]
    assert server.get(f"/api/tables/{code}?key={key}")["outside_bots"] is True
