"""docs/env.md's example runs as written (issue 28.1)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.env.extra import require

require()

DOC = Path(__file__).resolve().parents[2] / "docs" / "env.md"


def test_the_example_in_docs_env_md_plays_a_hand(capsys) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], str(DOC), "exec"), {})
    assert "seat_0" in capsys.readouterr().out
