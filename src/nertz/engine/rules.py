"""Table options and named presets (RULES.md, "Table options").

``Rules`` is a frozen value: every option with its default. Change options with
``rules.with_options(draw=1)`` or from text with ``rules.with_text({"draw": "1"})``;
an unknown option or a bad value raises ``RulesError`` (a ``ValueError``) whose
message names the option and its allowed values.

Each option is declared once, as a field of ``Rules`` made by ``option``: its type
(the annotation) and default, its allowed values, the short text of those values that
error messages quote, the rule it implements, the sentence a player reads, and whether
a score sheet for real cards uses it. ``OPTIONS`` reads them back as ``Option`` values,
in field order, for everything that checks, lists or shows options: this module's
checks, the server's ``GET /api/rules`` (whose answer the browser builds its forms
from) and the score sheet's option list.
"""

from __future__ import annotations

from dataclasses import Field, asdict, dataclass, field, fields, replace
from typing import Any, TypeVar

__all__ = ["OPTIONS", "PRESETS", "Option", "Rules", "RulesError", "Value", "option", "preset"]


class RulesError(ValueError):
    """An unknown option or a value the option does not allow."""


Value = int | str | bool
"""The value of one option: a whole number, a word, or on/off."""

_V = TypeVar("_V", bound=Value)
_DECLARED = "nertz.option"
"""The key of an option's declaration in its field's metadata."""


@dataclass(frozen=True, slots=True)
class _Declared:
    """What ``option`` records beside the field's own name, type and default."""

    allowed: tuple[Value, ...] | range
    text: str
    rule: str
    help: str
    sheet: bool
    network: bool


def option(
    default: _V,
    allowed: tuple[_V, ...] | range,
    text: str,
    rule: str,
    help: str,
    *,
    sheet: bool = False,
    network: bool = False,
) -> Any:
    """Declare a field of ``Rules`` as a table option.

    ``allowed``: every value, in the order a form offers them (the default first), or a
    ``range`` of whole numbers; ``text``: those values in a few words, quoted by error
    messages ("3 or 1"); ``rule``: the rule it implements ("R21"); ``help``: one plain
    sentence a player reads; ``sheet``: whether a score sheet for real cards uses it
    (it changes the scores, or the counts a hand may have); ``network``: whether only a
    table over a network uses it (the simulator has no delays and leaves it out of its
    reports, whose stored results then still reproduce).

    It returns the field (typed ``Any``: a compiled module, mypyc, checks a returned
    value against its declared type, and a field is not a ``_V``); a test checks each
    field's annotation against its default's type.
    """
    declared = _Declared(allowed, text, rule, help, sheet, network)
    return field(default=default, metadata={_DECLARED: declared})


@dataclass(frozen=True, slots=True)
class Rules:
    """Every table option of RULES.md, defaults first (the ``standard`` preset)."""

    draw: int = option(
        3,
        allowed=(3, 1),
        text="3 or 1",
        rule="R21",
        help="How many cards you turn from your stock at a time. 1 is easier.",
    )
    nertz_pile: int = option(
        13,
        allowed=(13, 12, 11),
        text="13, 12 or 11",
        rule="R4",
        help="Cards dealt to each Nertz pile. A shorter pile makes shorter hands.",
        sheet=True,
    )
    penalty: int = option(
        2,
        allowed=(2, 1),
        text="2 or 1",
        rule="R30",
        help="Points lost for each card left in your Nertz pile when the hand ends.",
        sheet=True,
    )
    caller_bonus: int = option(
        0,
        allowed=range(0, 51),
        text="0 to 50; 0, 10 and 25 are common",
        rule="R27",
        help="Extra points for the player who calls Nertz (0 = no bonus).",
        sheet=True,
    )
    target: int = option(
        100,
        allowed=range(1, 10001),
        text="1 to 10000",
        rule="R32",
        help="In a race, the match ends after a hand in which someone reaches this total.",
        sheet=True,
    )
    match: str = option(
        "race",
        allowed=("race", "single", "rounds", "gap"),
        text="race, single, rounds or gap",
        rule="R32",
        help="race: first past the target; single: one hand; rounds: win hands (rounds_to_win);"
        " gap: ends when the leader is gap_to_win ahead of the last.",
        sheet=True,
    )
    rounds_to_win: int = option(
        5,
        allowed=range(1, 51),
        text="1 to 50",
        rule="R32",
        help="match=rounds: hands a player must win to win the match.",
        sheet=True,
    )
    gap_to_win: int = option(
        100,
        allowed=range(1, 10001),
        text="1 to 10000",
        rule="R32",
        help="match=gap: the match ends when highest minus lowest total reaches this.",
        sheet=True,
    )
    tie_break: str = option(
        "share",
        allowed=("share", "caller"),
        text="share or caller",
        rule="R32",
        help="Equal highest totals share the win, or the caller of the last hand wins among them.",
        sheet=True,
    )
    jokers: bool = option(
        False,
        allowed=(False, True),
        text="on or off",
        rule="R41",
        help="Two jokers per deck (54 cards, stock 37). A joker stands for any card; to go to the"
        " middle it is announced as a card first.",
        sheet=True,  # 54 cards a deck: the counts a hand may have
    )
    partnerships: bool = option(
        False,
        allowed=(False, True),
        text="on or off",
        rule="R40",
        help="Two people share each seat: one layout, one score; both play its cards (an even"
        " number of people; a bot can be a partner).",
    )
    duplicate: bool = option(
        False,
        allowed=(False, True),
        text="on or off",
        rule="R42",
        help="Every deal is played once per seat, the cards moving on one seat each hand; a"
        " player's duplicate score is their score minus the average of everyone who played the"
        " same cards. The match ends after whole rotations; the best duplicate total wins.",
    )
    tie_window_ms: int = option(
        40,
        allowed=range(0, 1001),
        text="0 to 1000 (0 turns ties off)",
        rule="R16",
        help="Two cards of the same rank reaching one foundation this close together (ms) both"
        " stay: a true tie. 0 turns ties off.",
    )
    fair_races: bool = option(
        True,
        allowed=(True, False),
        text="on or off",
        rule="R16",
        help="A race for a place in the middle goes to the card played first, each player's"
        " network delay measured and allowed for (within its jitter); off: to the card that"
        " reaches the server first.",
        network=True,
    )
    landing_ms: int = option(
        250,
        allowed=range(0, 5001),
        text="0 to 5000",
        rule="R28",
        help="After a call, plays arriving within this many ms still land.",
    )
    idle_rotate_s: int = option(
        30,
        allowed=range(0, 601),
        text="0 to 600 (0 turns the idle rotation off)",
        rule="R25",
        help="Seconds with no card moving anywhere before the table rotates (0 = off).",
    )
    max_rotations: int = option(
        1,
        allowed=range(0, 11),
        text="0 to 10",
        rule="R26",
        help="Rotations per blocked spell; after that a stuck table ends the hand with no call.",
    )
    joker_announce_ms: int = option(
        1500,
        allowed=range(0, 10001),
        text="0 to 10000",
        rule="R41",
        help="How long a joker's announcement stands open (jokers only).",
    )

    def __post_init__(self) -> None:
        for o in OPTIONS.values():
            o.check(getattr(self, o.name))
        if self.duplicate and self.match == "gap":
            # R45: a duplicate match ends after whole rotations; a gap between equal
            # players' duplicate totals, which stay near zero, may never come.
            raise RulesError(
                "option 'duplicate' cannot be on with match 'gap' (R45): duplicate totals"
                " stay near each other; choose match race, single or rounds"
            )

    def __reduce__(self) -> tuple[type[Rules], tuple[Any, ...]]:
        # Pickled to the simulator's worker processes: rebuilt through __init__, since
        # the compiled (mypyc) frozen class refuses the attribute-by-attribute default.
        return (Rules, tuple(getattr(self, f.name) for f in fields(Rules)))

    def with_options(self, **changes: Any) -> Rules:
        """A copy with some options changed; refuses unknown names and bad values."""
        unknown = sorted(set(changes) - set(OPTIONS))
        if unknown:
            raise RulesError(f"unknown option {unknown[0]!r}; options are: {', '.join(OPTIONS)}")
        # Checked before the copy is made: compiled (mypyc), the constructor would refuse
        # a value of the wrong type with a TypeError that names no option.
        for o in OPTIONS.values():
            if o.name in changes:
                o.check(changes[o.name])
        return replace(self, **changes)

    def with_text(self, changes: dict[str, str]) -> Rules:
        """A copy with options given as text (``{"draw": "1", "jokers": "on"}``)."""
        typed: dict[str, Any] = {}
        for name, raw in changes.items():
            if name not in OPTIONS:
                raise RulesError(f"unknown option {name!r}; options are: {', '.join(OPTIONS)}")
            typed[name] = OPTIONS[name].parse(str(raw))
        return self.with_options(**typed)

    def as_dict(self) -> dict[str, Any]:
        """All options, JSON-ready."""
        return asdict(self)

    def changed(self) -> dict[str, Any]:
        """Only the options that differ from the defaults."""
        base = Rules()
        return {k: v for k, v in self.as_dict().items() if getattr(base, k) != v}


_ON = ("on", "true", "yes", "1")
_OFF = ("off", "false", "no", "0")


@dataclass(frozen=True, slots=True)
class Option:
    """One table option as declared on ``Rules`` (see ``option``)."""

    name: str
    default: Value
    allowed: tuple[Value, ...] | range
    text: str
    rule: str
    help: str
    sheet: bool
    network: bool

    @property
    def kind(self) -> str:
        """``int``, ``str`` or ``bool``: the type of its values."""
        return type(self.default).__name__

    @property
    def label(self) -> str:
        """Its name as a form shows it: ``caller bonus``."""
        return self.name.replace("_", " ")

    def allows(self, value: object) -> bool:
        """Whether ``value`` is of the option's type and among its allowed values."""
        if isinstance(value, bool) or isinstance(self.default, bool):
            typed = isinstance(value, bool) and isinstance(self.default, bool)
        else:
            typed = isinstance(value, type(self.default))
        return typed and value in self.allowed

    def check(self, value: object) -> None:
        """``RulesError`` naming the option and its allowed values unless it ``allows``
        ``value``."""
        if not self.allows(value):
            raise RulesError(f"option {self.name!r} must be {self.text}, not {value!r}")

    def parse(self, raw: str) -> Value:
        """The value a text stands for (``"on"``, ``"12"``, ``"Rounds"``); not checked
        against the allowed values (``Rules`` does that) but refused if not of its type."""
        text = raw.strip().lower()
        if isinstance(self.default, bool):
            if text not in _ON + _OFF:
                raise RulesError(f"option {self.name!r} must be on or off, not {raw!r}")
            return text in _ON
        if isinstance(self.default, int):
            try:
                return int(text)
            except ValueError:
                raise RulesError(
                    f"option {self.name!r} must be a whole number ({self.text}), not {raw!r}"
                ) from None
        return text

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, as ``GET /api/rules`` serves it: a list of ``values`` (default
        first) or a ``min`` and ``max``."""
        choices: dict[str, Any] = (
            {"min": self.allowed.start, "max": self.allowed.stop - 1}
            if isinstance(self.allowed, range)
            else {"values": list(self.allowed)}
        )
        return {
            "name": self.name,
            "type": self.kind,
            "default": self.default,
            **choices,
            "allowed": self.text,
            "label": self.label,
            "help": self.help,
            "rule": self.rule,
            "sheet": self.sheet,
        }


def _declared(rules_field: Field[Any]) -> Option:
    declared = rules_field.metadata[_DECLARED]
    default = rules_field.default
    assert isinstance(declared, _Declared) and isinstance(default, int | str), rules_field.name
    return Option(
        rules_field.name,
        default,
        declared.allowed,
        declared.text,
        declared.rule,
        declared.help,
        declared.sheet,
        declared.network,
    )


OPTIONS: dict[str, Option] = {f.name: _declared(f) for f in fields(Rules)}
"""Every option of ``Rules``, by name, in field order."""


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
