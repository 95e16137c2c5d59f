"""The score sheet API (server/http/sheets.py, server/http/web.py): R31's worked hands, the
winner by the rules in force, and bad input refused with nothing stored."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from starlette.testclient import TestClient

from nertz.server.http.app import Config, create_app

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve"]
HAND = {"middle": [18, 3, 14, 22, 22], "nertz_left": [4, 6, 0, 3, 1], "caller": 2}


def test_sheet_api(tmp_path: Path) -> None:
    with TestClient(
        create_app(Config(db=str(tmp_path / "s.db"))), base_url="http://127.0.0.1"
    ) as client:
        made = client.post("/api/sheets", json={"names": NAMES, "options": {"target": "15"}})
        assert made.status_code == 201
        sid = made.json()["id"]
        bad = [
            ({**HAND, "nertz_left": [14, 6, 0, 3, 1]}, "Nertz cards left must be 0 to 13"),
            ({**HAND, "middle": [53, 3, 14, 22, 22]}, "must be 0 to 52"),
            ({**HAND, "caller": 1}, "Bob called Nertz, so their Nertz cards left must be 0"),
            ({**HAND, "middle": [1, 2]}, "give a count for each of the 5 players"),
        ]
        for body, reason in bad:
            answer = client.post(f"/api/sheets/{sid}/hands", json=body)
            assert answer.status_code == 400 and reason in answer.json()["reason"], answer.json()
        assert client.get(f"/api/sheets/{sid}").json()["hands"] == []
        sheet = client.post(f"/api/sheets/{sid}/hands", json=HAND).json()
        assert [s["score"] for s in sheet["scored"][0]["scores"]] == [10, -9, 14, 16, 20]
        assert sheet["over"] and sheet["winners"] == [4]
        late = client.post(f"/api/sheets/{sid}/hands", json=HAND)
        assert late.status_code == 400 and late.json()["error"] == "match_over"
        voided = client.put(f"/api/sheets/{sid}/hands/1", json={**HAND, "void": True}).json()
        assert voided["totals"] == [0] * 5 and not voided["over"]
        edited = client.put(
            f"/api/sheets/{sid}/hands/1", json={**HAND, "middle": [18, 3, 14, 22, 30]}
        ).json()
        assert edited["totals"] == [10, -9, 14, 16, 28]
        bonus = client.put(
            f"/api/sheets/{sid}",
            json={"names": NAMES, "options": {"caller_bonus": "10"}, "hands": edited["hands"]},
        ).json()
        assert bonus["totals"] == [10, -9, 24, 16, 28] and not bonus["over"]
        assert client.get("/api/sheets/nope").status_code == 404
        assert "hand,player" in client.get(f"/api/sheets/{sid}/csv").text


def test_the_csv_keeps_its_columns_to_the_last_row(tmp_path: Path) -> None:
    """Every row of the CSV, the totals and the winner (R32) too, has the header's
    columns: one ``total`` row per player and one ``winner`` row per winner, each with
    the total in the ``total`` column."""
    with TestClient(
        create_app(Config(db=str(tmp_path / "c.db"))), base_url="http://127.0.0.1"
    ) as client:
        made = client.post("/api/sheets", json={"names": NAMES, "options": {"target": "15"}})
        sid = made.json()["id"]
        client.post(f"/api/sheets/{sid}/hands", json=HAND)  # Eve wins with 20
        rows = list(csv.reader(io.StringIO(client.get(f"/api/sheets/{sid}/csv").text)))
        header = rows[0]
        assert header == [
            "hand", "player", "middle", "nertz_left", "called", "bonus", "score", "total"
        ]  # fmt: skip
        assert all(len(row) == len(header) for row in rows), rows
        named = [dict(zip(header, row, strict=True)) for row in rows[1:]]
        totals = {r["player"]: r["total"] for r in named if r["hand"] == "total"}
        assert totals == {"Ann": "10", "Bob": "-9", "Cat": "14", "Dan": "16", "Eve": "20"}
        assert [(r["player"], r["total"]) for r in named if r["hand"] == "winner"] == [
            ("Eve", "20")
        ]


def test_pages_are_served(tmp_path: Path) -> None:
    with TestClient(
        create_app(Config(db=str(tmp_path / "p.db"))), base_url="http://127.0.0.1"
    ) as client:
        for path in ("/", "/t/ABCDEF", "/rules", "/sheet", "/sheet/xyz"):
            page = client.get(path, headers={"Accept": "text/html"})
            assert page.status_code == 200 and "/static/js/main.js" in page.text
        assert client.get("/").json()["nertz"] == "server"  # scripts still get JSON
        assert "export" in client.get("/static/js/table.js").text
        assert client.post("/api/test/tables", json={"layouts": []}).status_code in (404, 405)


def test_a_jokers_sheet_counts_up_to_54_cards_a_deck(tmp_path: Path) -> None:
    """R41: with jokers each deck has 54 cards, so a player may get 54 to the middle;
    55 is refused with a sentence naming the limit, and nothing is stored."""
    with TestClient(
        create_app(Config(db=str(tmp_path / "j.db"))), base_url="http://127.0.0.1"
    ) as client:
        plain = client.post("/api/sheets", json={"names": ["Ann", "Bob"]}).json()
        assert plain["options"]["jokers"] is False
        refused = client.post(
            f"/api/sheets/{plain['id']}/hands", json={"middle": [53, 0], "nertz_left": [0, 4]}
        )
        assert refused.json() == {
            "error": "bad_count",
            "reason": "hand 1, Ann: cards in the middle must be 0 to 52 (a deck of 52, R1), not 53",
        }
        made = client.post(
            "/api/sheets", json={"names": ["Ann", "Bob"], "options": {"jokers": "on"}}
        )
        sid, sheet = made.json()["id"], made.json()
        assert sheet["options"]["jokers"] is True
        hand = {"middle": [54, 41], "nertz_left": [0, 13], "caller": 0}
        scored = client.post(f"/api/sheets/{sid}/hands", json=hand).json()
        assert [s["score"] for s in scored["scored"][0]["scores"]] == [54, 15]
        for body, reason in [
            (
                {**hand, "middle": [55, 41]},
                "Ann: cards in the middle must be 0 to 54 (a deck of 54, R1, R41: jokers on),"
                " not 55",
            ),
            ({**hand, "nertz_left": [0, 14]}, "Bob: Nertz cards left must be 0 to 13"),
            (
                {**hand, "middle": [54, 42]},
                "Bob: 42 in the middle and 13 left is more than one deck of 54",
            ),
        ]:
            answer = client.post(f"/api/sheets/{sid}/hands", json=body)
            assert answer.status_code == 400 and reason in answer.json()["reason"], answer.json()
        assert len(client.get(f"/api/sheets/{sid}").json()["hands"]) == 1


def test_r40_a_partnership_is_one_seat_with_two_names(tmp_path: Path) -> None:
    with TestClient(
        create_app(Config(db=str(tmp_path / "r40.db"))), base_url="http://127.0.0.1"
    ) as client:
        made = client.post("/api/sheets", json={"names": ["Ann&Bob", "Cy & Di", "Ed"]})
        assert made.status_code == 201
        sheet = made.json()
        assert sheet["names"] == ["Ann & Bob", "Cy & Di", "Ed"]
        hand = {"middle": [18, 3, 22], "nertz_left": [0, 6, 3], "caller": 0}
        scored = client.post(f"/api/sheets/{sheet['id']}/hands", json=hand).json()
        assert scored["totals"] == [18, -9, 16]  # one score for the pair (R30, R40)
        bad = client.post("/api/sheets", json={"names": ["Ann & ", "Cy"]})
        assert bad.status_code == 400 and bad.json()["error"] == "bad_names"
        assert "player 1" in bad.json()["reason"]
        # The missing partner is named as missing, not as a name 0 characters long.
        assert "names one partner" in bad.json()["reason"], bad.json()
        assert "'Ann & Bob'" in bad.json()["reason"]
        three = client.post("/api/sheets", json={"names": ["A & B & C", "Cy"]}).json()
        assert three["error"] == "bad_names" and "R40" in three["reason"]
