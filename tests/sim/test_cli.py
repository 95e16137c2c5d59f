"""``nertz simulate``: figures on screen and in JSON, and one-line errors (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nertz.cli import main


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--seats", "expert,wizard"], ["'wizard'", "beginner", "demon", "racer"]),
        (["--seats", "expert:sleepy"], ["'sleepy'", "balanced", "scorer"]),
        (["--seats", ",".join(["expert"] * 9)], ["9 seat(s)", "1 to 8"]),
        (["--seats", ""], ["0 seat(s)", "1 to 8"]),
        (["--set", "draw=2"], ["'draw'", "3 or 1"]),
        (["--set", "colour=red"], ["'colour'", "caller_bonus"]),
        (["--rules", "fast"], ["'fast'", "standard, bonus, quick, easy"]),
        (["--matches", "0"], ["--matches"]),
        (["--seats", "expert", "--set", "match=gap"], ["gap", "two seats"]),
        # R40: pairs need partnerships, and partnerships need pairs of known bots.
        (["--seats", "expert+casual,expert"], ["partnerships=on", "R40"]),
        (["--set", "partnerships=on", "--seats", "expert,expert"], ["level+level", "R40"]),
        (["--set", "partnerships=on", "--seats", "expert+wizard"], ["'wizard'"]),
    ],
)
def test_bad_arguments_stop_with_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], words: list[str]
) -> None:
    assert main(["simulate", "--quiet", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    for word in words:
        assert word in err


def test_unreadable_numbers_stop_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["simulate", "--matches", "lots"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--matches" in err and "'lots'" in err


def test_a_run_prints_tables_and_writes_json_and_plot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")  # a terminal wide enough for the whole table
    out, png = tmp_path / "out.json", tmp_path / "out.png"
    code = main(
        [
            "simulate",
            "--seats",
            "expert,casual,racer",
            "--matches",
            "3",
            "--set",
            "target=30,caller_bonus=10",
            "--seed",
            "7",
            "--json",
            str(out),
            "--plot",
            str(png),
        ]
    )
    assert code == 0
    shown = capsys.readouterr().out
    assert "3 skilled:racer" in shown and "hands/match" in shown
    data = json.loads(out.read_text())
    assert data["rules"]["caller_bonus"] == 10 and data["seed"] == 7
    assert [s["label"] for s in data["seats"]] == [
        "1 expert:balanced",
        "2 casual:balanced",
        "3 skilled:racer",
    ]
    assert sum(s["wins"] for s in data["seats"]) == pytest.approx(3)
    assert data["table"]["matches"] == 3 and data["table"]["bad_refusals"] == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_run_with_jokers_plays_to_the_end_and_reports_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """R41: ``--set jokers=on`` plays whole matches (race to 100, R32) and reports the
    jokers announced, landed, sent home, and the answers, on screen and in JSON."""
    monkeypatch.setenv("COLUMNS", "160")
    out = tmp_path / "jokers.json"
    args = ["simulate", "--rules", "standard", "--set", "jokers=on", "--matches", "2"]
    assert main([*args, "--seed", "5", "--quiet", "--json", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "jokers (R41)" in shown and "stayed home" in shown and "1 expert:balanced" in shown
    assert "rules standard jokers=on" in shown  # as --set takes it, not "True"
    data = json.loads(out.read_text())
    assert data["rules"]["jokers"] is True
    assert sum(s["wins"] for s in data["seats"]) == pytest.approx(2)
    assert max(s["mean_score"] for s in data["seats"]) > 0
    table = data["table"]
    assert table["matches"] == 2 and table["bad_refusals"] == 0
    assert table["jokers_per_hand"] > 1 and 0 <= table["jokers_stayed_share"] < 1
    for s in data["seats"]:
        assert s["jokers_landed"] + s["jokers_stayed"] <= s["jokers_announced"]
