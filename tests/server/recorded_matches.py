"""Real matches, recorded as pages receive them: the input of the client reducer's test.

Each match runs the sans-I/O table (``harness.Harness``) in virtual time with bots in
the other seats (and in one, Bob, who only gets ready). A person at seat 0 plays from
their own view (a move to the middle, else one of their Nertz or waste card, else a
turn of the stock), calls when their Nertz pile is empty, says they are stuck when only
a turn is left (R25), asks for a ``resync`` now and then, and drops and resumes their
connection once (between hands if the match has more than one). A spectator watches.
Every message each page receives is kept in order, so ``tests/web/state.test.mjs``
replays it through ``web/js/table/state.js`` and compares the reducer's table with each
``state`` the server sent (its own view at that version).

``tests/data/make_table_events.py`` writes ``tests/data/table_events.json``;
``test_recorded_matches.py`` checks the stored file is what the server sends today.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from nertz.engine import Deal, Rules, deal, view
from nertz.server.table.commands import Stage
from nertz.server.table.settings import Settings
from nertz.server.table.table import Table

from .harness import Harness

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "table_events.json"

PERSON, WATCHER, BACK = 1, 2, 3
"""Connection ids: the person's page, the spectator's page, the person's page again
after it dropped (the same page: one recording)."""

RECONNECTED = {"type": "reconnected"}
"""Not a server message: marks where the person's page got its new connection. Holds
(R40) are not versioned, so the ones that changed while it was away are not resent."""

STEP_MS = 300
"""How often the person acts (virtual time)."""

RESYNC_EVERY = 25
"""Every this many of the person's steps, their page asks for a full ``state``."""

MATCHES: dict[str, tuple[Rules, int, dict[int, str], bool]] = {
    "solo": (Rules(match="race", target=15), 4, {1: "skilled:racer", 2: "expert"}, False),
    "jokers": (Rules(jokers=True, match="single"), 2, {1: "expert:racer"}, True),
    "partners": (
        Rules(partnerships=True, jokers=True, match="single"),
        2,
        {0: "+skilled", 1: "expert+skilled"},
        True,
    ),
    "series": (Rules(match="single"), 2, {1: "expert:racer"}, True),
    "duplicate": (Rules(duplicate=True, match="single"), 2, {1: "expert:racer"}, True),
}
"""Name -> the rules, the seats, the bots (seat -> spec; ``+skilled`` is a bot partner
for the person at seat 0, R40) and whether a spectator's page is kept too (the long
three-hand match keeps only the person's). A seat left free is Bob's: he only gets
ready."""

SERIES = {"series": 2, "duplicate": 2}
"""Name -> how many matches the table plays (the person says "Play again" after each)."""

BOB = 4
"""Bob's connection: he never plays, so Ann's ready is not the last one."""


def _dealer(base: int) -> Any:
    hands = iter(range(base, base + 1000))

    def dealer(seats: int, rules: Rules, seed: int) -> Deal:
        return deal(seats, rules, next(hands))  # the table's own seed is random

    return dealer


def _person_move(seen: dict[str, Any], rng: random.Random) -> str | None:
    legal: list[str] = [m for m in seen["legal"] if m not in ("NERTZ", "STUCK")]
    for prefer in (
        [m for m in legal if ">F" in m],
        [m for m in legal if m[0] in "NW"],
    ):
        if prefer:
            return rng.choice(prefer)
    if "T" in legal:
        return "T"
    return rng.choice(legal) if legal else None


def record(name: str) -> dict[str, Any]:
    """Play match ``name`` to its end; every message each page got, in order."""
    rules, seats, bots, watched = MATCHES[name]
    settings = Settings(seats=seats, bots=bots, countdown_ms=1000, next_hand_s=5)
    table = Table("TEST", rules, settings, rng_seed=7, dealer=_dealer(100))
    h = Harness(rules, settings, table)
    rng = random.Random(11)
    h.join("Ann", "ann", 0)
    h.connect(PERSON, "ann")
    h.connect(WATCHER, None)
    bob = [n for n in range(1, seats) if n not in bots]
    if bob:
        h.join("Bob", "bob", bob[0])
        h.connect(BOB, "bob")
        h.send(BOB, {"type": "ready"})
    h.send(PERSON, {"type": "ready"})
    page, seq, steps, dropped = PERSON, 0, 0, False
    again = SERIES.get(name, 1) - 1

    def drop_and_resume() -> int:
        """The page loses its connection for a moment and resumes where it was."""
        last = json.loads(h.wire[PERSON][-1]).get("v", -1)
        h.drop(PERSON)
        h.advance(2 * STEP_MS)
        h.connect(BACK, "ann", last_version=last, epoch=h.table.epoch)
        h.send(BACK, {"type": "resync"})
        return BACK

    while (h.table.stage is not Stage.OVER or again) and h.now < 3_600_000:
        if h.table.stage is Stage.OVER:  # "Play again": the series' next match
            again -= 1
            h.send(page, {"type": "again"})
            if bob:
                h.send(BOB, {"type": "again"})
        h.advance(STEP_MS)
        steps += 1
        if steps % RESYNC_EVERY == 0:
            h.send(page, {"type": "resync"})
            h.send(WATCHER, {"type": "resync"})
        stage, hand = h.table.stage, h.table.hand
        if stage is Stage.BETWEEN:
            h.send(page, {"type": "ready"})
            if not dropped:  # ready, then gone: the server forgets the ready
                dropped, page = True, drop_and_resume()
            if bob:
                h.send(BOB, {"type": "ready"})
        if stage is not Stage.PLAYING or hand is None:
            continue
        if not dropped and rules.match == "single" and len(hand.log) > 40:
            dropped, page = True, drop_and_resume()
            continue
        seen = view(hand, 0)
        seq += 1
        if seen["seats"][0]["nertz_count"] == 0 and "NERTZ" in seen["legal"]:
            h.send(page, {"type": "call", "seq": seq})
            continue
        move = _person_move(seen, rng)
        if move == "T" and "STUCK" in seen["legal"]:
            h.send(page, {"type": "stuck", "seq": seq})  # R25: perhaps the table rotates
            continue
        if move is not None:
            if rules.partnerships and move[0] != "T" and rng.random() < 0.1:
                h.send(page, {"type": "pick", "seq": seq, "src": move[0]})
                seq += 1
            h.send(page, {"type": "play", "seq": seq, "move": move})
    assert h.table.stage is Stage.OVER, f"{name}: the match did not end"
    h.send(page, {"type": "resync"})  # the last word: each page's table at the end
    h.send(WATCHER, {"type": "resync"})
    return {
        "name": name,
        "rules": rules.as_dict(),
        "seat": 0,
        "person": [*h.messages(PERSON), RECONNECTED, *h.messages(BACK)],
        "spectator": h.messages(WATCHER) if watched else [],
    }


def record_all() -> dict[str, Any]:
    return {"matches": [record(name) for name in MATCHES]}


def dumps(data: dict[str, Any]) -> str:
    """One message a line: a change in the server shows as a readable diff."""
    lines = ['{"matches": [']
    for i, match in enumerate(data["matches"]):
        lines.append(" {")
        head = {k: v for k, v in match.items() if k not in ("person", "spectator")}
        for key, value in head.items():
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, sort_keys=True)},")
        for key in ("person", "spectator"):
            lines.append(f"  {json.dumps(key)}: [")
            messages = match[key]
            for j, message in enumerate(messages):
                comma = "," if j < len(messages) - 1 else ""
                lines.append(json.dumps(message, sort_keys=True, separators=(",", ":")) + comma)
            lines.append("  ]" + ("," if key == "person" else ""))
        lines.append(" }" + ("," if i < len(data["matches"]) - 1 else ""))
    lines.append("]}")
    return "\n".join(lines) + "\n"
