"""Practice tables: pause, hints, the bots' pace, the guided first hand, and that a
practice match stays out of every history."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from nertz.engine import Move, Rules, deal, preset
from nertz.server.http.app import Config, create_app
from nertz.server.http.practice_api import lesson_table
from nertz.server.store.store import Store
from nertz.server.table.commands import Stage
from nertz.server.table.lessons import FIRST_HAND
from nertz.server.table.practice import best_move
from nertz.server.table.settings import Settings
from nertz.server.table.table import Table, restore_from_records

from .harness import Harness


def practice(rules: Rules | None = None, seed: int | None = None, **changes: Any) -> Harness:
    """A practice table mid-hand: Ann at seat 0 against three quick bots. With ``seed``
    the table's every choice is fixed: each hand dealt from it, the bots' seeds too."""
    base: dict[str, Any] = {
        "seats": 4,
        "bots": {1: "demon", 2: "demon", 3: "demon"},
        "countdown_ms": 500,
        "practice": True,
        "public": False,
    }
    base.update(changes)
    rules = rules or preset("standard")
    settings = Settings(**base)
    table = None
    if seed is not None:
        fixed = seed
        table = Table(
            "TEST", rules, settings, rng_seed=fixed, dealer=lambda n, r, _: deal(n, r, fixed)
        )
    h = Harness(rules, settings, table)
    assert h.join("Ann", "t0") == ((0, 0), None)
    h.connect(1, "t0")
    h.send(1, {"type": "ready"})
    h.run_until(lambda: h.table.stage is Stage.PLAYING, 5000)
    return h


def events(h: Harness, conn: int) -> list[dict[str, Any]]:
    return [m["e"] for m in h.messages(conn) if m["type"] == "event"]


def test_a_pause_stops_every_bot_and_the_hands_timers() -> None:
    h = practice()
    h.advance(3000)
    moved = len(h.table.hand.log)  # type: ignore[union-attr]
    assert moved > 3, "the bots play before the pause"
    h.send(1, {"type": "pause", "on": True})
    assert events(h, 1)[-1] == {"k": "paused", "paused": True}
    sent, log = len(h.wire[1]), len(h.table.hand.log)  # type: ignore[union-attr]
    h.advance(120_000)  # far past the idle rotation (R25) and every bot's next move
    after = [m for m in h.messages(1)[sent:] if m["type"] != "ping"]
    assert after == [], "no event (and no other message) while paused"
    assert len(h.table.hand.log) == log  # type: ignore[union-attr]
    h.send(1, {"type": "play", "seq": 1, "move": "T"})
    assert h.last(1) == {
        "type": "refused",
        "seq": 1,
        "code": "paused",
        "reason": "the hand is paused: carry on first",
    }
    h.send(1, {"type": "pause", "on": False})
    assert events(h, 1)[-1] == {"k": "paused", "paused": False}
    h.advance(3000)
    assert len(h.table.hand.log) > log, "the bots carry on"  # type: ignore[union-attr]
    assert not any(e["k"] == "rotated" and e["idle"] for e in events(h, 1)), (
        "the idle rotation's clock stopped with the pause"
    )


def test_pings_go_on_during_a_pause() -> None:
    h = practice()
    h.send(1, {"type": "pause", "on": True})
    sent = len(h.wire[1])
    h.advance(10_000)
    kinds = [m["type"] for m in h.messages(1)[sent:]]
    assert len(kinds) >= 5 and set(kinds) == {"ping"}  # one every 2 s at least


def test_only_a_practice_table_pauses_and_hints() -> None:
    h = practice(practice=False)
    for message in ({"type": "pause", "on": True}, {"type": "hint"}):
        h.send(1, message)
        assert h.last(1)["code"] == "not_practice"
    assert h.table.practice.paused_at is None


def test_a_hint_is_a_move_the_engine_takes_and_glows_for_the_asker_only() -> None:
    h = practice(bots={1: "beginner", 2: "beginner", 3: "beginner"})
    h.connect(2, None)  # a spectator sees no hint
    h.send(1, {"type": "hint"})
    answer = h.last(1)
    assert answer["type"] == "hint"
    hand = h.table.hand
    assert hand is not None
    assert hand.copy().play(0, Move.parse(answer["move"]), hand.now).ok
    assert all(m["type"] != "hint" for m in h.messages(2))
    h.send(1, {"type": "play", "seq": 1, "move": answer["move"]})
    assert h.last(1)["type"] == "ack" or any(m["type"] == "ack" for m in h.messages(1))


def test_the_hint_plays_the_nertz_card_to_the_middle_first() -> None:
    h = Harness(preset("standard"), Settings(seats=2, bots={1: "beginner"}, practice=True))
    h.table.dealer = lambda seats, rules, seed: FIRST_HAND.deal()
    h.join("Ann", "t0")
    h.connect(1, "t0")
    h.send(1, {"type": "ready"})
    h.run_until(lambda: h.table.stage is Stage.PLAYING, 5000)
    hand = h.table.hand
    assert hand is not None
    found = best_move(hand, 0)
    assert found is not None and found.text.startswith("N>F")  # the ace of hearts


def test_the_pace_stretches_every_bot_delay() -> None:
    """The same deal and the same bots at half and at a quarter pace make the same
    moves, each twice and four times as long after Go: every delay of every bot is
    stretched to 100 / pace. All in table time, so nothing depends on the machine's
    speed, and on a fixed deal whose hand lasts past the moves compared (a random one
    could end early). Ties are off (R16): the tie window is the table's, not a bot's
    delay, so a tie at full pace would be none at a slower one."""
    rules = preset("standard").with_options(tie_window_ms=0)
    count = 100  # about ten seconds of the three bots at full pace, long before a call

    def bot_moves(pace: int) -> list[tuple[int, int, str]]:
        h = practice(rules, seed=7, bot_pace=pace)
        hand = h.table.hand
        assert hand is not None
        go = next(at for at, _, move in hand.log if move == "GO")

        def made() -> list[tuple[int, int, str]]:
            return [(at - go, seat, move) for at, seat, move in hand.log if seat > 0]

        assert h.run_until(lambda: len(made()) >= count, 400_000), "the hand ended early"
        assert h.table.stage is Stage.PLAYING
        return made()[:count]

    full = bot_moves(100)
    assert full[-1][0] > 5000, "the bots' delays add up to seconds at full pace"
    for pace in (50, 25):
        stretched = [(at * 100 // pace, seat, move) for at, seat, move in full]
        assert bot_moves(pace) == stretched, f"at {pace}%"


def test_the_pace_changes_at_the_table_and_survives_a_rebuild() -> None:
    h = practice()
    h.send(1, {"type": "pace", "pace": 30})
    assert events(h, 1)[-1] == {"k": "pace", "pace": 30}
    again = restore_from_records("TEST", h.table.rules, h.table.settings, h.records)
    assert again.practice.pace == 30
    assert again.info()["practice"]["pace"] == 30


# ---------------------------------------------------------------------- the lesson


def test_a_pace_or_pause_that_changes_nothing_stores_nothing_and_changes_are_a_rate() -> None:
    """Issue 24: ``pace`` at the pace in force, ``pause`` as it already is: nothing
    stored; changes, each stored, have a rate per place (refused ``changes_too_fast``)."""
    from nertz.server.table.lifetimes import CHANGES_BURST

    h = practice(bot_pace=60)
    h.send(1, {"type": "pause", "on": True})
    before = h.table.version
    for _ in range(200):
        h.send(1, {"type": "pace", "pace": 60})
        h.send(1, {"type": "pause", "on": True})
    assert h.table.version == before  # nothing stored, nothing said
    assert not [m for m in h.messages(1) if m["type"] == "error"]
    for n in range(100):  # flipping: a burst goes through, the rest is refused
        h.send(1, {"type": "pace", "pace": 30 + n % 2})
        h.send(1, {"type": "pause", "on": n % 2 == 0})
    stored = h.table.version - before
    assert stored == CHANGES_BURST - 1  # the first pause above spent one
    assert {m["code"] for m in h.messages(1) if m["type"] == "error"} == {"changes_too_fast"}
    h.advance(5000)  # the bucket refills: a change goes through again
    h.send(1, {"type": "pace", "pace": 90})
    assert events(h, 1)[-1] == {"k": "pace", "pace": 90}


def lesson() -> Harness:
    """The guided hand at Go: the learner joined and connected, nothing else."""
    rules, settings = lesson_table()
    h = Harness(rules, settings)
    assert h.join("You", "t0") == ((0, 0), None)
    h.connect(1, "t0")
    assert h.run_until(lambda: h.table.stage is Stage.PLAYING, 5000)
    return h


def test_a_lesson_is_dealt_as_soon_as_its_learner_is_here() -> None:
    rules, settings = lesson_table()
    h = Harness(rules, settings)
    h.join("You", "t0")
    h.connect(1, "t0")  # no Ready: a lesson has nothing to get ready for (R8)
    assert h.table.stage is Stage.COUNTDOWN
    assert [e["k"] for e in events(h, 1)][-2:] == ["dealt", "countdown"]
    assert h.run_until(lambda: h.table.stage is Stage.PLAYING, settings.countdown_ms)


def play_the_lesson(h: Harness) -> dict[str, Any]:
    """Every step's move, then the landing window (R28): the lesson's ``hand_end``."""
    for seq, step in enumerate(FIRST_HAND.steps[:-1], 1):
        assert play(h, seq, step.expect[0])["type"] == "ack", step.id
    h.advance(1000)
    return next(e for e in events(h, 1) if e["k"] == "hand_end")


def test_the_lesson_hands_score_is_not_carried_into_the_practice_hands() -> None:
    h = lesson()
    end = play_the_lesson(h)
    assert [s["score"] for s in end["scores"]] == [6, -3]  # shown: the last step explains it
    assert end["totals"] == [0, 0], "the lesson counts for nothing"
    info = h.table.info()
    assert info["totals"] == [0, 0] and info["history"] == []
    assert info["series"]["first_hand"] == 2, "the match is the practice hands after it"
    rebuilt = restore_from_records("TEST", h.table.rules, h.table.settings, h.records)
    assert rebuilt.info()["totals"] == [0, 0] and rebuilt.info()["history"] == []
    h.send(1, {"type": "ready"})  # the practice hand
    assert h.run_until(lambda: h.table.stage is Stage.PLAYING, 5000)
    h.send(1, {"type": "pace", "pace": 100})
    assert h.run_until(lambda: h.table.stage is not Stage.PLAYING, 3_600_000)
    practice_end = [e for e in events(h, 1) if e["k"] == "hand_end"][-1]
    scores = [s["score"] for s in practice_end["scores"]]
    assert practice_end["hand"] == 2 and practice_end["totals"] == scores
    assert h.table.info()["history"] == [scores]


def play(h: Harness, seq: int, move: str) -> dict[str, Any]:
    h.send(1, {"type": "play", "seq": seq, "move": move})
    return next(m for m in reversed(h.messages(1)) if m.get("seq") == seq)


def test_the_guided_hand_from_the_first_card_to_the_score() -> None:
    h = lesson()
    assert h.table.info()["practice"]["lesson"]["name"] == "first-hand"
    for seq, step in enumerate(FIRST_HAND.steps[:-1], 1):
        assert h.table.practice.step == seq - 1
        h.advance(60_000)  # the learner takes their time: the script waits
        answer = play(h, seq, step.expect[0])
        assert answer["type"] == "ack", (step.id, answer)
        assert events(h, 1)[-1] in ({"k": "lesson", "step": seq}, {"k": "called", "seat": 0})
    kinds = [e["k"] for e in events(h, 1)]
    assert kinds.count("rotated") == 1, "both stuck: the table rotated once (R25)"
    assert "paused" not in kinds
    h.advance(1000)  # the landing window (R28)
    end = next(e for e in events(h, 1) if e["k"] == "hand_end")
    assert end["caller"] == 0
    assert end["scores"][0]["middle"] == 6 and end["scores"][0]["nertz_left"] == 0
    assert end["scores"][1]["middle"] == 1 and end["scores"][1]["nertz_left"] == 2
    assert h.table.practice.step == len(FIRST_HAND.steps) - 1
    # The practice hand: a random deal, the bot playing slowly.
    h.send(1, {"type": "ready"})
    h.run_until(lambda: h.table.stage is Stage.PLAYING, 5000)
    assert h.table.hand_no == 2
    h.advance(20_000)
    hand = h.table.hand
    assert hand is not None
    assert any(seat == 1 for _, seat, _ in hand.log), "the bot plays the practice hand"


def test_a_wrong_move_is_refused_by_the_engine_with_its_reason() -> None:
    h = lesson()
    play(h, 1, "N>F")
    play(h, 2, "N>F")
    answer = play(h, 3, "N>2")  # the red 7 onto the red king of diamonds
    assert answer["type"] == "refused"
    assert answer["code"] == "does_not_fit"
    assert "R17" in answer["reason"]
    assert h.table.practice.step == 2, "the lesson waits on the same step"


def test_a_legal_move_off_the_script_is_refused_with_the_steps_hint() -> None:
    h = lesson()
    answer = play(h, 1, "T")  # allowed by the rules, but the step is the ace
    assert answer["type"] == "refused" and answer["code"] == "lesson"
    assert FIRST_HAND.steps[0].hint in answer["reason"]
    hand = h.table.hand
    assert hand is not None and not hand.seats[0].waste


def test_the_teacher_bot_waits_for_the_script() -> None:
    h = lesson()
    h.advance(120_000)
    hand = h.table.hand
    assert hand is not None
    assert [seat for _, seat, _ in hand.log] == [-1], "only Go: no bot move, no tick"


def test_a_rebuilt_lesson_table_carries_on_at_its_step() -> None:
    h = lesson()
    play(h, 1, "N>F")
    play(h, 2, "N>F")
    again = restore_from_records("TEST", h.table.rules, h.table.settings, h.records)
    assert again.practice.step == 2
    assert again.info()["practice"]["step"] == 2


def test_a_practice_match_is_in_nobodys_history(tmp_path: Any) -> None:
    db = str(tmp_path / "nertz.db")
    app = create_app(Config(db=db))

    async def run() -> dict[str, Any]:
        transport = httpx.ASGITransport(app=app)
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client,
        ):
            made = (await client.post("/api/practice", json={"bots": "relaxed"})).json()
            learn = (await client.post("/api/learn", json={})).json()
            return {"practice": made, "learn": learn}

    made = asyncio.run(run())
    for answer in made.values():
        assert answer["link"].startswith(f"/t/{answer['code']}?key=")
        assert answer["seat"] == 0 and answer["token"]
    store = Store(db)
    try:
        with store.engine.connect() as conn:
            rows = conn.exec_driver_sql("SELECT code, practice FROM tables").all()
        assert sorted(rows) == sorted((a["code"], True) for a in made.values())
    finally:
        store.close()


def test_an_old_database_gains_the_practice_column(tmp_path: Any) -> None:
    import sqlite3

    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TABLE tables (id VARCHAR(40) PRIMARY KEY, code VARCHAR(16) NOT NULL UNIQUE,"
            " key_hash VARCHAR(64), public BOOLEAN NOT NULL, rules TEXT NOT NULL,"
            " settings TEXT NOT NULL, created FLOAT NOT NULL)"
        )
        conn.execute("INSERT INTO tables VALUES ('x', 'OLD234', NULL, 1, '{}', '{}', 0)")
    store = Store(str(db))
    try:
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT practice FROM tables").all() == [(0,)]
    finally:
        store.close()


@pytest.mark.parametrize("body", [{"bots": "nobody"}, {"count": 4}, {"pace": 5}])
def test_a_bad_practice_request_is_refused(tmp_path: Any, body: dict[str, Any]) -> None:
    app = create_app(Config(db=str(tmp_path / "nertz.db")))

    async def run() -> int:
        transport = httpx.ASGITransport(app=app)
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client,
        ):
            return (await client.post("/api/practice", json=body)).status_code

    assert asyncio.run(run()) == 400
