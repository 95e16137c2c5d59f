"""Between hands (docs/server.md, "Lifetimes"): everyone is told when the next hand
deals at the latest, and a person who leaves keeps the place through a countdown
everyone can see; back in time, it is theirs. Virtual time throughout."""

from __future__ import annotations

from typing import Any

from nertz.engine import Rules
from nertz.server.table.commands import Stage

from .harness import Harness
from .test_table import events, fast, play_match

SINGLE = Rules(match="single")


def between(**settings: int) -> Harness:
    """Ann (seat 0) and Bo (seat 1) with two quick bots, one hand played: between hands."""
    h = Harness(Rules(), fast(bots={2: "demon:prompt", 3: "demon:prompt"}, **settings))
    for conn, (name, token) in enumerate((("ann", "t0"), ("bo", "t1")), start=1):
        h.join(name, token)
        h.connect(conn, token)
        h.send(conn, {"type": "ready"})
    assert h.run_until(lambda: h.table.stage is Stage.BETWEEN, 600_000)
    return h


def kinds(h: Harness, conn: int, k: str) -> list[dict[str, Any]]:
    return [e["e"] for e in events(h, conn) if e["e"]["k"] == k]


def test_the_hand_end_and_the_state_say_when_the_next_hand_deals() -> None:
    h = between(next_hand_s=30)
    ended = h.now
    (end,) = kinds(h, 2, "hand_end")
    assert (end["next_at_ms"], end["next_in_ms"]) == (ended + 30_000, 30_000)
    assert h.table.info()["next_at_ms"] == ended + 30_000
    h.advance(10_000)
    h.send(2, {"type": "resync"})  # a page reloaded mid-countdown counts on from its state
    state = h.last(2)
    assert state["table"]["next_at_ms"] - state["now_ms"] == 20_000
    h.advance(19_000)
    assert h.table.stage is Stage.BETWEEN
    h.advance(1_000)
    assert h.table.stage is Stage.COUNTDOWN and h.table.hand_no == 2  # on the dot
    assert "next_at_ms" not in h.table.info()


def test_the_last_hand_of_a_match_announces_no_next_hand() -> None:
    h = Harness(SINGLE, fast(bots={1: "demon:prompt", 2: "demon:prompt", 3: "demon:prompt"}))
    h.join("ann", "t0")
    h.connect(1, "t0")
    h.send(1, {"type": "ready"})
    play_match(h)
    (end,) = kinds(h, 1, "hand_end")
    assert "next_at_ms" not in end and "next_in_ms" not in end
    assert "next_at_ms" not in h.table.info()


def test_who_leaves_between_hands_keeps_the_place_through_a_countdown_and_comes_back() -> None:
    h = between(next_hand_s=30, reconnect_s=120, bot_takeover_s=30)
    left = h.now
    h.drop(2)  # Bo closes the page
    gone = kinds(h, 1, "connected")[-1]
    assert gone == {
        "k": "connected",
        "seat": 1,
        "connected": False,
        "kept_until_ms": left + 120_000,
        "bot_from_ms": left + 30_000,
    }
    h.advance(20_000)
    h.send(1, {"type": "resync"})  # what Ann's page counts down: 1:40 to go
    seat = h.last(1)["table"]["seats"][1]
    assert seat["name"] == "bo" and not seat["connected"]
    assert seat["kept_until_ms"] - h.last(1)["now_ms"] == 100_000
    # The next deal does not wait for Bo (docs/server.md): Ann is ready, it deals.
    h.send(1, {"type": "ready"})
    assert h.table.stage is Stage.COUNTDOWN
    h.advance(30_000)  # a bot plays Bo's place from ``bot_from_ms`` on
    assert kinds(h, 1, "takeover")[-1] == {"k": "takeover", "seat": 1, "bot": True}
    h.connect(3, "t1")  # Bo is back in time: the place and its cards are his again
    assert kinds(h, 1, "connected")[-1] == {"k": "connected", "seat": 1, "connected": True}
    assert kinds(h, 1, "takeover")[-1] == {"k": "takeover", "seat": 1, "bot": False}
    seat = h.table.info()["seats"][1]
    assert seat["name"] == "bo" and seat["connected"] and "kept_until_ms" not in seat
    assert h.last(3)["type"] == "state" and h.last(3)["seat"] == 1


def test_a_place_not_come_back_to_is_released_when_its_countdown_ends() -> None:
    h = between(next_hand_s=30, reconnect_s=60, bot_takeover_s=0)
    h.drop(2)
    gone = kinds(h, 1, "connected")[-1]
    assert "bot_from_ms" not in gone  # no bot stands in before the release (setting 0)
    h.advance(gone["kept_until_ms"] - h.now - 1)
    assert h.table.places[1].name == "bo"
    h.advance(1)
    assert kinds(h, 1, "seat")[-1] == {"k": "seat", "seat": 1, "name": None, "bot": None}
    assert "kept_until_ms" not in h.table.info()["seats"][1]


def test_a_partner_away_shows_the_countdown_in_their_own_place() -> None:
    rules = Rules(partnerships=True)
    h = Harness(rules, fast(seats=2, bots={1: "demon:prompt+demon:prompt"}, reconnect_s=90))
    for conn, (name, token) in enumerate((("ann", "t0"), ("bo", "t1")), start=1):
        h.join(name, token)
        h.connect(conn, token)
    h.drop(2)
    seat = h.table.info()["seats"][0]
    ann, bo = seat["partners"]
    assert "kept_until_ms" not in ann and bo["kept_until_ms"] == h.now + 90_000
    assert "kept_until_ms" not in seat  # the seat's own entry speaks for both
