"""Rewrite ``tests/data/table_events.json``: real matches as pages received them, the
input of ``tests/web/state.test.mjs`` (see ``tests/server/recorded_matches.py``).

Run from the repository root after an intended change to what the server sends, then
review the diff::

    .venv/bin/python tests/data/make_table_events.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.server.recorded_matches import GOLDEN, dumps, record_all


def main() -> None:
    data = record_all()
    GOLDEN.write_text(dumps(data))
    sizes = ", ".join(
        f"{m['name']} {len(m['person'])}+{len(m['spectator'])}" for m in data["matches"]
    )
    print(f"wrote {GOLDEN} (messages per page: {sizes})")


if __name__ == "__main__":
    main()
