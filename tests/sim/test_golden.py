"""The simulator against golden files: fixed seeds, a few short matches each, run as
``nertz simulate --json`` runs them; the JSON must match ``tests/data/simulate/``
byte for byte.

Every figure depends on every bot decision and every random number the bots draw, so
any change to how bots choose, in what order they act or what the engine answers shows
up here. The cases cover every level and style, a two-seat table that blocks and
rotates (R24-R26), partnerships (R40), jokers (R41) and both together, and the match
kinds of R32.

After an intended change to the bots or the rules, rewrite the files with
``.venv/bin/python tests/data/make_simulate.py`` and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nertz.cli import main

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "simulate"

CASES: dict[str, list[str]] = {
    "mixed": [
        "--seats",
        "demon:scorer,expert:prompt,skilled:racer,casual,beginner",
        "--matches",
        "5",
        "--seed",
        "11",
    ],
    "pair-blocked": [
        "--seats",
        "skilled,casual:racer",
        "--matches",
        "4",
        "--set",
        "caller_bonus=10",
        "--seed",
        "6",
    ],
    "draw-1-rounds": [
        "--seats",
        "expert,skilled:scorer,casual:prompt",
        "--matches",
        "4",
        "--set",
        "draw=1,nertz_pile=11,match=rounds,rounds_to_win=3,tie_break=caller",
        "--seed",
        "3",
    ],
    "partners": [
        "--seats",
        "expert+casual,skilled:racer+skilled,demon:scorer+beginner",
        "--matches",
        "4",
        "--set",
        "partnerships=on,target=60",
        "--seed",
        "5",
    ],
    "jokers": [
        "--seats",
        "demon,expert:scorer,skilled:racer,casual",
        "--matches",
        "4",
        "--set",
        "jokers=on",
        "--seed",
        "5",
    ],
    "jokers-partners": [
        "--seats",
        "expert+skilled,casual:prompt+demon",
        "--matches",
        "4",
        "--set",
        "jokers=on,partnerships=on,target=60",
        "--seed",
        "9",
    ],
}


def simulate(name: str, out: Path) -> None:
    """Run case ``name`` through ``nertz simulate`` (the command's own path: argument
    checks, matches, figures, JSON), writing its JSON to ``out``."""
    assert main(["simulate", "--quiet", "--json", str(out), *CASES[name]]) == 0


@pytest.mark.parametrize("name", list(CASES))
def test_fixed_seeds_give_the_golden_figures_byte_for_byte(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"{name}.json"
    simulate(name, out)
    capsys.readouterr()
    assert out.read_bytes() == (GOLDEN / f"{name}.json").read_bytes()


def test_every_golden_file_has_its_case() -> None:
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == sorted(CASES)
