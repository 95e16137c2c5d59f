"""Jokers at a table (R41) over real WebSockets and in virtual time.

A joker goes to the middle announced, not played: every seat and every spectator is
told who announced which card for which foundation and until when; any seat holding
that real card may play it there first, and then the joker stays home (its owner is
told why); otherwise the table's timer lands it when the window ends and it scores like
any card. A server restarted in the middle of a window carries on with it.

The live tests use the test hook (``POST /api/test/tables``, ``Deal.from_layouts``) so
every card is known, and real time (speed 1) so the window is a real window."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from nertz.engine import Deal, Rules
from nertz.server.http.app import Config
from nertz.server.protocol import PROTOCOL_VERSION
from nertz.server.table.settings import Settings
from nertz.server.table.table import Stage, restore_from_records

from ..live_server import free_port, running
from .conftest import Live
from .harness import Harness
from .test_app import Client, is_event

ANN = "nertz: JK1; work: AH / 9C / KC / 4C; stock: 3C; waste: -"
"""Seat 0: an ace of hearts to start F1 and a joker on her Nertz pile."""
BEN = "nertz: 9S 2H; work: 5D / 6D / 7D / 8D; stock: 9C; waste: -"
"""Seat 1: the real two of hearts on his Nertz pile."""
STAYED = "the 2 of hearts reached F1 first (R41)"


@pytest.fixture
def hooked(tmp_path: Path) -> Iterator[Live]:
    """A live server with the test hook, at real speed: a window of 2 s is 2 s."""
    config = Config(db=str(tmp_path / "jokers.db"), port=free_port(), test_hooks=True)
    with running(config) as port:
        yield Live(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws", port)


class Seats:
    """Ann (seat 0), Bert (seat 1) and a spectator at a two-seat joker table, after Go."""

    def __init__(self, live: Live, window_ms: int) -> None:
        made = httpx.post(
            f"{live.http}/api/test/tables",
            json={
                "layouts": [ANN, BEN],
                "seats": 2,
                "countdown_ms": 0,
                "options": {"jokers": "on", "joker_announce_ms": str(window_ms)},
            },
        )
        assert made.status_code == 201, made.text
        code = made.json()["code"]
        self.ann, self.ben, self.watcher = Client(live.ws), Client(live.ws), Client(live.ws)
        for client, name in ((self.ann, "Ann"), (self.ben, "Bert")):
            token = httpx.post(f"{live.http}/api/tables/{code}/join", json={"name": name})
            hello = {"type": "hello", "table": code, "token": token.json()["token"]}
            client.send({**hello, "protocol": PROTOCOL_VERSION})
            client.until(lambda m: m["type"] == "state")
        self.watcher.send({"type": "hello", "table": code, "protocol": PROTOCOL_VERSION})
        self.watcher.until(lambda m: m["type"] == "state")
        for client in (self.ann, self.ben):
            client.send({"type": "ready"})
        for client in self.everyone:
            client.until(is_event("go"))
        self.seq = 0

    @property
    def everyone(self) -> tuple[Client, Client, Client]:
        return self.ann, self.ben, self.watcher

    def play(self, client: Client, move: str) -> dict[str, Any]:
        self.seq += 1
        seq = self.seq
        client.send({"type": "play", "seq": seq, "move": move})
        answer = client.until(lambda m: m["type"] in ("ack", "refused") and m["seq"] == seq)
        assert answer["type"] == "ack", answer
        return answer

    def state(self, client: Client) -> dict[str, Any]:
        client.send({"type": "resync"})
        return client.until(lambda m: m["type"] == "state")

    def close(self) -> None:
        for client in self.everyone:
            client.close()


def announce(seats: Seats) -> dict[str, Any]:
    """Ann starts F1 with her ace, then announces her joker as the 2 of hearts for F1."""
    seats.play(seats.ann, "1>F")
    [event] = seats.play(seats.ann, "N>F1=2H")["events"]
    told = event["e"]
    assert told == {
        "k": "announced",
        "seat": 0,
        "move": "N>F1=2H",
        "joker": "JK1",
        "as": "2H",
        "foundation": 1,
        "until_ms": told["until_ms"],
    }
    for client in (seats.ben, seats.watcher):  # every seat and every spectator
        assert client.until(is_event("announced"))["e"] == told
    return told


def test_the_real_card_played_within_the_window_sends_the_joker_home(hooked: Live) -> None:
    seats = Seats(hooked, window_ms=2000)
    told = announce(seats)
    # While the window runs the joker is still on Ann's pile, shown as announced.
    view = seats.state(seats.watcher)["view"]
    assert view["seats"][0]["nertz_top"] == "JK1"
    assert view["announcements"] == [
        {
            "seat": 0,
            "move": "N>F1=2H",
            "joker": "JK1",
            "as": "2H",
            "foundation": 1,
            "until_ms": told["until_ms"],
        }
    ]
    # Bert holds the real two of hearts and plays it there first, as usual (R41).
    [moved] = seats.play(seats.ben, "N>F1")["events"]
    assert moved["e"]["cards"] == ["2H"] and moved["e"]["foundation"] == 1
    # When the window ends the joker does not fit any more: it stays home, and every
    # connection is told why, in a sentence.
    for client in seats.everyone:
        stayed = client.until(is_event("joker_stayed"), timeout=10)["e"]
        assert stayed == {
            "k": "joker_stayed",
            "seat": 0,
            "move": "N>F1=2H",
            "joker": "JK1",
            "reason": STAYED,
        }
    for client in (seats.ann, seats.watcher):
        view = seats.state(client)["view"]
        assert view["seats"][0]["nertz_top"] == "JK1" and view["announcements"] == []
        assert view["foundations"][0]["top"] == "2H"
        assert view["foundations"][0]["owners"] == [0, 1]
    seats.close()


def test_an_unanswered_joker_lands_when_the_window_ends_and_scores(hooked: Live) -> None:
    seats = Seats(hooked, window_ms=400)
    announced_at = time.monotonic()
    announce(seats)
    landed = [c.until(is_event("moved"), timeout=10) for c in seats.everyone]
    waited = time.monotonic() - announced_at
    assert 0.3 <= waited < 3, f"the joker landed {waited:.2f} s after its announcement"
    for message in landed:
        assert message["e"] == {
            "k": "moved",
            "seat": 0,
            "move": "N>F1=2H",
            "cards": ["JK1"],
            "foundation": 1,
            "tie": False,
            "revealed": None,
            "as": "2H",
        }
    assert len({m["v"] for m in landed}) == 1  # the same event for everyone
    view = seats.state(seats.ben)["view"]
    f1 = view["foundations"][0]
    assert (f1["top"], f1["top_as"], f1["count"], f1["owners"]) == ("JK1", "2H", 2, [0, 0])
    # The next real card builds on what the joker stands for.
    assert view["seats"][0]["nertz_count"] == 0 and view["announcements"] == []
    # Ann's Nertz pile is empty: she calls; the joker counts as one of her cards in the
    # middle (R29, R41).
    seats.seq += 1
    seats.ann.send({"type": "call", "seq": seats.seq})
    end = seats.watcher.until(is_event("hand_end"), timeout=10)["e"]
    assert end["scores"][0] == {"middle": 2, "nertz_left": 0, "bonus": 0, "score": 2}
    seats.close()


# ---------------------------------------------------------------------- restart


def _deal(seats: int, rules: Rules, seed: int) -> Deal:
    return Deal.from_layouts([ANN, BEN])


def test_a_restart_during_the_window_lands_the_joker_on_time() -> None:
    rules = Rules(jokers=True)
    h = Harness(rules, Settings(seats=2, countdown_ms=100))
    h.table.dealer = _deal
    for conn, token in ((1, "a"), (2, "b")):
        h.join(f"p{conn}", token)
        h.connect(conn, token)
        h.send(conn, {"type": "ready"})
    h.run_until(lambda: h.table.stage is Stage.PLAYING)
    h.send(1, {"type": "play", "seq": 1, "move": "1>F"})
    h.now += 100
    h.send(1, {"type": "play", "seq": 2, "move": "N>F1=2H"})
    until = h.last(1)["events"][0]["e"]["until_ms"]
    assert until == h.now + rules.joker_announce_ms
    h.now += 500  # the server stops here, with the window open
    live = h.table
    # The restart: the table rebuilt from its records alone (store.py, lobby.restore).
    again = restore_from_records(live.code, rules, live.settings, h.records, _deal)
    assert again.hand is not None and live.hand is not None
    assert again.hand.snapshot() == live.hand.snapshot()
    assert again.next_deadline() is not None and again.next_deadline() <= until
    back = Harness(rules, live.settings, again)
    back.now = h.now
    back.connect(3, "a")
    state = back.last(3)
    assert [a["as"] for a in state["view"]["announcements"]] == ["2H"]
    assert state["now_ms"] < until  # with the view's until_ms, what is left of the window
    back.run_until(lambda: any(e.get("k") == "moved" for e in _events(back, 3)), 5000)
    landed = [e for e in _events(back, 3) if e.get("k") == "moved"]
    assert landed[0]["cards"] == ["JK1"] and landed[0]["as"] == "2H"
    assert back.now == until  # not a moment later than it would have without the restart
    hand = again.hand
    assert hand.scores()[0].middle == 2


def _events(h: Harness, conn: int) -> list[dict[str, Any]]:
    return [m["e"] for m in h.messages(conn) if m["type"] == "event"]
