"""The ``master`` bot at the server's tables (issue 28, point 4): offered at friends'
tables (a seat's level) and practice tables (the "Sharp" choice), and it plays a hand
through the table's own path like every bot."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from nertz.bots import LEVELS
from nertz.engine import Rules
from nertz.server.http.app import Config, create_app
from nertz.server.http.practice_api import PracticeRequest, practice_settings
from nertz.server.table.commands import Stage
from nertz.server.table.settings import Settings

from .harness import Harness


def test_the_home_page_is_offered_master_among_the_levels_and_sharp_among_choices(
    tmp_path: Path,
) -> None:
    with TestClient(
        create_app(Config(db=str(tmp_path / "m.db"))), base_url="http://127.0.0.1"
    ) as client:
        rules = client.get("/api/rules").json()
        made = client.post("/api/tables", json={"seats": 2, "bots": {"1": "master:racer"}})
        bad = client.post("/api/tables", json={"seats": 2, "bots": {"1": "grandmaster"}})
    assert rules["levels"] == list(LEVELS)
    assert rules["levels"].index("expert") < rules["levels"].index("master")
    assert rules["levels"].index("master") < rules["levels"].index("demon")
    assert rules["styles"][0] == rules["bot_defaults"]["style"] == "balanced"
    assert rules["bot_defaults"]["level"] in rules["levels"]
    sharp = next(c for c in rules["bots"] if c["name"] == "sharp")
    assert sharp["label"] == "Sharp" and set(sharp["specs"]) == {"master:balanced"}
    assert made.status_code == 201, made.text
    assert bad.status_code == 400 and "master" in bad.text  # the levels are named


def test_a_sharp_practice_table_seats_master_bots() -> None:
    settings = practice_settings(PracticeRequest(bots="sharp", count=3))
    assert settings.practice and settings.bots == {1: "master", 2: "master", 3: "master"}
    h = Harness(Rules(), settings)
    assert [h.table.place(seat, 0).bot for seat in (1, 2, 3)] == ["master:balanced"] * 3


def test_master_plays_a_whole_hand_at_a_server_table_against_expert() -> None:
    h = Harness(Rules(match="single"), Settings(seats=2, bots={0: "master", 1: "expert"}))
    h.connect(5, None)  # someone watching: a table of bots starts at once
    assert h.run_until(lambda: h.table.stage is Stage.PLAYING, 60_000)
    assert h.run_until(lambda: h.table.stage is not Stage.PLAYING, 3_600_000)
    assert h.table.hand is not None and h.table.hand.over
    moved = [seat for _, seat, _ in h.table.hand.log if seat == 0]
    assert len(moved) > 20  # master's own plays went in through the table's path
