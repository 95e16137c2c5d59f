"""Talk at the table (chat.py): lines reach everyone as written, over-long and too-fast
lines are refused with a code and a sentence, spectators read but do not write,
reactions go to every page, and the chat survives the store, a restart and kill -9."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine

from nertz.engine import Rules
from nertz.server.lobby.hashing import hash_secret
from nertz.server.store.store import Store, TableCreated
from nertz.server.table.chat import CHAT_BURST, CHAT_MAX_CHARS, CHAT_WINDOW_MS, RECENT_LINES
from nertz.server.table.records import ChatRecord
from nertz.server.table.settings import Settings
from nertz.server.table.table import restore_from_records

from .conftest import Live, free_port
from .harness import Harness
from .test_app import Client, create
from .test_store import _serve

SETTINGS = Settings(seats=3, bots={2: "skilled"}, countdown_ms=500, next_hand_s=5)


def table(rules: Rules | None = None, settings: Settings = SETTINGS) -> Harness:
    """Ann (conn 1) and Bo (conn 2) at their seats, and a spectator (conn 3)."""
    h = Harness(rules or Rules(), settings)
    for conn, (name, token) in enumerate((("Ann", "t0"), ("Bo", "t1")), start=1):
        h.join(name, token)
        h.connect(conn, token)
    h.connect(3, None)
    return h


def said(h: Harness, conn: int, kind: str = "chat") -> list[dict[str, Any]]:
    return [m for m in h.messages(conn) if m["type"] == kind]


def error(h: Harness, conn: int) -> dict[str, Any]:
    last = h.last(conn)
    assert last["type"] == "error", last
    return last


def test_a_line_reaches_everyone_as_it_was_written() -> None:
    h = table()
    h.send(1, {"type": "chat", "text": "  <b>x</b> & gg\nall  "})
    for conn in (1, 2, 3):  # the writer, the other person, the spectator
        [message] = said(h, conn)
        assert message["lines"] == [{"n": 1, "seat": 0, "name": "Ann", "text": "<b>x</b> & gg all"}]
    h.send(2, {"type": "chat", "text": "hi Ann"})
    assert [line["n"] for m in said(h, 1) for line in m["lines"]] == [1, 2]


def test_an_over_long_or_empty_line_is_refused_with_a_sentence_and_nobody_sees_it() -> None:
    h = table()
    h.send(1, {"type": "chat", "text": "x" * (CHAT_MAX_CHARS + 1)})
    refusal = error(h, 1)
    assert refusal["code"] == "chat_too_long"
    assert f"{CHAT_MAX_CHARS + 1} characters; the limit is {CHAT_MAX_CHARS}" in refusal["reason"]
    h.send(1, {"type": "chat", "text": " \t\n "})
    assert error(h, 1)["code"] == "chat_empty"
    h.send(1, {"type": "chat", "text": "é" * CHAT_MAX_CHARS})  # characters, not bytes
    assert said(h, 2)[-1]["lines"][0]["text"] == "é" * CHAT_MAX_CHARS
    assert len(said(h, 2)) == 1 and h.table.chat.count == 1


@pytest.mark.parametrize(
    ("text", "code", "words"),
    [
        ("\u3164\u200b \u2800\u200d", "chat_blank", "that line shows nothing"),
        ("\u115f\u1160", "chat_blank", "that line shows nothing"),
        ("gg \u202etxt.exe", "chat_bidi", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("see \u2067this\u2069 here", "chat_bidi", "U+2067 RIGHT-TO-LEFT ISOLATE"),
        ("x" + "\u0301" * 199, "chat_marks", "carries 199 combining marks; at most 3"),
        ("ok x\u0301\u0302\u0303\u0304 then", "chat_marks", "carries 4 combining marks"),
    ],
)
def test_a_line_that_would_not_show_what_it_says_is_refused(
    text: str, code: str, words: str
) -> None:
    """Invisible lines, text turned around by a direction override or isolate, and a
    letter under 199 marks drawn over its neighbours' lines: refused, nobody sees it."""
    h = table()
    h.send(1, {"type": "chat", "text": text})
    refusal = error(h, 1)
    assert refusal["code"] == code and words in refusal["reason"], refusal
    assert not said(h, 2) and h.table.chat.count == 0


def test_real_writing_with_marks_and_right_to_left_text_is_said() -> None:
    """Vietnamese typed decomposed, Hebrew with points, Arabic, Thai tones, an emoji
    with its variation selector and a joined family: every one reaches the table."""
    h = table()
    lines = [
        "Vie\u0323\u0302t Nam",
        "\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd",
        "\u0645\u0631\u062d\u0628\u0627 gg",
        "\u0e19\u0e49\u0e33",
        "\u2764\ufe0f \U0001f468\u200d\U0001f469\u200d\U0001f467",
    ]
    for text in lines:
        h.send(1, {"type": "chat", "text": text})
        h.advance(CHAT_WINDOW_MS)
    assert [m["lines"][0]["text"] for m in said(h, 2)] == lines


def test_a_flood_is_refused_until_the_window_passes() -> None:
    h = table()
    for i in range(CHAT_BURST):
        h.send(1, {"type": "chat", "text": f"line {i}"})
        h.advance(100)
    h.send(1, {"type": "chat", "text": "one too many"})
    refusal = error(h, 1)
    assert refusal["code"] == "chat_too_fast" and "try again in" in refusal["reason"]
    assert len(said(h, 2)) == CHAT_BURST
    h.send(2, {"type": "chat", "text": "Bo is not held up"})  # the limit is per place
    assert len(said(h, 1)) == CHAT_BURST + 1
    h.advance(CHAT_WINDOW_MS)
    h.send(1, {"type": "chat", "text": "and now I may"})
    assert said(h, 2)[-1]["lines"][0]["text"] == "and now I may"


def test_spectators_read_but_do_not_write() -> None:
    h = table()
    h.send(3, {"type": "chat", "text": "hello from the rail"})
    refusal = error(h, 3)
    assert refusal["code"] == "not_seated" and "spectators" in refusal["reason"]
    h.send(3, {"type": "reaction", "what": "👍"})
    assert error(h, 3)["code"] == "not_seated"
    assert not said(h, 1) and not said(h, 1, "reaction") and h.table.chat.count == 0


def test_a_reaction_goes_to_every_page_and_is_rate_limited() -> None:
    h = table()
    h.send(2, {"type": "reaction", "what": "Nertz!"})
    for conn in (1, 2, 3):
        [shown] = said(h, conn, "reaction")
        assert shown == {"type": "reaction", "seat": 1, "name": "Bo", "what": "Nertz!"}
    h.send(2, {"type": "reaction", "what": "<script>"})
    assert error(h, 2)["code"] == "bad_reaction"
    h.send(2, {"type": "reaction", "what": "😂"})
    h.send(2, {"type": "reaction", "what": "🎉"})
    h.send(2, {"type": "reaction", "what": "👍"})
    assert error(h, 2)["code"] == "reaction_too_fast"
    assert len(said(h, 1, "reaction")) == 3
    assert not [r for r in h.records if isinstance(r, ChatRecord)]  # momentary: not stored


def test_chat_is_open_during_a_hand_and_names_the_partner_at_a_partnership_table() -> None:
    settings = Settings(seats=2, bots={1: "skilled+skilled"}, countdown_ms=500, next_hand_s=5)
    h = table(Rules(partnerships=True), settings)
    h.send(1, {"type": "ready"})
    h.send(2, {"type": "ready"})
    h.advance(1000)
    assert h.table.stage.value == "playing"
    h.send(2, {"type": "chat", "text": "I'll watch the stock"})
    line = said(h, 1)[-1]["lines"][0]
    assert (line["seat"], line["partner"], line["name"]) == (0, 1, "Bo")


def test_state_carries_the_recent_lines_and_a_resumed_page_gets_them_again() -> None:
    h = table()
    for i in range(RECENT_LINES + 3):
        h.send(1 + i % 2, {"type": "chat", "text": f"line {i}"})
        h.advance(CHAT_WINDOW_MS)
    h.connect(4, None)
    lines = h.last(4)["chat"]
    assert len(lines) == RECENT_LINES and lines[-1]["text"] == f"line {RECENT_LINES + 2}"
    assert [line["n"] for line in lines] == list(range(4, RECENT_LINES + 4))
    version, epoch = h.table.version, h.table.epoch
    h.drop(2)
    h.send(1, {"type": "chat", "text": "said while Bo was away"})
    h.connect(5, "t1", last_version=version, epoch=epoch)  # Bo resumes by events
    again = said(h, 5)
    assert again and again[-1]["lines"][-1]["text"] == "said while Bo was away"


def _stored(tmp_path: Path, h: Harness) -> Store:
    store = Store(str(tmp_path / "chat.db"))
    settings = h.table.settings
    created = TableCreated("TEST", None, True, Rules().as_dict(), settings.as_dict(), 0.0)
    store.submit("t1", [created, *h.records])
    store.flush()
    return store


def test_the_chat_survives_the_store_and_a_restore(tmp_path: Path) -> None:
    h = table()
    h.send(1, {"type": "chat", "text": "before the crash"})
    h.send(2, {"type": "chat", "text": "<i>me too</i>"})
    store = _stored(tmp_path, h)
    [stored] = store.unfinished()
    again = Harness(
        Rules(), SETTINGS, restore_from_records("TEST", Rules(), SETTINGS, stored.records)
    )
    again.connect(1, "t0")
    lines = again.last(1)["chat"]
    assert [(line["name"], line["text"]) for line in lines] == [
        ("Ann", "before the crash"),
        ("Bo", "<i>me too</i>"),
    ]
    again.send(1, {"type": "chat", "text": "after"})
    assert said(again, 1)[-1]["lines"][0]["n"] == 3  # numbering goes on
    with store.engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT n, match, seat, name FROM chat ORDER BY n").all()
    assert [tuple(r) for r in rows] == [(1, 1, 0, "Ann"), (2, 1, 1, "Bo")]  # with its match
    store.close()


def test_a_database_made_before_the_chat_still_opens(tmp_path: Path) -> None:
    h = table()
    h.send(1, {"type": "chat", "text": "hello"})
    db = tmp_path / "old.db"
    Store(str(db)).close()
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE chat")  # as a database of protocol 6 had it
    engine.dispose()
    store = Store(str(db))
    created = TableCreated("TEST", None, True, Rules().as_dict(), SETTINGS.as_dict(), 0.0)
    store.submit("t1", [created, *h.records])
    store.flush()
    assert store.errors == 0
    [line] = [r for r in store.records_of("t1") if isinstance(r, ChatRecord)]
    assert line.text == "hello"
    store.close()


def test_kill_9_then_restart_brings_the_chat_back(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    port = free_port()
    http = f"http://127.0.0.1:{port}"
    server = _serve(port, db)
    try:
        code = httpx.post(f"{http}/api/tables", json={"seats": 2}).json()["code"]
        join = httpx.post(f"{http}/api/tables/{code}/join", json={"name": "Ann"}).json()
        ann = Client(f"ws://127.0.0.1:{port}/ws")
        ann.send({"type": "hello", "table": code, "token": join["token"]})
        ann.until(lambda m: m["type"] == "state")
        ann.send({"type": "chat", "text": "<b>still here?</b>"})
        ann.until(lambda m: m["type"] == "chat")  # sent once it is committed
        server.kill()  # SIGKILL at once: no shutdown, no flush
        server.wait(10)
        ann.close()

        server = _serve(port, db)
        again = Client(f"ws://127.0.0.1:{port}/ws")
        again.send({"type": "hello", "table": code, "token": join["token"]})
        state = again.until(lambda m: m["type"] == "state")
        assert state["chat"] == [{"n": 1, "seat": 0, "name": "Ann", "text": "<b>still here?</b>"}]
        again.close()
    finally:
        server.terminate()
        server.wait(10)


def test_a_line_names_the_person_the_same_under_a_new_name(live: Live) -> None:
    """What a page mutes: each line, reaction and seat carries the person's handle at the
    table, made from their device; Bo leaving and coming back as "Bo2" from the same
    browser is the same person. The handle is no secret (not the device's secret nor its
    hash), differs at another table, and a person with no device has none."""
    ann_device, bo_device = secrets.token_hex(32), secrets.token_hex(32)
    code = create(live, seats=3, countdown_ms=500)["code"]

    def sit(name: str, device: str | None) -> Client:
        headers = {} if device is None else {"X-Nertz-Device": device}
        answer = httpx.post(
            f"{live.http}/api/tables/{code}/join", json={"name": name}, headers=headers
        )
        assert answer.status_code == 200, answer.text
        client = Client(live.ws)
        client.send({"type": "hello", "table": code, "token": answer.json()["token"]})
        client.until(lambda m: m["type"] == "state")
        return client

    ann, bo = sit("Ann", ann_device), sit("Bo", bo_device)
    bo.send({"type": "chat", "text": "hi"})
    [first] = ann.until(lambda m: m["type"] == "chat")["lines"]
    person = first["person"]
    assert re.fullmatch(r"[0-9a-f]{16}", person)
    assert person not in (bo_device, hash_secret(bo_device)) and person not in hash_secret(
        bo_device
    )
    bo.send({"type": "leave"})
    ann.until(lambda m: m["type"] == "event" and m["e"]["k"] == "seat" and m["e"]["name"] is None)
    bo = sit("Bo2", bo_device)
    seated = ann.until(lambda m: m["type"] == "event" and m["e"].get("name") == "Bo2")["e"]
    assert seated["person"] == person
    bo.send({"type": "chat", "text": "it's me again"})
    [again] = ann.until(lambda m: m["type"] == "chat")["lines"]
    assert (again["name"], again["person"]) == ("Bo2", person)
    bo.send({"type": "reaction", "what": "😂"})
    assert ann.until(lambda m: m["type"] == "reaction")["person"] == person
    cy = sit("Cy", None)  # no device: no handle
    ann_person, bo_person, cy_person = (
        s.get("person") for s in httpx.get(f"{live.http}/api/tables/{code}").json()["seats"]
    )
    assert bo_person == person and cy_person is None
    assert ann_person is not None and ann_person != person
    # Bo's browser at another table is another handle there.
    code = create(live, seats=2)["code"]
    sit("Bo", bo_device).close()
    other = httpx.get(f"{live.http}/api/tables/{code}").json()["seats"][0]["person"]
    assert other != person
    for client in (ann, bo, cy):
        client.close()
