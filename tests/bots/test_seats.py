"""Seat specs: ``level``, ``style`` or ``level:style``; ``A+B`` at a partnership seat."""

from __future__ import annotations

import re

import pytest

from nertz.bots import SeatSpec, parse_places, parse_seat


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


@pytest.mark.parametrize(
    ("text", "partnerships", "places"),
    [
        ("expert", False, (SeatSpec("expert", "balanced"),)),
        ("expert+racer", True, (SeatSpec("expert", "balanced"), SeatSpec("skilled", "racer"))),
        ("demon+", True, (SeatSpec("demon", "balanced"), None)),
        ("+casual", True, (None, SeatSpec("casual", "balanced"))),
    ],
)
def test_r40_a_seat_has_a_bot_or_a_person_at_each_place(
    text: str, partnerships: bool, places: tuple[SeatSpec | None, ...]
) -> None:
    assert parse_places(text, partnerships) == places


@pytest.mark.parametrize(
    ("text", "partnerships", "people", "words"),
    [
        ("expert+casual", False, True, "no partnerships"),
        ("expert", True, True, "'A+B'"),
        ("a+b+c", True, True, "'A+B'"),
        ("+", True, True, "names no bot"),
        ("expert+wizard", True, True, "'wizard'"),
        ("expert+", True, False, "two bots, 'level+level'"),
    ],
)
def test_r40_bad_pairs_say_what_a_seat_takes(
    text: str, partnerships: bool, people: bool, words: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        parse_places(text, partnerships, people)
