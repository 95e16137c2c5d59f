"""Seat specs: ``level``, ``style`` or ``level:style``."""

from __future__ import annotations

import pytest

from nertz.bots import SeatSpec, parse_seat


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("expert", SeatSpec("expert", "balanced")),
        ("racer", SeatSpec("skilled", "racer")),
        ("demon:scorer", SeatSpec("demon", "scorer")),
        (" Casual:Racer ", SeatSpec("casual", "racer")),
    ],
)
def test_specs_read(text: str, spec: SeatSpec) -> None:
    assert parse_seat(text) == spec
    assert parse_seat(str(spec)) == spec


@pytest.mark.parametrize(
    ("text", "names"),
    [("wizard", "beginner, casual"), ("expert:sleepy", "racer, prompt, balanced, scorer")],
)
def test_bad_specs_name_the_allowed_values(text: str, names: str) -> None:
    with pytest.raises(ValueError, match=names):
        parse_seat(text)
