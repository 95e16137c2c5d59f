"""Check that every JSON file here reproduces from its command.

docs/strategy.md gives the command behind each file; this script runs each one through
``nertz simulate`` (the same path: arguments, matches, figures, JSON) and compares the
JSON with the stored file: byte for byte, or, for a file written before the simulator
reported more (the joker and partner figures, R40 and R41, and the options they added),
every figure the file holds, exactly; the figures added since are named. It takes
minutes (tens of thousands of hands), so it is not part of the test suite; run it after
a change that must not change what the bots do::

    .venv/bin/python docs/data/strategy/reproduce.py [--jobs 2] [NAME ...]

Exit code 0 when every file checked reproduces, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

from nertz.cli import main as nertz

HERE = Path(__file__).resolve().parent

_EXPERTS = "expert,expert,expert,expert"
_CALL = "expert:prompt,expert:scorer,expert:prompt,expert:scorer"

COMMANDS: dict[str, str] = {
    # Section 1: call at once or play on.
    "call-0": f"--seats {_CALL} --matches 300 --set caller_bonus=0 --seed 1",
    "call-10": f"--seats {_CALL} --matches 300 --set caller_bonus=10 --seed 1",
    "call-25": f"--seats {_CALL} --matches 300 --set caller_bonus=25 --seed 1",
    "call-balanced-0": (
        "--seats expert:prompt,expert:balanced,expert:prompt,expert:balanced --matches 300 --seed 1"
    ),
    # Section 2: the level ladder.
    "ladder-casual": "--seats casual,beginner,casual,beginner --matches 200 --seed 2",
    "ladder-skilled": "--seats skilled,casual,skilled,casual --matches 200 --seed 2",
    "ladder-expert": "--seats expert,skilled,expert,skilled --matches 200 --seed 2",
    "ladder-demon": "--seats demon,expert,demon,expert --matches 200 --seed 2",
    "ladder-all": "--seats beginner,casual,skilled,expert,demon --matches 200 --seed 4",
    # Section 3: draw one and shorter Nertz piles.
    "opt-draw-3": f"--seats {_EXPERTS} --matches 200 --set draw=3 --seed 3",
    "opt-draw-1": f"--seats {_EXPERTS} --matches 200 --set draw=1 --seed 3",
    "opt-nertz_pile-12": f"--seats {_EXPERTS} --matches 200 --set nertz_pile=12 --seed 3",
    "opt-nertz_pile-11": f"--seats {_EXPERTS} --matches 200 --set nertz_pile=11 --seed 3",
    "opt-draw-1_nertz_pile-11": (
        f"--seats {_EXPERTS} --matches 200 --set draw=1,nertz_pile=11 --seed 3"
    ),
    # Section 4: jokers (R41).
    "jokers-off": f"--seats {_EXPERTS} --matches 200 --set jokers=off --seed 3",
    "jokers-on": f"--seats {_EXPERTS} --matches 200 --set jokers=on --seed 3",
    "jokers-pair-off": "--seats skilled,skilled --matches 300 --set jokers=off --seed 6",
    "jokers-pair-on": "--seats skilled,skilled --matches 300 --set jokers=on --seed 6",
    "jokers-mixed-off": (
        "--seats demon,expert,skilled,casual --matches 200 --set jokers=off --seed 5"
    ),
    "jokers-mixed-on": "--seats demon,expert,skilled,casual --matches 200 --set jokers=on --seed 5",
}
"""Each stored file's ``nertz simulate`` arguments (docs/strategy.md), by file name."""


def check(name: str, jobs: int) -> str | None:
    """Run ``name``'s command and compare its JSON with the stored file: None when
    they differ, else how they agree."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"{name}.json"
        args = ["simulate", "--quiet", "--jobs", str(jobs), "--json", str(out)]
        with contextlib.redirect_stdout(io.StringIO()):
            code = nertz([*args, *COMMANDS[name].split()])
        if code != 0:
            return None
        new, old = out.read_bytes(), (HERE / f"{name}.json").read_bytes()
    if new == old:
        return "same bytes"
    added: set[str] = set()
    if not _holds(json.loads(new), json.loads(old), "", added):
        return None
    return f"same figures; added since: {', '.join(sorted(added))}"


def _holds(new: object, old: object, where: str, added: set[str]) -> bool:
    """Does ``new`` hold every figure of ``old``, of the same type and value? Keys
    only ``new`` has go to ``added``."""
    if isinstance(old, dict) and isinstance(new, dict):
        added.update(f"{where}{key}" for key in new.keys() - old.keys())
        return old.keys() <= new.keys() and all(
            _holds(new[key], value, f"{where}{key}.", added) for key, value in old.items()
        )
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(
            _holds(n, o, f"{where}[].", added) for n, o in zip(new, old, strict=True)
        )
    return type(new) is type(old) and new == old


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help=f"files to check (default all {len(COMMANDS)})")
    parser.add_argument("--jobs", type=int, default=1, help="processes per run (default 1)")
    args = parser.parse_args()
    stored = sorted(p.stem for p in HERE.glob("*.json"))
    if sorted(COMMANDS) != stored:
        print(f"commands and stored files differ: {sorted(set(COMMANDS) ^ set(stored))}")
        return 1
    failed = 0
    for name in args.names or COMMANDS:
        start = time.perf_counter()
        same = check(name, args.jobs)
        failed += same is None
        took = time.perf_counter() - start
        print(f"{name}: {same or 'DIFFERS'} ({took:.0f} s)", flush=True)
    print(f"{len(args.names or COMMANDS) - failed} reproduced, {failed} differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
