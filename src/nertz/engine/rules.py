"""Table options and named presets (RULES.md, "Table options").

``Rules`` is a frozen value: every option with its default. Change options with
``rules.with_options(draw=1)`` or from text with ``rules.with_text({"draw": "1"})``;
an unknown option or a bad value raises ``RulesError`` (a ``ValueError``) whose
message names the option and its allowed values.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

__all__ = ["OPTION_HELP", "PRESETS", "Rules", "RulesError", "preset"]


class RulesError(ValueError):
    """An unknown option or a value the option does not allow."""


MATCH_MODES = ("race", "single", "rounds", "gap")
TIE_BREAKS = ("share", "caller")


@dataclass(frozen=True, slots=True)
class Rules:
    """Every table option of RULES.md, defaults first (the ``standard`` preset)."""

    draw: int = 3
    """R21: cards turned from the stock at a time (3 or 1)."""
    nertz_pile: int = 13
    """R4: cards dealt to the Nertz pile (13, 12 or 11)."""
    penalty: int = 2
    """R30: points lost per card left in the Nertz pile (2 or 1)."""
    caller_bonus: int = 0
    """Points for the seat that calls Nertz (0, 10, 25 are common)."""
    target: int = 100
    """R32: total that ends a ``race`` match."""
    match: str = "race"
    """How the match ends: race, single, rounds or gap."""
    rounds_to_win: int = 5
    """``match=rounds``: hands a seat must win to win the match."""
    gap_to_win: int = 100
    """``match=gap``: the match ends when highest minus lowest total reaches this."""
    tie_break: str = "share"
    """R32: equal winners share, or the caller of the last hand wins among them."""
    jokers: bool = False
    """R41: each deck carries two jokers (54 cards, stock 37)."""
    partnerships: bool = False
    """R40: two people share each seat (one layout, deck, back and score)."""
    tie_window_ms: int = 40
    """R16 (online): same-rank cards this close on one foundation both stay; 0 = off."""
    landing_ms: int = 250
    """R28 (online): legal plays this soon after the call still land."""
    idle_rotate_s: int = 30
    """R25 (online): seconds with no card moving that count as everyone stuck; 0 = off."""
    max_rotations: int = 1
    """R26 (online): rotations per blocked spell before the hand ends with no call."""
    joker_announce_ms: int = 1500
    """R41 (online): how long a joker's announcement stands open."""

    def __post_init__(self) -> None:
        _check(self)

    def with_options(self, **changes: Any) -> Rules:
        """A copy with some options changed; refuses unknown names and bad values."""
        unknown = sorted(set(changes) - set(OPTION_HELP))
        if unknown:
            raise RulesError(
                f"unknown option {unknown[0]!r}; options are: {', '.join(OPTION_HELP)}"
            )
        return replace(self, **changes)

    def with_text(self, changes: dict[str, str]) -> Rules:
        """A copy with options given as text (``{"draw": "1", "jokers": "on"}``)."""
        typed: dict[str, Any] = {}
        kinds = {f.name: f.type for f in fields(Rules)}
        for name, raw in changes.items():
            if name not in kinds:
                raise RulesError(f"unknown option {name!r}; options are: {', '.join(OPTION_HELP)}")
            text = str(raw).strip().lower()
            if kinds[name] == "bool":
                if text not in ("on", "off", "true", "false", "yes", "no", "1", "0"):
                    raise RulesError(f"option {name!r} must be on or off, not {raw!r}")
                typed[name] = text in ("on", "true", "yes", "1")
            elif kinds[name] == "int":
                try:
                    typed[name] = int(text)
                except ValueError:
                    raise RulesError(
                        f"option {name!r} must be a whole number ({OPTION_HELP[name]}), not {raw!r}"
                    ) from None
            else:
                typed[name] = text
        return self.with_options(**typed)

    def as_dict(self) -> dict[str, Any]:
        """All options, JSON-ready."""
        return asdict(self)

    def changed(self) -> dict[str, Any]:
        """Only the options that differ from the defaults."""
        base = Rules()
        return {k: v for k, v in self.as_dict().items() if getattr(base, k) != v}


OPTION_HELP: dict[str, str] = {
    "draw": "3 or 1",
    "nertz_pile": "13, 12 or 11",
    "penalty": "2 or 1",
    "caller_bonus": "0 to 50; 0, 10 and 25 are common",
    "target": "1 to 10000",
    "match": "race, single, rounds or gap",
    "rounds_to_win": "1 to 50",
    "gap_to_win": "1 to 10000",
    "tie_break": "share or caller",
    "jokers": "on or off",
    "partnerships": "on or off",
    "tie_window_ms": "0 to 1000 (0 turns ties off)",
    "landing_ms": "0 to 5000",
    "idle_rotate_s": "0 to 600 (0 turns the idle rotation off)",
    "max_rotations": "0 to 10",
    "joker_announce_ms": "0 to 10000",
}

_ALLOWED: dict[str, tuple[Any, ...] | range] = {
    "draw": (3, 1),
    "nertz_pile": (13, 12, 11),
    "penalty": (2, 1),
    "caller_bonus": range(0, 51),
    "target": range(1, 10001),
    "match": MATCH_MODES,
    "rounds_to_win": range(1, 51),
    "gap_to_win": range(1, 10001),
    "tie_break": TIE_BREAKS,
    "jokers": (False, True),
    "partnerships": (False, True),
    "tie_window_ms": range(0, 1001),
    "landing_ms": range(0, 5001),
    "idle_rotate_s": range(0, 601),
    "max_rotations": range(0, 11),
    "joker_announce_ms": range(0, 10001),
}


def _check(rules: Rules) -> None:
    for name, allowed in _ALLOWED.items():
        value = getattr(rules, name)
        if name in ("jokers", "partnerships"):
            if not isinstance(value, bool):
                raise RulesError(f"option {name!r} must be on or off, not {value!r}")
            continue
        ok = (
            isinstance(value, str)
            if isinstance(allowed, tuple) and isinstance(allowed[0], str)
            else (isinstance(value, int) and not isinstance(value, bool))
        )
        if not ok or value not in allowed:
            raise RulesError(f"option {name!r} must be {OPTION_HELP[name]}, not {value!r}")


PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "bonus": {"caller_bonus": 10, "tie_break": "caller"},
    "quick": {"nertz_pile": 11, "match": "single"},
    "easy": {"draw": 1, "penalty": 1},
}
"""Named starting points (RULES.md): every option can still be changed."""


def preset(name: str) -> Rules:
    """The rules of a named preset: standard, bonus, quick or easy."""
    try:
        return Rules(**PRESETS[name])
    except KeyError:
        raise RulesError(f"unknown preset {name!r}; presets are: {', '.join(PRESETS)}") from None
