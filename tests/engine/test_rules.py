"""Table options and presets (RULES.md, "Table options")."""

from dataclasses import fields

import pytest

from nertz.engine import OPTIONS, PRESETS, Rules, RulesError, preset


def test_defaults_are_the_standard_table() -> None:
    rules = Rules()
    assert (rules.draw, rules.nertz_pile, rules.penalty, rules.caller_bonus) == (3, 13, 2, 0)
    assert (rules.target, rules.match, rules.tie_break) == (100, "race", "share")
    assert (rules.tie_window_ms, rules.landing_ms, rules.idle_rotate_s) == (40, 250, 30)
    assert (rules.max_rotations, rules.joker_announce_ms) == (1, 1500)
    assert not rules.jokers and not rules.partnerships
    assert preset("standard") == rules


def test_named_presets() -> None:
    assert preset("bonus").changed() == {"caller_bonus": 10, "tie_break": "caller"}
    assert preset("quick").changed() == {"nertz_pile": 11, "match": "single"}
    assert preset("easy").changed() == {"draw": 1, "penalty": 1}
    assert set(PRESETS) == {"standard", "bonus", "quick", "easy"}


def test_a_preset_is_only_a_starting_point() -> None:
    rules = preset("quick").with_options(draw=1, caller_bonus=25)
    assert (rules.nertz_pile, rules.draw, rules.caller_bonus) == (11, 1, 25)


def test_options_from_text() -> None:
    rules = Rules().with_text({"draw": "1", "match": "Rounds", "rounds_to_win": "3"})
    assert (rules.draw, rules.match, rules.rounds_to_win) == (1, "rounds", 3)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"draw": 2}, "option 'draw' must be 3 or 1, not 2"),
        ({"nertz_pile": 10}, "'nertz_pile' must be 13, 12 or 11"),
        ({"penalty": 3}, "'penalty' must be 2 or 1"),
        ({"match": "sprint"}, "'match' must be race, single, rounds or gap"),
        ({"tie_break": "coin"}, "'tie_break' must be share or caller"),
        ({"target": 0}, "'target' must be 1 to 10000"),
        ({"tie_window_ms": -1}, "'tie_window_ms' must be 0 to 1000"),
        ({"colour": "red"}, "unknown option 'colour'; options are: draw, nertz_pile"),
        ({"jokers": 1}, "option 'jokers' must be on or off, not 1"),
    ],
)
def test_bad_options_are_refused_naming_option_and_values(change: dict, message: str) -> None:
    with pytest.raises(RulesError) as error:
        Rules().with_options(**change)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ({"draw": "three"}, "option 'draw' must be a whole number (3 or 1), not 'three'"),
        ({"jokers": "maybe"}, "option 'jokers' must be on or off"),
        ({"speed": "1"}, "unknown option 'speed'"),
    ],
)
def test_bad_option_text_is_refused(text: dict, message: str) -> None:
    with pytest.raises(RulesError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Rules().with_text(text)


def test_unknown_preset_names_the_presets() -> None:
    with pytest.raises(RulesError, match="presets are: standard, bonus, quick, easy"):
        preset("turbo")


def test_every_option_is_declared_with_its_values_rule_and_help() -> None:
    assert list(OPTIONS) == list(Rules().as_dict())
    annotated = {f.name: getattr(f.type, "__name__", f.type) for f in fields(Rules)}
    assert annotated == {name: o.kind for name, o in OPTIONS.items()}
    for name, declared in OPTIONS.items():
        assert declared.allows(getattr(Rules(), name)), name  # the default is allowed
        assert declared.rule.startswith("R") and declared.help.endswith("."), name
        assert declared.text, name


def test_an_options_kind_and_values_come_from_its_declaration() -> None:
    assert (OPTIONS["draw"].kind, OPTIONS["draw"].allowed) == ("int", (3, 1))
    assert OPTIONS["jokers"].kind == "bool" and not OPTIONS["jokers"].allows(1)
    assert OPTIONS["match"].kind == "str" and not OPTIONS["match"].allows("sprint")
    assert OPTIONS["target"].allows(10000) and not OPTIONS["target"].allows(10001)
    sheet = [name for name, o in OPTIONS.items() if o.sheet]
    assert sheet == [
        "nertz_pile", "penalty", "caller_bonus", "target", "match",
        "rounds_to_win", "gap_to_win", "tie_break", "jokers",
    ]  # fmt: skip


def test_the_rules_are_frozen() -> None:
    with pytest.raises(AttributeError):
        Rules().draw = 1  # type: ignore[misc]
