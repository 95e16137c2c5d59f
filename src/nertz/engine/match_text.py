"""A whole match as text: its rules, who played each seat, and each hand's deal and
timed inputs in the engine's own notation (R8-R33). ``docs/notation.md`` is the spec.

::

    nertz-match 1
    title "Table K7QP, match 1"
    rules draw=3 nertz_pile=13 penalty=2 caller_bonus=0 target=100 match=race ...
    seat 1 "Ann"
    seat 2 "Ada" bot=expert:racer
    hand 1 seed 5181911387562281477
    1200 GO
    1731 2 T
    1904 1 N>F
    ...

A hand is dealt from its seed (``deal``, R33) or written out (``hand 2 deal`` then a
``layout`` line per seat in ``Deal.from_layouts`` form and any ``middle`` lines). Each
input is what ``Hand.log`` holds: the time in milliseconds the engine was handed it, the
seat (1-based here, as players count them) and the move (``moves.py``), or the table's
own ``GO`` (R8) and ``TICK`` (time passing: R25, R26, R28, R41). ``replay`` rebuilds each
hand from them, exactly.

``MatchText.parse(text)`` reads it into frozen values and, by default, replays every
hand, so a move the engine refuses is found where it is written; ``str(match)`` writes
it back: ``MatchText.parse(str(m)) == m``, and ``str(MatchText.parse(t)) == t`` for text
in the form ``str`` writes (blank lines and ``#`` comments aside, which are dropped).
Anything wrong is a ``NotationError`` naming the line and what is wrong; the text, its
lines, its hands and their inputs are bounded (``MAX_CHARS`` ...), so a huge file is
refused before it costs anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .cards import MAX_SEATS
from .hand import Hand, LogEntry
from .layout import Deal, deal
from .match import Match
from .moves import Move
from .replay import apply, replay
from .rules import OPTIONS, Rules, RulesError

__all__ = [
    "MAGIC",
    "MAX_CHARS",
    "MAX_HANDS",
    "MAX_HAND_INPUTS",
    "MAX_INPUTS",
    "MAX_LINE",
    "HandText",
    "MatchText",
    "NotationError",
    "Player",
]

MAGIC: Final = "nertz-match 1"
"""The first line: the notation and its version."""
MAX_CHARS: Final = 16 * 1024 * 1024
"""The longest text read. A 14-hand match of four expert bots is 36 KB; a two-minute
hand of eight people turning their stock every 300 ms some 45 KB."""
MAX_LINE: Final = 2000
"""The longest line: a layout of 54 cards is under 250 characters."""
MAX_HANDS: Final = 1000
"""Hands in one match (50 rounds to win at eight seats is a few hundred)."""
MAX_HAND_INPUTS: Final = 100_000
"""Inputs in one hand: eight people acting three times a second for ten minutes make
some 15,000 (four expert bots make about 250 a hand)."""
MAX_INPUTS: Final = 1_000_000
"""Inputs in one match, all hands together: read and replayed at some 20 us each, at
most about 20 s."""
MAX_MS: Final = 10**12
"""The latest time an input may have (some 31 years of a table's clock)."""
MAX_SEED: Final = 2**64 - 1
MAX_HAND_NUMBER: Final = 10**9
MAX_NAME: Final = 64
"""A player's name, as the store keeps it."""
MAX_TITLE: Final = 200
MAX_BOT: Final = 40
_BOT_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789:_-")
_HEX: Final = frozenset("0123456789abcdefABCDEF")
_TABLE_INPUTS: Final = ("GO", "TICK")
"""The table's own inputs (seat -1 in ``Hand.log``): Go (R8) and time passing."""


class NotationError(ValueError):
    """Text that is not a match: ``line`` (1-based; None for the text as a whole) and
    ``reason``, a sentence saying what is wrong."""

    def __init__(self, line: int | None, reason: str) -> None:
        super().__init__(reason if line is None else f"line {line}: {reason}")
        self.line = line
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Player:
    """Who held one place of a seat: a name (None: nobody's) and the spec of the bot
    that played it (``expert:racer``), if a bot did. A partnership seat (R40) has two."""

    name: str | None = None
    bot: str | None = None

    def __post_init__(self) -> None:
        if self.name is not None and (problem := _name_problem(self.name, MAX_NAME)):
            raise ValueError(problem)
        if self.bot is not None and (problem := _bot_problem(self.bot)):
            raise ValueError(problem)

    def __str__(self) -> str:
        name = "-" if self.name is None else quote(self.name)
        return name if self.bot is None else f"{name} bot={self.bot}"


@dataclass(frozen=True, slots=True)
class HandText:
    """One hand: its number at the table (hands are numbered across a table's series),
    its deal (dealt from ``deal.seed``, or written out) and its inputs in order, as
    ``Hand.log`` holds them (seat -1 for the table's ``GO`` and ``TICK``)."""

    number: int
    deal: Deal
    inputs: tuple[LogEntry, ...] = ()

    def __post_init__(self) -> None:
        if not 1 <= self.number <= MAX_HAND_NUMBER:
            raise ValueError(f"a hand's number is 1 to {MAX_HAND_NUMBER}, not {self.number}")
        if self.deal.seed is not None:
            if not 0 <= self.deal.seed <= MAX_SEED:
                raise ValueError(f"a seed is 0 to {MAX_SEED}, not {self.deal.seed}")
            return
        # A written deal is kept as its text reads back, so that the text round-trips.
        middle = tuple(" ".join(c.tagged for c in pile) for pile in self.deal.build_middle())
        written = Deal.from_layouts(self.deal.layouts, middle)
        if written.starts != self.deal.starts:
            raise ValueError(f"hand {self.number}: its deal does not read back from its layouts")
        if middle != self.deal.middle:
            object.__setattr__(self, "deal", written)

    def replay(self, rules: Rules) -> Hand:
        """The hand rebuilt from its deal and inputs (``replay``): ``ValueError`` if an
        input is refused."""
        return replay(self.deal, rules, self.inputs)


@dataclass(frozen=True, slots=True)
class MatchText:
    """A match in the notation: its rules (R32 and every table option), who played
    each seat (one ``Player`` a seat, two at a partnership table, R40), its hands in
    order and a title. ``str`` writes it, ``parse`` reads it."""

    rules: Rules
    seats: tuple[tuple[Player, ...], ...]
    hands: tuple[HandText, ...] = ()
    title: str | None = None

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem is not None:
            raise ValueError(problem)

    def _problem(self) -> str | None:
        """What makes this no match the notation can write, if anything."""
        seats = len(self.seats)
        if not 1 <= seats <= MAX_SEATS:
            return f"a match has 1 to {MAX_SEATS} seats, not {seats}"
        try:
            Match(seats, self.rules)  # a match these rules can decide (match=gap: two seats)
        except ValueError as error:
            return str(error)
        places = 2 if self.rules.partnerships else 1
        for number, players in enumerate(self.seats, 1):
            if len(players) != places:
                return _places_problem(number, len(players), places)
        if self.title is not None and (problem := _name_problem(self.title, MAX_TITLE)):
            return problem
        if len(self.hands) > MAX_HANDS:
            return f"a match has at most {MAX_HANDS} hands, not {len(self.hands)}"
        inputs = sum(len(h.inputs) for h in self.hands)
        if inputs > MAX_INPUTS:
            return f"a match has at most {MAX_INPUTS} inputs, not {inputs}"
        last = 0
        for hand in self.hands:
            if hand.number <= last:
                return f"hand {hand.number} comes after hand {last}: hands go in order"
            last = hand.number
            if len(hand.inputs) > MAX_HAND_INPUTS:
                return (
                    f"hand {hand.number} has {len(hand.inputs)} inputs; at most {MAX_HAND_INPUTS}"
                )
            if (problem := _deal_problem(hand, seats, self.rules)) is not None:
                return problem
            before = 0
            for at_ms, seat, text in hand.inputs:
                problem = _input_problem(at_ms, seat, text, seats, before)
                if problem is not None:
                    return f"hand {hand.number}: {problem}"
                before = at_ms
        return None

    def __str__(self) -> str:
        out = [MAGIC]
        if self.title is not None:
            out.append(f"title {quote(self.title)}")
        options = (f"{o.name}={_value(getattr(self.rules, o.name))}" for o in OPTIONS.values())
        out.append("rules " + " ".join(options))
        for number, players in enumerate(self.seats, 1):
            out.append(f"seat {number} " + " & ".join(map(str, players)))
        for hand in self.hands:
            dealt = hand.deal
            if dealt.seed is not None:
                out.append(f"hand {hand.number} seed {dealt.seed}")
            else:
                out.append(f"hand {hand.number} deal")
                out += [f"layout {n} {text}" for n, text in enumerate(dealt.layouts, 1)]
                out += [f"middle {pile}" for pile in dealt.middle]
            for at_ms, seat, text in hand.inputs:
                out.append(f"{at_ms} {text}" if seat < 0 else f"{at_ms} {seat + 1} {text}")
        return "\n".join(out) + "\n"

    @staticmethod
    def parse(text: str, *, check: bool = True) -> MatchText:
        """Read a match; with ``check``, replay every hand too (``replay``), so that an
        input the engine refuses is named by its line. ``NotationError`` says what is
        wrong, and where."""
        return _Reader(text).match(check)


def quote(text: str) -> str:
    """``text`` as a quoted string of the notation (JSON's form): ``"`` and ``\\``
    escaped with a backslash, control characters as ``\\u00XX``."""
    out = ['"']
    for ch in text:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _value(value: int | str | bool) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _name_problem(text: str, longest: int) -> str | None:
    if not 0 < len(text) <= longest:
        return f"a name or title is 1 to {longest} characters, not {len(text)}"
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        return "a name or title holds half of a character (a lone surrogate)"
    return None


def _bot_problem(spec: str) -> str | None:
    if 0 < len(spec) <= MAX_BOT and set(spec) <= _BOT_CHARS:
        return None
    return (
        f"a bot is written as its level and style, e.g. bot=expert:racer (up to {MAX_BOT} "
        f"lower-case letters, digits and ':_-'), not {spec!r}"
    )


def _places_problem(seat: int, given: int, places: int) -> str:
    if places == 2:
        return (
            f"seat {seat} has {given} player(s): at a partnership table (R40) a seat has "
            'two, written "Ann" & "Bob" ("-" for a place nobody held)'
        )
    return f"seat {seat} has {given} players: a seat has one (two only with partnerships on)"


def _deal_problem(hand: HandText, seats: int, rules: Rules) -> str | None:
    dealt = hand.deal
    if dealt.seats != seats:
        return f"hand {hand.number} is dealt to {dealt.seats} seats, not the match's {seats}"
    if dealt.seed is not None and deal(seats, rules, dealt.seed) != dealt:
        return f"hand {hand.number}: its cards are not those its seed deals (R33)"
    return None


_CANONICAL: dict[str, bool] = {}
"""Move texts known to be in the engine's own form (``Move.parse(t).text == t``): a
hand repeats a few dozen of them hundreds of times."""


def _move_problem(text: str) -> str | None:
    if text in _CANONICAL:
        return None
    try:
        written = Move.parse(text).text
    except ValueError as error:
        return str(error)
    if written != text:
        return f"the move {text!r} is written {written!r}"
    _CANONICAL[text] = True
    return None


def _input_problem(at_ms: int, seat: int, text: str, seats: int, before: int) -> str | None:
    if not before <= at_ms <= MAX_MS:
        if at_ms < before:
            return f"an input at {at_ms} ms comes after one at {before} ms: time goes forward"
        return f"an input's time is 0 to {MAX_MS} ms, not {at_ms}"
    if seat < 0:
        if seat == -1 and text in _TABLE_INPUTS:
            return None
        return f"the table's inputs are GO and TICK, not {text!r}"
    if seat >= seats:
        return f"there is no seat {seat + 1} (the match has {seats})"
    return _move_problem(text)


class _Reader:
    """One pass over the lines of a text, keeping the line number of what it reads."""

    def __init__(self, text: str) -> None:
        if len(text) > MAX_CHARS:
            raise NotationError(
                None, f"the text is {len(text)} characters long; a match is at most {MAX_CHARS}"
            )
        self.lines = text.split("\n")
        self.at = 0
        """The index of the next line to read."""
        self.number = 0
        """The line number of the last line read (1-based)."""

    def error(self, reason: str) -> NotationError:
        return NotationError(self.number, reason)

    def peek(self) -> str | None:
        """The next line that is not blank or a comment, not consumed; None at the end."""
        while self.at < len(self.lines):
            line = self.lines[self.at].rstrip("\r")
            if len(line) > MAX_LINE:
                self.number = self.at + 1
                raise self.error(f"the line is {len(line)} characters long; at most {MAX_LINE}")
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                return stripped
            self.at += 1
        return None

    def take(self) -> str:
        line = self.peek()
        assert line is not None
        self.at += 1
        self.number = self.at
        return line

    def starts(self, word: str) -> bool:
        line = self.peek()
        return line is not None and (line == word or line.startswith(word + " "))

    def match(self, check: bool) -> MatchText:
        first = self.peek()
        if first is None:
            raise NotationError(None, f"the text is empty; a match begins {MAGIC!r}")
        line = self.take()
        if line != MAGIC:
            if line.startswith("nertz-match "):
                raise self.error(f"this is {line!r}; this reader knows {MAGIC!r}")
            raise self.error(f"a match begins {MAGIC!r}, not {_clip(line)!r}")
        title = self.title() if self.starts("title") else None
        rules = self.rules() if self.starts("rules") else Rules()
        seats: list[tuple[Player, ...]] = []
        while self.starts("seat"):
            seats.append(self.seat(len(seats) + 1, rules))
        if not seats:
            self.take_or_end("a 'seat' line (seat 1 \"Ann\")")
        if len(seats) > MAX_SEATS:
            raise self.error(f"a match has 1 to {MAX_SEATS} seats, not {len(seats)}")
        hands: list[HandText] = []
        inputs = 0
        while self.peek() is not None:
            if not self.starts("hand"):
                line = self.take()
                raise self.error(f"expected a 'hand' line, not {_clip(line)!r}")
            if len(hands) == MAX_HANDS:
                self.take()
                raise self.error(f"a match has at most {MAX_HANDS} hands")
            hand = self.hand(rules, len(seats), hands[-1].number if hands else 0, inputs, check)
            inputs += len(hand.inputs)
            hands.append(hand)
        try:
            return MatchText(rules, tuple(seats), tuple(hands), title)
        except ValueError as error:  # every part was checked as it was read
            raise NotationError(None, str(error)) from None

    def take_or_end(self, what: str) -> None:
        line = self.peek()
        if line is None:
            raise self.error(f"the text ends where {what} was expected")
        self.take()
        raise self.error(f"expected {what}, not {_clip(line)!r}")

    def title(self) -> str:
        words = self.words(self.take())
        if len(words) != 2 or not words[1][0]:
            raise self.error('a title is one quoted string: title "Friday night"')
        return self.name(words[1][1], MAX_TITLE)

    def rules(self) -> Rules:
        words = self.words(self.take())
        given: dict[str, str] = {}
        for quoted, word in words[1:]:
            name, sep, value = word.partition("=")
            if quoted or not sep:
                raise self.error(f"an option is written name=value (draw=1), not {_clip(word)!r}")
            if name in given:
                raise self.error(f"option {name!r} is given twice")
            given[name] = value
        try:
            return Rules().with_text(given)
        except RulesError as error:
            raise self.error(str(error)) from None

    def seat(self, number: int, rules: Rules) -> tuple[Player, ...]:
        words = self.words(self.take())
        if len(words) < 3 or words[1] != (False, str(number)):
            raise self.error(f'expected seat {number} and who played it: seat {number} "Ann"')
        players: list[Player] = []
        rest = words[2:]
        while True:
            if not rest or not (rest[0][0] or rest[0][1] == "-"):
                raise self.error('a player is a quoted name ("Ann") or "-" for nobody')
            name = self.name(rest[0][1], MAX_NAME) if rest[0][0] else None
            bot = None
            if len(rest) > 1 and not rest[1][0] and rest[1][1].startswith("bot="):
                bot = rest[1][1][4:]
                if (problem := _bot_problem(bot)) is not None:
                    raise self.error(problem)
                rest = rest[1:]
            players.append(Player(name, bot))
            rest = rest[1:]
            if not rest:
                break
            if rest[0] != (False, "&") or len(rest) == 1:
                raise self.error(
                    f"after a player comes bot=level:style, or & and a partner (R40), not "
                    f"{_clip(rest[0][1])!r}"
                )
            rest = rest[1:]
        places = 2 if rules.partnerships else 1
        if len(players) != places:
            raise self.error(_places_problem(number, len(players), places))
        return tuple(players)

    def name(self, text: str, longest: int) -> str:
        problem = _name_problem(text, longest)
        if problem is not None:
            raise self.error(problem)
        return text

    def hand(self, rules: Rules, seats: int, last: int, inputs: int, check: bool) -> HandText:
        parts = self.take().split()
        start = self.number
        shape = "hand <number> seed <seed>, or hand <number> deal"
        if len(parts) not in (3, 4) or not _digits(parts[1]):
            raise self.error(f"a hand begins {shape}")
        number = int(parts[1])
        if number <= last:
            raise self.error(f"hand {number} comes after hand {last}: hands go in order")
        if number > MAX_HAND_NUMBER:
            raise self.error(f"a hand's number is 1 to {MAX_HAND_NUMBER}, not {number}")
        if parts[2] == "seed" and len(parts) == 4 and _digits(parts[3]):
            seed = int(parts[3])
            if seed > MAX_SEED:
                raise self.error(f"a seed is 0 to {MAX_SEED}, not {seed}")
            dealt = deal(seats, rules, seed)
        elif parts[2:] == ["deal"]:
            dealt = self.written_deal(seats)
        else:
            raise self.error(f"a hand begins {shape}")
        log: list[LogEntry] = []
        lines: list[int] = []
        before = 0
        while (line := self.peek()) is not None and not self.starts("hand"):
            self.take()
            if len(log) == MAX_HAND_INPUTS:
                raise self.error(f"hand {number} has more than {MAX_HAND_INPUTS} inputs")
            if inputs + len(log) == MAX_INPUTS:
                raise self.error(f"the match has more than {MAX_INPUTS} inputs")
            entry = self.input(line, seats, before)
            before = entry[0]
            log.append(entry)
            lines.append(self.number)
        try:
            hand = HandText(number, dealt, tuple(log))
        except ValueError as error:
            raise NotationError(start, str(error)) from None
        if check:
            self.replay(hand, rules, start, lines)
        return hand

    def written_deal(self, seats: int) -> Deal:
        layouts: list[str] = []
        for seat in range(1, seats + 1):
            if not self.starts("layout"):
                self.take_or_end(f"the layout of seat {seat}: layout {seat} nertz: ...; work: ...")
            parts = self.take().split(None, 2)
            if len(parts) != 3 or parts[1] != str(seat):
                raise self.error(f"expected layout {seat} and its cards")
            layouts.append(parts[2])
        middle: list[str] = []
        while self.starts("middle"):
            parts = self.take().split(None, 1)
            if len(parts) != 2:
                raise self.error("a middle line is a foundation's cards: middle AH@0 2H@1")
            middle.append(parts[1])
        try:
            return Deal.from_layouts(layouts, middle)
        except ValueError as error:
            raise self.error(f"the deal: {error}") from None

    def input(self, line: str, seats: int, before: int) -> LogEntry:
        parts = line.split()
        if len(parts) == 3 and _digits(parts[1]):
            at, seat, text = parts[0], int(parts[1]) - 1, parts[2]
        elif len(parts) == 2:
            at, seat, text = parts[0], -1, parts[1]
        else:
            raise self.error(
                f"an input is <ms> <seat> <move> (1904 2 N>F) or <ms> GO|TICK, not {_clip(line)!r}"
            )
        if not _digits(at):
            raise self.error(f"an input begins with its time in whole ms, not {_clip(at)!r}")
        at_ms = int(at)
        if seat < 0 and text not in _TABLE_INPUTS:
            raise self.error(f"an input is <ms> <seat> <move> or <ms> GO|TICK, not {_clip(line)!r}")
        problem = _input_problem(at_ms, seat, text, seats, before)
        if problem is not None:
            raise self.error(problem)
        return (at_ms, seat, text)

    def replay(self, hand: HandText, rules: Rules, start: int, lines: list[int]) -> None:
        """Replay ``hand``, naming the line of the first input the engine refuses."""
        try:
            state = Hand(hand.deal, rules)
        except ValueError as error:
            raise NotationError(start, f"hand {hand.number}: {error}") from None
        for entry, line in zip(hand.inputs, lines, strict=True):
            outcome = apply(state, entry)
            if not outcome.ok:
                who = "the table" if entry[1] < 0 else f"seat {entry[1] + 1}"
                raise NotationError(
                    line, f"hand {hand.number}: {who}'s {entry[2]} is refused: {outcome.reason}"
                )

    def words(self, line: str) -> list[tuple[bool, str]]:
        """A header line's words: each ``(quoted, text)``, quoted strings unescaped."""
        out: list[tuple[bool, str]] = []
        i, n = 0, len(line)
        while i < n:
            if line[i].isspace():
                i += 1
            elif line[i] == '"':
                text, i = self.string(line, i + 1)
                out.append((True, text))
            else:
                j = i
                while j < n and not line[j].isspace() and line[j] != '"':
                    j += 1
                out.append((False, line[i:j]))
                i = j
        return out

    def string(self, line: str, i: int) -> tuple[str, int]:
        """The quoted string whose text begins at ``line[i]``, and the index after it."""
        out: list[str] = []
        n = len(line)
        while i < n:
            ch = line[i]
            if ch == '"':
                return "".join(out), i + 1
            if ch == "\\":
                escape = line[i + 1 : i + 2]
                if escape in ('"', "\\"):
                    out.append(escape)
                    i += 2
                    continue
                code = line[i + 2 : i + 6]
                if escape == "u" and len(code) == 4 and all(c in _HEX for c in code):
                    out.append(chr(int(code, 16)))
                    i += 6
                    continue
                raise self.error('in a quoted string a backslash comes before ", \\ or uXXXX')
            if ord(ch) < 0x20:
                raise self.error("a quoted string holds a control character; write it \\u00XX")
            out.append(ch)
            i += 1
        raise self.error('a quoted string is not closed with "')


def _digits(text: str) -> bool:
    """A whole number in ASCII digits, short enough to read at once."""
    return 0 < len(text) <= 20 and text.isascii() and text.isdigit()


def _clip(text: str) -> str:
    """A piece of bad input short enough to quote in an error."""
    return text if len(text) <= 60 else text[:57] + "..."
