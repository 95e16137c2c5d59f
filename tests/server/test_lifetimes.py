"""Lifetimes (docs/server.md, "Lifetimes"): nothing anyone can hold forever. Each limit
bites, and an honest player at the same moment is unaffected. Virtual time throughout,
except the lobby tests, which run actors on a fast clock."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from nertz.engine import Rules
from nertz.server.lobby.history import finished_match
from nertz.server.lobby.lobby import Lobby, LobbyError
from nertz.server.store.store import Store, TableCreated
from nertz.server.table.commands import Connect, Disconnect, Stage
from nertz.server.table.records import DiscardRecord, MatchRecord, SeatRecord
from nertz.server.table.settings import Settings

from .harness import Harness, token_hash
from .test_actor import Box
from .test_table import events, greedy_step, play_match

SINGLE = Rules(match="single")


def kinds(h: Harness, conn: int) -> list[dict[str, Any]]:
    return [e["e"] for e in events(h, conn)]


def test_a_seat_joined_and_never_connected_is_released_after_reconnect_s() -> None:
    h = Harness(Rules(), Settings(seats=3, reconnect_s=120))
    assert h.join("Squat", "sq") == ((0, 0), None)  # joins over HTTP, never connects
    for conn, (name, token) in enumerate((("Ann", "a"), ("Bob", "b")), start=1):
        h.join(name, token)
        h.connect(conn, token)
        h.send(conn, {"type": "ready"})
    h.advance(119_000)
    assert h.table.stage is Stage.SEATING and h.table.places[0].name == "Squat"
    h.advance(2_000)
    seat = h.table.info()["seats"][0]
    assert seat["name"] is None and not h.table.places[0].taken  # the old name is gone
    assert {"k": "seat", "seat": 0, "name": None, "bot": None} in kinds(h, 1)
    assert SeatRecord(0, "", None, None, 0) in h.records
    h.do(Connect(9, token_hash("sq")))
    assert h.closed[9] == "bad token"
    # The honest people are still seated; a newcomer takes the freed seat and they play.
    assert h.join("Cy", "c") == ((0, 0), None)
    h.connect(3, "c")
    h.send(3, {"type": "ready"})
    assert h.run_until(lambda: h.table.stage is Stage.PLAYING, 10_000)
    assert [p.name for p in h.table.places] == ["Cy", "Ann", "Bob"]


def test_a_person_who_never_says_ready_gets_a_countdown_then_a_bot_until_they_play() -> None:
    h = Harness(Rules(), Settings(seats=2, ready_s=60, countdown_ms=500))
    h.join("Ann", "a")
    h.connect(1, "a")
    h.send(1, {"type": "ready"})
    h.join("Bob", "b")
    h.connect(2, "b")  # connected, never ready
    assert {"k": "ready_by", "at_ms": 60_000, "in_ms": 60_000} in kinds(h, 1)
    assert h.table.info()["ready_by_ms"] == 60_000
    h.advance(59_000)
    h.send(1, {"type": "resync"})
    state = h.last(1)
    assert h.table.stage is Stage.SEATING
    assert state["table"]["ready_by_ms"] - state["now_ms"] == 1_000  # what the page counts
    assert h.run_until(lambda: h.table.stage is Stage.PLAYING, 3_000)
    # Bob is here: the bot is not for one away, and Bob is told why (not ready in time).
    assert {"k": "takeover", "seat": 1, "bot": True, "why": "not_ready"} in kinds(h, 1)
    assert h.table.info()["ready_by_ms"] is None
    hand = h.table.hand
    assert hand is not None
    h.advance(8_000)
    assert any(seat == 1 for _, seat, _ in hand.log)  # the bot plays Bob's place
    assert greedy_step(h, 1, 0) == 1  # Ann plays as ever
    assert any(m["type"] in ("ack", "refused") and m.get("seq") == 1 for m in h.messages(1))
    # Bob plays: he is back, the bot is gone, and his play is his.
    h.send(2, {"type": "play", "seq": 7, "move": "T"})
    assert {"k": "takeover", "seat": 1, "bot": False} in kinds(h, 1)
    assert h.table.places[1].driver is None
    assert any(m["type"] in ("ack", "refused") and m.get("seq") == 7 for m in h.messages(2))


def test_the_ready_countdown_stops_when_someone_leaves() -> None:
    h = Harness(Rules(), Settings(seats=2, ready_s=60))
    for conn, (name, token) in enumerate((("Ann", "a"), ("Bob", "b")), start=1):
        h.join(name, token)
        h.connect(conn, token)
    h.drop(2)
    assert kinds(h, 1)[-2:] == [
        {
            "k": "connected",
            "seat": 1,
            "connected": False,
            "kept_until_ms": 120_000,  # no bot before a deal (``seats.keeping``)
        },
        {"k": "ready_by", "at_ms": None, "in_ms": None},
    ]
    h.advance(90_000)
    assert h.table.stage is Stage.SEATING  # nobody is dealt in while a person is away


def test_a_table_nobody_is_at_ends_and_a_table_never_dealt_is_forgotten() -> None:
    lonely = Harness(Rules(), Settings(seats=2, empty_s=600))
    honest = Harness(Rules(), Settings(seats=2, empty_s=600, bots={1: "casual"}))
    honest.join("Ann", "a")
    honest.connect(1, "a")
    honest.send(1, {"type": "ready"})
    for h in (lonely, honest):
        h.advance(599_000)
    assert lonely.table.stage is Stage.SEATING
    for h in (lonely, honest):
        h.advance(2_000)
    assert lonely.table.stage is Stage.OVER and lonely.table.closed == "empty"
    assert lonely.table.done and DiscardRecord() in lonely.records
    assert honest.table.hand is not None and honest.table.closed is None  # dealt, playing on
    assert not honest.table.done


def test_a_match_whose_people_all_left_ends_without_a_winner_while_a_watched_one_stays() -> None:
    def playing(watch: bool) -> Harness:
        h = Harness(Rules(), Settings(seats=2, bots={1: "casual"}, reconnect_s=60, empty_s=60))
        h.join("Ann", "a")
        h.connect(1, "a")
        h.send(1, {"type": "ready"})
        if watch:
            h.connect(5, None)  # a spectator stays
        assert h.run_until(lambda: h.table.stage is Stage.PLAYING, 10_000)
        h.drop(1)
        return h

    left, watched = playing(False), playing(True)
    for h in (left, watched):
        h.advance(119_000)  # released at 60 s; nobody there from then on
    assert left.table.stage is not Stage.OVER
    for h in (left, watched):
        h.advance(2_000)
    assert left.table.closed == "empty" and left.table.stage is Stage.OVER
    assert any(type(r) is MatchRecord and r.winners == () for r in left.records)
    assert watched.table.closed is None and not watched.table.done
    assert {"k": "closed", "reason": "empty"} not in kinds(watched, 5)


def test_a_table_nobody_starts_expires_even_with_someone_there() -> None:
    # idle_s out of the way: this is start_s alone (a person saying nothing for 30
    # minutes ends a table sooner: test_a_table_where_nobody_plays_ends_after_idle_s).
    h = Harness(Rules(), Settings(seats=3, start_s=3600, reconnect_s=86_400, idle_s=86_400))
    honest = Harness(Rules(), Settings(seats=2, start_s=3600, bots={1: "casual"}, idle_s=86_400))
    h.join("Ann", "a")
    h.connect(1, "a")
    h.send(1, {"type": "ready"})
    h.advance(3_000_000)
    honest.join("Bo", "b")  # a table made at the same moment, started late, plays on
    honest.connect(1, "b")
    honest.advance(3_000_000)
    honest.send(1, {"type": "ready"})
    for table in (h, honest):
        table.advance(599_000)
    assert h.table.stage is Stage.SEATING
    for table in (h, honest):
        table.advance(2_000)
    assert h.table.closed == "unstarted" and h.closed[1] == "table closed: unstarted"
    assert {"k": "closed", "reason": "unstarted"} in kinds(h, 1)
    assert DiscardRecord() in h.records
    assert honest.table.hand is not None and not honest.table.done
    assert honest.run_until(lambda: honest.table.stage is Stage.PLAYING, 60_000)
    assert greedy_step(honest, 1, 0) == 1  # Bo plays


def _over_with_two_people(**settings: int) -> Harness:
    h = Harness(
        SINGLE,
        Settings(seats=3, bots={2: "demon:prompt"}, countdown_ms=500, next_hand_s=5, **settings),
    )
    for conn, (name, token) in enumerate((("Ann", "a"), ("Bo", "b")), start=1):
        h.join(name, token)
        h.connect(conn, token)
        h.send(conn, {"type": "ready"})
    play_match(h)
    assert h.table.stage is Stage.OVER
    return h


def test_a_finished_match_stays_for_play_again_while_anyone_is_there() -> None:
    h = _over_with_two_people(empty_s=60)
    h.drop(2)  # Bo goes; Ann stays on the end screen a long while (within idle_s)
    h.advance(h.table.settings.idle_s * 1000 - 60_000)
    assert h.table.stage is Stage.OVER and not h.table.done
    h.send(1, {"type": "again"})  # Bo is away, not waited for: the next match deals
    assert h.table.stage is Stage.COUNTDOWN and h.table.match_no == 2
    play_match(h)
    assert h.table.stage is Stage.OVER and not h.table.done


def test_a_finished_match_with_nobody_there_is_done_after_empty_s() -> None:
    h = _over_with_two_people(empty_s=60)
    h.drop(1)
    h.drop(2)
    h.advance(59_000)
    assert not h.table.done
    h.connect(3, "a")  # Ann looks in again: the clock starts over when she goes
    h.drop(3)
    h.advance(59_000)
    assert not h.table.done
    h.advance(2_000)
    assert h.table.done and h.table.closed is None  # over with a result, not closed
    assert h.table.next_deadline() is None


def test_a_finished_table_leaves_memory_and_its_link_answers_from_the_store(
    tmp_path: Path,
) -> None:
    store = Store(str(tmp_path / "over.db"))

    async def finish() -> tuple[str, str, list[int]]:
        lobby = Lobby(store, speed=400.0)
        rules = Rules(target=10)
        settings = Settings(seats=2, bots={0: "demon", 1: "demon"}, next_hand_s=1, empty_s=5)
        entry, _ = lobby.create(rules, settings)
        unstarted, _ = lobby.create(rules, Settings(seats=2, empty_s=1))
        box = Box()
        entry.actor.outboxes[1] = box
        entry.actor.submit(Connect(1, None))  # a spectator: bots alone would not be kept

        def ended() -> bool:
            return any(m.get("e", {}).get("k") == "match_end" for m in box.got)

        for _ in range(6000):
            await asyncio.sleep(0.01)
            if ended() and unstarted.code not in lobby.tables:
                break
        assert unstarted.code not in lobby.tables  # nobody came: closed and gone
        assert ended() and entry.code in lobby.tables  # over, and watched: kept
        await lobby.retire(entry.code)  # as when nobody has been there for empty_s
        assert entry.code not in lobby.tables and box.closed == "match over"
        gone = await lobby.archived(entry.code, None)
        assert gone.info["stage"] == "over" and gone.info["match"] == entry.id
        assert gone.info["winners"] and gone.info["closed"] is None
        try:
            await lobby.archived(unstarted.code, None)
            raise AssertionError("a table never dealt is forgotten")
        except LobbyError as error:
            assert error.code == "unknown_table"
        await lobby.stop()
        return entry.code, entry.id, gone.info["totals"]

    code, match_id, totals = asyncio.run(finish())
    store.flush()

    async def after_restart() -> None:
        lobby = Lobby(store)
        lobby.restore()  # a match over within the day is back for "Play again" (series.py)
        gone = await lobby.archived(code, None)
        assert gone.info["totals"] == totals and gone.info["match"] == match_id
        await lobby.stop()

    asyncio.run(after_restart())
    assert finished_match(store.engine, match_id) is not None
    store.close()


def test_a_watched_finished_table_leaves_memory_once_nobody_is_there(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "gone.db"))

    async def run() -> None:
        lobby = Lobby(store, speed=400.0)
        settings = Settings(seats=2, bots={0: "demon", 1: "demon"}, next_hand_s=1, empty_s=20)
        entry, _ = lobby.create(Rules(target=10), settings)
        entry.actor.outboxes[1] = Box()
        entry.actor.submit(Connect(1, None))
        for _ in range(3000):
            await asyncio.sleep(0.01)
            if entry.table.stage is Stage.OVER:
                break
        assert entry.table.stage is Stage.OVER
        entry.actor.submit(Disconnect(1))  # the spectator goes: 20 s (50 ms here) later
        for _ in range(500):
            await asyncio.sleep(0.01)
            if entry.code not in lobby.tables:
                break
        assert entry.code not in lobby.tables
        assert (await lobby.archived(entry.code, None)).info["match"] == entry.id
        await lobby.stop()

    asyncio.run(run())
    store.close()


def test_a_stored_table_never_dealt_does_not_come_back_once_past_start_s(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "old.db"))
    old = Settings(seats=2, start_s=60).as_dict()
    for table_id, code, made in (("old", "OLDONE", time.time() - 120), ("new", "NEWONE", 0.0)):
        created = TableCreated(code, None, True, Rules().as_dict(), old, made or time.time())
        store.submit(table_id, [created])
    store.flush()

    async def restart() -> list[str]:
        lobby = Lobby(store)
        lobby.restore()
        codes = sorted(lobby.tables)
        await lobby.stop()
        return codes

    assert asyncio.run(restart()) == ["NEWONE"]
    store.flush()
    assert asyncio.run(restart()) == ["NEWONE"]  # the old one was forgotten for good
    assert [t.code for t in store.unfinished()] == ["NEWONE"]
    store.close()


def test_one_person_alone_with_bots_gets_no_countdown() -> None:
    h = Harness(Rules(), Settings(seats=2, bots={1: "casual"}, ready_s=60))
    h.join("Ann", "a")
    h.connect(1, "a")  # reading the rules first: nobody else is waiting
    h.advance(600_000)
    assert h.table.stage is Stage.SEATING and h.table.info()["ready_by_ms"] is None
    h.send(1, {"type": "ready"})
    assert h.table.stage is Stage.COUNTDOWN


def test_a_table_with_no_person_connected_ends_within_the_servers_ceiling() -> None:
    """Issue 24: a one-seat table dealt and left, its place held for a day by its own
    settings (``reconnect_s``, no bot takeover), still ends ``unattended_s`` (the
    server's, at most 10 minutes) after its person went; one with its person there
    plays on."""
    # A match to 100 (hand after hand, dealt with nobody there) and a match under way.
    held = Harness(Rules(), Settings(seats=1, reconnect_s=86_400, bot_takeover_s=0))
    honest = Harness(Rules(), Settings(seats=2, bots={1: "casual"}, countdown_ms=500))
    for h in (held, honest):
        h.join("Ann", "a")
        h.connect(1, "a")
        h.send(1, {"type": "ready"})
        assert h.table.hand is not None  # dealt
    held.drop(1)  # and gone, the place held for a day
    assert held.table.settings.unattended_s <= 600
    for h in (held, honest):
        h.advance(held.table.settings.unattended_s * 1000 - 1000)
    assert held.table.closed is None and held.table.places[0].name == "Ann"
    for h in (held, honest):
        h.advance(2000)
    assert held.table.closed == "unattended" and held.table.done
    assert any(type(r) is MatchRecord and r.winners == () for r in held.records)
    assert honest.table.closed is None and not honest.table.done
    # Ann plays on. The deals are random, so ten minutes in her table may be mid-hand,
    # between hands or at a match's end: she says ready (or plays again) until a hand
    # is on, then plays a card or turns her stock, and the table takes it.
    seq = 0
    for _ in range(400):
        if honest.table.stage is Stage.PLAYING and (seq := greedy_step(honest, 1, 0)):
            break
        if honest.table.stage is Stage.OVER:
            honest.send(1, {"type": "again"})
        elif honest.table.stage is not Stage.PLAYING:
            honest.send(1, {"type": "ready"})
        honest.advance(300)
    assert seq == 1 and honest.table.closed is None


def test_spectators_and_bots_keep_no_table_past_the_ceiling() -> None:
    """Issue 24: a table of bots only with a spectator watching (whose match may end
    and stay "over" while the spectator looks on) ends within ``unattended_s``."""
    h = Harness(SINGLE, Settings(seats=2, bots={0: "demon:prompt", 1: "demon:prompt"}))
    h.connect(5, None)  # a spectator: no person sits here
    assert h.table.hand is not None  # the bots start at once
    h.advance(h.table.settings.unattended_s * 1000 + 1000)
    assert h.table.done and h.table.next_deadline() is None  # the lobby lets it go


def test_a_table_where_nobody_plays_ends_after_idle_s() -> None:
    """A person connected who never plays (a paused practice table, an end screen
    left open) holds the table ``idle_s`` at most; one who plays keeps it."""
    idle = Harness(SINGLE, Settings(seats=2, bots={1: "demon:prompt"}, practice=True))
    idle.join("Ann", "a")
    idle.connect(1, "a")
    idle.send(1, {"type": "ready"})
    assert idle.run_until(lambda: idle.table.stage is Stage.PLAYING, 10_000)
    idle.send(1, {"type": "pause", "on": True})
    idle.advance(idle.table.settings.idle_s * 1000 - 20_000)
    assert idle.table.closed is None
    idle.advance(30_000)
    assert idle.table.closed == "idle" and idle.closed[1] == "table closed: idle"
    assert {"k": "closed", "reason": "idle"} in kinds(idle, 1)


def test_a_place_is_kept_as_everyone_is_shown_and_a_bot_comes_only_when_shown() -> None:
    """How long a place is kept for a person away is one answer (``seats.keeping``) for
    what everyone sees (``kept_until_ms``, ``bot_from_ms``) and for the timers that act:
    before the first deal no bot plays for anyone, so none is promised; the place is
    released when shown; once the match is over nothing is kept on a clock, so no
    release is shown (the timers, as ever, release nobody then)."""
    h = Harness(Rules(), Settings(seats=2, ready_s=60, reconnect_s=120, bot_takeover_s=30))
    for conn, (name, token) in enumerate((("Ann", "a"), ("Bob", "b")), start=1):
        h.join(name, token)
        h.connect(conn, token)
    h.drop(2)
    shown = kinds(h, 1)[-2]
    assert shown["k"] == "connected" and shown["kept_until_ms"] == h.now + 120_000
    assert "bot_from_ms" not in shown  # no bot comes before the first deal
    assert "bot_from_ms" not in h.table.info()["seats"][1]
    h.advance(shown["kept_until_ms"] - h.now - 1)
    assert not [e for e in kinds(h, 1) if e["k"] == "takeover"]
    assert h.table.places[1].name == "Bob"  # kept until the time shown
    h.advance(1)
    assert h.table.places[1].name == "" and kinds(h, 1)[-1]["k"] == "seat"  # released

    over = Harness(SINGLE, Settings(seats=2, bots={1: "casual"}, reconnect_s=120))
    over.join("Ann", "a")
    over.connect(1, "a")
    over.send(1, {"type": "ready"})
    play_match(over)
    over.drop(1)
    seat = over.table.info()["seats"][0]
    assert "kept_until_ms" not in seat and "bot_from_ms" not in seat
    over.advance(121_000)
    assert over.table.places[0].name == "Ann"  # kept: a finished match releases nobody
