"""Partnerships in the simulator (R40): two bots a seat, ``--seats expert+casual,...``;
the first watches the Nertz pile, the second turns the stock; each holds the source of
its committed move until it lands and its partner chooses around it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nertz.bots import Bot, parse_seat
from nertz.engine import NERTZ, Rules, touches
from nertz.sim.table import play_hand

PARTNERS = Rules(partnerships=True)


def test_r40_a_partnership_table_runs_to_the_end_on_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "nertz",
            "simulate",
            "--set",
            "partnerships=on,target=40",
            "--seats",
            "expert+casual,skilled+skilled,demon+beginner",
            "--matches",
            "4",
            "--quiet",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stderr
    assert "1 expert:balanced+casual:balanced" in done.stdout
    assert "partners (R40): the stock partner turned 100%, 100%, 100%" in done.stdout
    figures = json.loads(out.read_text())
    assert figures["seats_spec"][2] == "demon:balanced+beginner:balanced"
    assert figures["rules"]["partnerships"] is True
    assert figures["table"]["matches"] == 4 and figures["table"]["bad_refusals"] == 0
    assert sum(s["wins"] for s in figures["seats"]) == pytest.approx(4)
    assert [s["partner"] for s in figures["seats"]] == [
        "casual:balanced",
        "skilled:balanced",
        "beginner:balanced",
    ]


def bots(specs: list[str], seed: int, partner: int) -> list[Bot]:
    return [
        Bot(seat, parse_seat(s).level, parse_seat(s).style, seed * 10 + seat + 100 * partner)
        for seat, s in enumerate(specs)
    ]


@pytest.mark.parametrize("seed", range(6))
def test_r40_the_stock_partner_turns_the_stock_and_holds_are_respected(seed: int) -> None:
    specs = ["expert", "casual", "skilled"]
    result = play_hand(bots(specs, seed, 0), PARTNERS, seed, partners=bots(specs, seed, 1))
    assert result.bad == ()  # no move touched what the partner held (partner_holds)
    for seat in range(3):
        nertz_partner, stock_partner = result.turns[2 * seat], result.turns[2 * seat + 1]
        assert stock_partner > 0 and nertz_partner == 0
    assert sum(result.card_moves[0::2]) > 0 and sum(result.card_moves[1::2]) > 0  # both play


def test_r40_a_bot_never_chooses_a_move_touching_what_its_partner_holds() -> None:
    """Over a whole hand, ask the Nertz partner again and again with its partner
    holding each source in turn: no decision touches the held one."""
    seen = []

    class Checked(Bot):
        def decide(self, now_ms: int, avoid: frozenset[int] = frozenset(), role=None):  # type: ignore[no-untyped-def]
            for held in range(6):
                choice = super().decide(now_ms, avoid | {held}, role)
                if choice.move is not None:
                    seen.append(choice.move)
                    assert held not in touches(choice.move)
            return super().decide(now_ms, avoid, role)

    def checked(seed: int, partner: int) -> list[Bot]:
        level, style = parse_seat("expert").level, parse_seat("expert").style
        return [Checked(0, level, style, seed * 10 + 100 * partner)]

    play_hand(checked(3, 0), PARTNERS, 3, partners=checked(3, 1))
    assert len(seen) > 100
    assert any(m.src == NERTZ for m in seen if m.kind.name != "TURN")
