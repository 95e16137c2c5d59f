"""Rewrite ``tests/data/replay_hand.json``: one hand as the replay viewer reads it
(``server/lobby/timeline.py``) and the engine's table at moments of it, the input of
``tests/web/timeline.test.mjs``. Three greedy seats with jokers (R41), so the hand has
jokers announced and landing, stocks turned and work piles built.

Run from the repository root after an intended change to the timeline, then review
the diff::

    .venv/bin/python tests/data/make_replay_hand.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from nertz.engine import Hand, Rules, apply
from nertz.server.lobby.timeline import hand_timeline
from tests.stored_match import engine_table, played_hand

OUT = Path(__file__).parent / "replay_hand.json"
RULES = Rules(jokers=True, nertz_pile=11)
SEED = 6


def main() -> None:
    played = played_hand(3, RULES, SEED, 5_000)
    timeline = hand_timeline(played.deal, RULES, played.log)
    go = played.log[0][0]
    times = sorted({step[0] for step in timeline["steps"]})
    asked = {0, timeline["end_ms"], *times[::25], *(t + 1 for t in times[12::25])}
    moments = []
    hand = Hand(played.deal, RULES)
    entries = iter(played.log)
    pending = next(entries, None)
    for t in sorted(asked):
        while pending is not None and pending[0] - go <= t:
            assert apply(hand, pending).ok
            pending = next(entries, None)
        moments.append({"t": t, "table": engine_table(hand)})
    data = {"timeline": timeline, "moments": moments}
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: {len(timeline['steps'])} steps, {len(moments)} moments")


if __name__ == "__main__":
    main()
