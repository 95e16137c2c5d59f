"""Rewrite ``tests/data/perft.json``, the golden numbers of ``tests/engine/test_perft.py``.

Run from the repository root after an intended change to move generation, then review
the diff::

    .venv/bin/python tests/data/make_perft.py
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEST = HERE.parent / "engine" / "test_perft.py"


def main() -> None:
    spec = importlib.util.spec_from_file_location("nertz_test_perft", TEST)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    start = time.perf_counter()
    data = module.compute_all()
    text = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    module.GOLDEN.write_text(text)
    took = time.perf_counter() - start
    print(f"wrote {module.GOLDEN} ({len(data['positions'])} positions, {took:.1f} s)")


if __name__ == "__main__":
    sys.exit(main())
