"""Two browsers at one table (issue 5, "Done when"): each sees the other's moves, a
real race for one foundation is lost by one of them, and a page whose connection drops
reconnects by itself and catches up with what happened meanwhile."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from ..delay_proxy import delayed
from .conftest import Server
from .helpers import Player, drag, foundation, open_players, seat_all

ANN = "nertz: 5D 2H; work: AH / 9C / KC / 4C; stock: 2C 3C 7H; waste: -"
BEN = "nertz: 9S 2H; work: AS / 8D / QD / 3S; stock: 4H 5H 6H; waste: -"
"""Both Nertz piles show a two of hearts: whoever is first puts theirs on the ace."""

SOCKETS = """
(() => {
  // Test-only: record what this page's WebSockets send and get, and let the test hold
  // a reconnection back (the network is still down) until it says so.
  const Real = window.WebSocket;
  const log = { sockets: [], sent: [], got: [], hold: false, held: null };
  window.__ws = log;
  class Held extends EventTarget {
    constructor(url) { super(); this.url = url; this.readyState = 0; log.held = this; }
    send() { throw new Error("not open"); }
    close() { this.readyState = 3; }
  }
  function Socket(url, protocols) {
    if (log.hold) return new Held(url);
    const ws = new Real(url, protocols);
    const i = log.sockets.push(ws) - 1;
    const send = ws.send.bind(ws);
    ws.send = (data) => { log.sent.push({ i, msg: JSON.parse(data) }); send(data); };
    ws.addEventListener("message", (e) => log.got.push({ i, msg: JSON.parse(e.data) }));
    return ws;
  }
  Object.assign(Socket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  Socket.prototype = Real.prototype;
  window.WebSocket = Socket;
  log.release = () => {
    const held = log.held;
    log.hold = false;
    log.held = null;
    if (held && held.onclose) held.onclose({ code: 1006, reason: "" });
  };
})();
"""


@pytest.fixture
def players(browser: Browser) -> Iterator[list[Player]]:
    yield from open_players(browser, 2, SOCKETS)


def sit_down(server: Server, players: list[Player], **options: str) -> None:
    """A two-seat table of people: Ann takes seat 1, Bert seat 2; both ready; Go."""
    code = server.table([ANN, BEN], bots={}, options=options)
    seat_all([p.page for p in players], f"{server.url}/t/{code}", ["Ann", "Bert"])


def opponent_pile(page: Page, n: int) -> Any:
    return page.locator(f'.opp .pile[data-pile="{n}"]')


def test_two_browsers_play_each_other_and_race(server: Server, players: list[Player]) -> None:
    ann, ben = (p.page for p in players)
    sit_down(server, players, tie_window_ms="0")  # R16: no true ties, first to arrive wins
    for page in (ann, ben):
        expect(page.locator(".opp")).to_contain_text("Ann" if page is ben else "Bert")

    # Ann starts a foundation with her ace: Bert sees her layout and the middle change.
    drag(ann, '.mine [data-src="1"]', ".middle")
    for page in (ann, ben):
        expect(foundation(page, 1)).to_have_attribute(
            "aria-label", "foundation F1: ace of hearts, 1 card"
        )
    expect(opponent_pile(ben, 1)).to_have_attribute("aria-label", "work pile 1: empty")
    # Bert starts one with his: Ann sees it.
    ben.dblclick('.mine [data-src="1"]')
    for page in (ann, ben):
        expect(foundation(page, 2)).to_have_attribute(
            "aria-label", "foundation F2: ace of spades, 1 card"
        )
    expect(opponent_pile(ann, 1)).to_have_attribute("aria-label", "work pile 1: empty")

    # The race: both pick their two of hearts, then both send it to the middle, Ann's
    # key first and Bert's right after, before either has heard back.
    for page in (ann, ben):
        page.keyboard.press("0")
        expect(page.locator(".card.selected")).to_have_attribute("aria-label", "2 of hearts")
    ann.keyboard.press("f")
    ben.keyboard.press("f")
    for page in (ann, ben):
        expect(foundation(page, 1)).to_have_attribute(
            "aria-label", "foundation F1: 2 of hearts, 2 cards"
        )
    beaten = [p.locator(".toast.warn", has_text="Beaten to it!") for p in (ann, ben)]
    deadline = time.monotonic() + 5
    while not (lost := [i for i, b in enumerate(beaten) if b.count()]):
        assert time.monotonic() < deadline, "nobody was beaten: both twos cannot be on F1"
        time.sleep(0.05)
    assert len(lost) == 1, "exactly one of the two loses the race"
    loser, winner = (ann, ben) if lost == [0] else (ben, ann)
    expect(beaten[lost[0]]).to_contain_text("F1 already has the 2 of hearts (R16)")
    expect(winner.locator(".toast.warn", has_text="Beaten")).to_have_count(0)
    # The loser's two sprang back onto its Nertz pile; the winner's next card shows, on
    # its own page and on the loser's.
    expect(loser.locator('.mine [data-src="N"]')).to_have_attribute("aria-label", "2 of hearts")
    next_card = "5 of diamonds" if winner is ann else "9 of spades"
    expect(winner.locator('.mine [data-src="N"]')).to_have_attribute("aria-label", next_card)
    expect(loser.locator(".opp .pile.nertz")).to_have_attribute(
        "aria-label", f"Nertz pile: 1 card, top {next_card}"
    )
    expect(winner.locator(".opp .pile.nertz")).to_have_attribute(
        "aria-label", "Nertz pile: 2 cards, top 2 of hearts"
    )
    # Both pages agree on whose cards are on F1 (the owner strip: the ace's, the two's).
    strips = [p.locator('.fslot[data-drop="F1"] .owners i') for p in (ann, ben)]
    for strip in strips:
        expect(strip).to_have_count(2)
    colours = [[strip.nth(i).get_attribute("style") for i in range(2)] for strip in strips]
    mine = [p.locator(".my-head .chip").get_attribute("style") for p in (ann, winner)]
    assert colours[0] == colours[1] == mine


def test_a_dropped_connection_reconnects_and_catches_up(
    server: Server, players: list[Player]
) -> None:
    ann, ben = (p.page for p in players)
    sit_down(server, players)
    seen: int = ann.evaluate(
        "Math.max(...window.__ws.got.flatMap(({ msg }) =>"
        " msg.type === 'ack' ? msg.events.map((e) => e.v) : [msg.v ?? -1]))"
    )
    # Ann's connection drops mid-hand, and stays down until the test says so.
    ann.evaluate("window.__ws.hold = true; window.__ws.sockets.at(-1).close()")
    expect(ann.locator(".status")).to_have_text("Connection lost — reconnecting…")
    expect(ben.locator(".opp")).to_contain_text("away")  # the server saw her go
    # Meanwhile Bert plays a card.
    drag(ben, '.mine [data-src="1"]', ".middle")
    expect(foundation(ben, 1)).to_have_attribute(
        "aria-label", "foundation F1: ace of spades, 1 card"
    )
    ann.wait_for_function("window.__ws.held !== null")  # a first try, still down
    expect(foundation(ann, 1)).to_have_count(0)
    ann.evaluate("window.__ws.release()")
    # Back by itself, with a quiet notice, and the card Bert played is there.
    expect(ann.locator(".toast.info")).to_contain_text("Reconnected.")
    expect(ann.locator(".status")).to_have_text("Play!")
    expect(foundation(ann, 1)).to_have_attribute(
        "aria-label", "foundation F1: ace of spades, 1 card"
    )
    expect(opponent_pile(ann, 1)).to_have_attribute("aria-label", "work pile 1: empty")
    expect(ben.locator(".opp")).not_to_contain_text("away")
    hellos = ann.evaluate("window.__ws.sent.filter(({ msg }) => msg.type === 'hello')")
    assert len(hellos) == 2 and hellos[1]["i"] == 1
    first, again = hellos[0]["msg"], hellos[1]["msg"]
    assert again["token"] == first["token"] and again["table"] == first["table"]
    assert again["last_version"] == seen
    # Resumed from that version: the server sent the missed events, not a full state.
    resumed = ann.evaluate(
        "window.__ws.got.filter(({ i, msg }) => i === 1 && msg.type !== 'ping')"
        ".map(({ msg }) => msg)"
    )  # (the table's clock-sync pings come and go beside them)
    assert resumed and all(m["type"] == "event" for m in resumed), resumed
    assert [m["v"] for m in resumed] == list(range(seen + 1, seen + 1 + len(resumed)))
    assert any(m["e"]["k"] == "moved" and m["e"]["seat"] == 1 for m in resumed)
    # And play goes on from the same table: Ann's ace reaches Bert.
    drag(ann, '.mine [data-src="1"]', ".middle")
    expect(foundation(ben, 2)).to_have_attribute(
        "aria-label", "foundation F2: ace of hearts, 1 card"
    )
    for page in (ann, ben):
        labels = page.locator(".fslot .card").evaluate_all("els => els.map(e => e.ariaLabel)")
        assert labels == [
            "foundation F1: ace of spades, 1 card",
            "foundation F2: ace of hearts, 1 card",
        ]


MEASURED = """
() => {
  // The table has measured this page's trip: it tells the page its clock's offset in
  // its pings (``o``, null before any answer), and the page has taken one such ping
  // in (it answered it), so its plays carry stamps the table can credit.
  const pings = window.__ws.got.filter(({ msg }) => msg.type === "ping" && msg.o !== null);
  const told = new Set(pings.map(({ msg }) => msg.t));
  return window.__ws.sent.some(({ msg }) => msg.type === "pong" && told.has(msg.t));
}
"""


def test_the_earlier_gesture_wins_from_a_page_150_ms_away(
    server: Server, players: list[Player]
) -> None:
    """R16 with fair races: Ann, 150 ms from the server each way, sends her two of hearts
    first; Bert, next to the server, a tenth of a second later. Bert's arrives first, but
    Ann's was played first, and it stays (with ``fair_races`` off, Bert's would)."""
    ann, ben = (p.page for p in players)
    port = int(server.url.rsplit(":", 1)[1])
    with delayed(port, 150) as far:  # every byte of Ann's held 150 ms each way
        code = server.table([ANN, BEN], bots={}, options={"tie_window_ms": "0"})
        seat_all(
            [ann, ben],
            [f"http://127.0.0.1:{far}/t/{code}", f"{server.url}/t/{code}"],
            ["Ann", "Bert"],
        )
        far_race(ann, ben)


def far_race(ann: Page, ben: Page) -> None:
    """Ann, far, plays her two of hearts a tenth of a second before Bert: it stays."""
    drag(ann, '.mine [data-src="1"]', ".middle")  # Ann's ace starts F1 (R12)
    for page in (ann, ben):
        expect(foundation(page, 1)).to_have_attribute(
            "aria-label", "foundation F1: ace of hearts, 1 card"
        )
        page.keyboard.press("0")
        expect(page.locator(".card.selected")).to_have_attribute("aria-label", "2 of hearts")
    for page in (ann, ben):  # the table has measured both trips, and both pages know it
        page.wait_for_function(MEASURED)
    ann.keyboard.press("f")
    time.sleep(0.1)
    ben.keyboard.press("f")
    expect(ben.locator(".toast.warn", has_text="Beaten to it!")).to_contain_text(
        "F1 already has the 2 of hearts (R16)"
    )
    expect(ann.locator(".toast.warn", has_text="Beaten")).to_have_count(0)
    for page in (ann, ben):
        expect(foundation(page, 1)).to_have_attribute(
            "aria-label", "foundation F1: 2 of hearts, 2 cards"
        )
    expect(ann.locator('.mine [data-src="N"]')).to_have_attribute("aria-label", "5 of diamonds")
    expect(ben.locator('.mine [data-src="N"]')).to_have_attribute("aria-label", "2 of hearts")
    # The rules dialog names the option that decided it, on at this table (R16).
    ben.click(".rules-btn")
    row = ben.locator(
        "dialog.rules-dialog table.options tr", has=ben.locator("code", has_text="fair_races")
    )
    expect(row.locator("td").nth(1)).to_have_text("on")
    expect(row).to_contain_text("played first")
