"""The recorded matches the client's table reducer is tested with
(``tests/web/state.test.mjs``) are what the server sends today: if this fails after an
intended change to the server's messages, rewrite them with
``.venv/bin/python tests/data/make_table_events.py`` and read the diff."""

from __future__ import annotations

from .recorded_matches import GOLDEN, dumps, record_all


def test_the_recorded_matches_are_what_pages_receive_today() -> None:
    assert dumps(record_all()) == GOLDEN.read_text(), (
        "the server's messages changed: rerun tests/data/make_table_events.py"
    )
