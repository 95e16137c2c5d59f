"""Rewrite ``tests/data/simulate/*.json``, the golden figures of
``tests/sim/test_golden.py``.

Run from the repository root after an intended change to the bots or the rules, then
review the diff::

    .venv/bin/python tests/data/make_simulate.py
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEST = HERE.parent / "sim" / "test_golden.py"


def main() -> None:
    spec = importlib.util.spec_from_file_location("nertz_test_golden", TEST)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.GOLDEN.mkdir(exist_ok=True)
    for name in module.CASES:
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            module.simulate(name, module.GOLDEN / f"{name}.json")
        print(f"wrote {module.GOLDEN / name}.json ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    sys.exit(main())
