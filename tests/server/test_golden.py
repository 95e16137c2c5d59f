"""The table against golden files: fixed deals and bot seeds, a hand played in virtual
time by scripted people and bots; every input the table accepted and a digest of every
byte it sent must match ``tests/data/server/`` exactly.

The inputs depend on every bot decision and its timing (a bot at a seat, a bot standing
in for a person who left, a bot partner working around a person's hold, R40), so a
change to how the server drives its bots shows up as a diff of moves; the digest covers
the wire itself (every ``state``, ``event``, ``ack``, ``refused``, ``hold`` and
``error``, field by field: the browser client reads these bytes).

After an intended change, rewrite the files with
``.venv/bin/python tests/data/make_server.py`` and review the diff.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

from nertz.engine import Deal, Rules, deal
from nertz.server.table.commands import Stage
from nertz.server.table.records import InputRecord
from nertz.server.table.settings import Settings
from nertz.server.table.table import Table

from .harness import Harness

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "server"


def _dealer(first: int) -> Callable[[int, Rules, int], Deal]:
    seeds = itertools.count(first)
    return lambda seats, rules, _seed: deal(seats, rules, next(seeds))


def _harness(rules: Rules, settings: Settings, first_deal: int) -> Harness:
    table = Table("GOLD", rules, settings, rng_seed=first_deal, dealer=_dealer(first_deal))
    return Harness(rules, settings, table)


def _over(h: Harness) -> bool:
    return h.table.stage in (Stage.BETWEEN, Stage.OVER)


def solo() -> Harness:
    """Ann against a demon and an expert: plays a little, leaves (a bot stands in), comes
    back with her last version, then lets the bots finish the hand."""
    h = _harness(
        Rules(), Settings(seats=3, bots={1: "demon:prompt", 2: "expert"}, bot_takeover_s=2), 7
    )
    h.join("ann", "t0")
    h.connect(1, "t0")
    h.connect(9, None)
    h.send(1, {"type": "ready"})
    h.advance(3500)
    for seq, move in enumerate(["T", "N>F", "zz", "T", "W>F"]):
        h.send(1, {"type": "play", "seq": seq, "move": move})
        h.advance(700)
    h.send(9, {"type": "play", "seq": 9, "move": "T"})
    h.drop(1)
    h.advance(6000)
    h.connect(2, "t0", last_version=h.table.version - 3, epoch=h.table.epoch)
    h.run_until(lambda: _over(h))
    return h


def partners() -> Harness:
    """Jokers and partnerships (R40, R41): Ann with a bot partner against two bots; she
    picks cards up and puts them down while her partner plans around her."""
    rules = Rules().with_options(partnerships=True, jokers=True)
    h = _harness(rules, Settings(seats=2, bots={0: "+skilled", 1: "expert+casual"}), 3)
    h.join("ann", "t0")
    h.connect(1, "t0")
    h.send(1, {"type": "ready"})
    h.advance(3500)
    for seq, src in enumerate(["N", "W", "1", "9", "3"]):
        h.send(1, {"type": "pick", "seq": seq, "src": src})
        h.advance(900)
        if seq % 2:
            h.send(1, {"type": "drop"})
    h.advance(6000)  # a hold lapses (HOLD_LAPSE_MS)
    h.run_until(lambda: _over(h))
    return h


CASES: dict[str, Callable[[], Harness]] = {"solo": solo, "partners": partners}


def transcript(h: Harness) -> str:
    """The digest of every byte sent, then every accepted input: hand, time, seat, move."""
    digest = hashlib.sha256()
    for conn in sorted(h.wire):
        for body in h.wire[conn]:
            digest.update(f"{conn}:{len(body)}:".encode() + body)
    lines = [f"wire sha256 {digest.hexdigest()}"]
    lines += [f"{r.hand} {r.at_ms} {r.seat} {r.text}" for r in h.records if type(r) is InputRecord]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_table_plays_as_recorded(name: str) -> None:
    got = transcript(CASES[name]()).splitlines()
    want = (GOLDEN / f"{name}.txt").read_text().splitlines()
    assert got[1:] == want[1:], "the accepted inputs (bot decisions, their timing) changed"
    assert got[0] == want[0], "the same inputs, but the bytes sent changed"
