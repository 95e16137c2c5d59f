"""The plain choices of bots ("Relaxed", "Even", "Sharp", "Fierce") and bots' human names."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from nertz.bots import BOT_NAMES, CHOICES, DEFAULT_CHOICE, LEVELS, bot_name, choice, parse_seat

ROOT = Path(__file__).resolve().parents[2]


def _pace() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pace", ROOT / "bench" / "pace.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_four_plain_choices_gentlest_first_each_a_valid_seat_spec() -> None:
    assert [c.label for c in CHOICES.values()] == ["Relaxed", "Even", "Sharp", "Fierce"]
    assert DEFAULT_CHOICE == "relaxed"
    for c in CHOICES.values():
        served = c.as_dict()["specs"]
        assert served == [str(parse_seat(s)) for s in c.specs]
        assert c.spec_for(len(c.specs)) == c.specs[0]  # more seats than specs: in turn
    # The fastest bot of each choice, by level (slowest first): gentle to fierce.
    order = list(LEVELS)
    fastest = [max(order.index(parse_seat(s).level) for s in c.specs) for c in CHOICES.values()]
    assert fastest == sorted(fastest) and order[fastest[0]] == "beginner"


def test_an_unknown_choice_is_refused_with_the_choices_named() -> None:
    assert choice(" Fierce ") is CHOICES["fierce"]
    with pytest.raises(ValueError, match="relaxed, even, sharp, fierce"):
        choice("brutal")


def test_bots_have_people_s_names_distinct_at_a_full_partnership_table() -> None:
    names = [bot_name(seat, partner) for seat in range(5) for partner in (0, 1)]
    assert len(set(names)) == len(names) == len(BOT_NAMES)
    assert all(n.isalpha() and n[0].isupper() for n in names)


def test_relaxed_is_a_fair_match_for_a_newcomer_and_fierce_beats_a_quick_player() -> None:
    # A small sample of bench/pace.py's measurement (docs/bots.md has 200 hands a row);
    # the seeds are fixed, so this is the same every run.
    pace = _pace()
    relaxed = pace.play("relaxed", "newcomer", 40)
    assert relaxed["mean"] >= 0 and 0.3 <= relaxed["won"] <= 0.7
    assert relaxed["median_s"] <= 240
    assert pace.play("fierce", "quick", 40)["won"] < 0.3
