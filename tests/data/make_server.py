"""Rewrite ``tests/data/server/*.txt``, the golden transcripts of
``tests/server/test_golden.py``.

Run from the repository root after an intended change to the server's bots or its
messages, then review the diff::

    .venv/bin/python tests/data/make_server.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from tests.server import test_golden

    test_golden.GOLDEN.mkdir(exist_ok=True)
    for name, case in test_golden.CASES.items():
        path = test_golden.GOLDEN / f"{name}.txt"
        path.write_text(test_golden.transcript(case()))
        print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
