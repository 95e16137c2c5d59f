"""``nertz replay FILE``: a match in the notation (docs/notation.md) replayed in the
terminal: each hand's scores and the winners (R29-R32), one hand step by step, and a
file that is no match refused with one line (exit 2)."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from nertz.bots import parse_seat
from nertz.cli import main
from nertz.engine import Rules
from nertz.engine.match_text import MAX_CHARS
from nertz.sim.runner import MatchResult, Setup, notation, play_match

SETUP = Setup(
    tuple(parse_seat(s) for s in ("expert", "casual:racer", "demon")), Rules(target=30), 3
)


@pytest.fixture(scope="module")
def played() -> MatchResult:
    return play_match(SETUP, 0, keep_logs=True)


@pytest.fixture
def saved(tmp_path: Path, played: MatchResult) -> Path:
    path = tmp_path / "match.txt"
    path.write_text(str(notation(SETUP, played, title="three bots")))
    return path


def test_the_scores_of_every_hand_the_totals_and_the_winner(
    saved: Path,
    played: MatchResult,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    assert main(["replay", str(saved)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"three bots: {len(played.hands)} hand(s), 3 seats, rules target=30")
    for label in ("1 bot expert:balanced", "2 bot casual:racer", "3 bot demon:balanced"):
        assert label in out
    rows = {
        found[0]: tuple(int(x) for x in found[1:4])
        for line in out.splitlines()
        if (found := line.split()) and re.fullmatch(r"\d+|total", found[0])
    }
    assert [rows[str(n)] for n in range(1, len(played.hands) + 1)] == [
        h.scores for h in played.hands
    ]
    assert rows["total"] == played.totals
    winner = ["1 bot expert:balanced", "2 bot casual:racer", "3 bot demon:balanced"][
        played.winners[0]
    ]
    assert f"won by {winner} (R32)" in out


def test_stepping_through_a_hand_prints_every_input_and_what_it_did(
    saved: Path,
    played: MatchResult,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Standard input is no terminal: every step is printed, none waited for."""
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["replay", str(saved), "--hand", "2", "--step"]) == 0
    printed = capsys.readouterr().out
    out = printed.splitlines()
    steps = [line for line in out if re.match(r"\[\d+/\d+\] ", line)]
    total = int(steps[0].split("/")[1].split("]")[0])
    assert len(steps) == total and steps[0].endswith("table  GO  started")
    assert "the hand ends: called" in steps[-1] or "the hand ends: blocked" in steps[-1]
    assert any(re.search(r"seat \d N>F\d*  \S+ to F\d+", line) for line in steps)
    assert any("turned" in line for line in steps)
    assert "middle  F1 " in printed and "    seat 1  nertz: " in printed
    called = [line for line in out if line.strip().startswith("hand 2:")]
    assert called and played.hands[1].caller is not None
    assert f"called by seat {played.hands[1].caller + 1}" in called[0]


def test_a_file_that_is_no_match_is_refused_with_one_line(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = saved.read_text()
    lines = text.splitlines()
    index = next(i for i, line in enumerate(lines) if line.endswith(" 1 T"))
    lines[index] = lines[index].replace(" 1 T", " 1 NERTZ")
    broken = tmp_path / "broken.txt"
    broken.write_text("\n".join(lines) + "\n")
    huge = tmp_path / "huge.txt"
    huge.write_bytes(b"#" * (MAX_CHARS + 1))
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"nertz-match 1\n\xff\xfe\n")
    cases = [
        (broken, [], [f"line {index + 1}:", "seat 1's NERTZ is refused", "R27"]),
        (huge, [], ["larger than", str(MAX_CHARS)]),
        (binary, [], ["line 2", "not UTF-8"]),
        (tmp_path / "nowhere.txt", [], ["nowhere.txt", "No such file"]),
        (saved, ["--hand", "99"], ["no hand 99", "its hands: 1, 2"]),
    ]
    for path, more, words in cases:
        assert main(["replay", str(path), *more]) == 2
        done = capsys.readouterr()
        assert done.out == "", done.out
        assert done.err.count("\n") == 1 and done.err.startswith("nertz replay: error: ")
        for word in words:
            assert word in done.err, done.err
    with pytest.raises(SystemExit) as stop:
        main(["replay", str(saved), "--hand", "two"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--hand" in err and "'two'" in err


def test_a_match_read_from_standard_input(
    saved: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``curl .../api/matches/{id}/notation | nertz replay -``"""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(saved.read_bytes())))
    assert main(["replay", "-"]) == 0
    assert capsys.readouterr().out.startswith("three bots: ")


def test_a_deal_alone_is_shown_as_not_over_and_counted_nowhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand with no inputs (a deal to play, R33) has no scores yet (R29-R32)."""
    monkeypatch.setenv("COLUMNS", "160")
    path = tmp_path / "deal.txt"
    path.write_text('nertz-match 1\nseat 1 "You"\nseat 2 - bot=expert\nhand 1 seed 20261203\n')
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^\s+1\s+-\s+-\s+not over$", out, re.M), out
    assert re.search(r"^\s+total\s+0\s+0\s*$", out, re.M), out
    assert "the match is not over after these hands (R32)" in out
