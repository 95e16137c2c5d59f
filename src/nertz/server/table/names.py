"""People's names at a table: what makes two names the same, and which are the bots'.

Two names are the same when they look alike: ``name_key`` folds compatibility forms
(NFKC: fullwidth ``Ａｎｎ`` is ``Ann``), case (``ann``) and confusable characters (the
Unicode TR39 confusables data, as the ``confusable-homoglyphs`` package ships it:
Cyrillic ``Аnn`` is ``Ann``) and letters that read as one letter side by side
(``rn`` is ``m``, ``cl`` is ``d``, ``vv`` is ``w``: ``MULTI_LETTER``). A table refuses a
name whose key another place already has, and names that read as a bot's: ``bot
expert``, and every name a bot can be given (``nertz.bots.BOT_NAMES``: ``Ben`` at a
table is always a bot). Those are the bots'.
"""

from __future__ import annotations

import functools
import unicodedata

from confusable_homoglyphs import confusables  # type: ignore[import-untyped]

from nertz.bots import BOT_NAMES

__all__ = ["BOT_PREFIX", "MULTI_LETTER", "bot_given_name", "is_bot_name", "name_key"]

BOT_PREFIX = "bot"
"""A bot's place is named ``bot SPEC`` (``bot expert``); no person's name reads so."""


def _rank(char: str) -> tuple[int, str]:
    """Which character of a look-alike class stands for it: an ASCII letter first, then
    an ASCII digit or sign, then the lowest code point."""
    if char.isascii() and char.isalpha():
        return (0, char)
    if char.isascii():
        return (1, char)
    return (2, char)


@functools.cache
def _prototypes() -> dict[str, str]:
    """Every single character in the confusables data -> the one standing for its class
    (classes joined transitively: TR39 maps ``1``, ``I`` and ``l`` together)."""
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        while parent.setdefault(c, c) != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for key, glyphs in confusables.confusables_data.items():
        if len(key) != 1:
            continue
        for glyph in glyphs:
            other = glyph["c"].strip("\u200e\u200f")
            if len(other) == 1:
                a, b = find(key), find(other)
                if a != b:
                    parent[max(a, b, key=_rank)] = min(a, b, key=_rank)
    return {c: find(c) for c in parent}


MULTI_LETTER = (("m", "rn"), ("d", "cl"), ("w", "vv"))
"""One letter that two side by side read as, in many fonts: ``Arn`` beside ``Am``. A
key spells the one letter as the two (as TR39's skeleton does for ``m``), so the two
written either way have one key however they run on (``vvv`` is ``wv`` and ``vw``)."""


@functools.cache
def _multi_letter() -> tuple[tuple[str, str], ...]:
    """``MULTI_LETTER`` in the key's own letters (``cl`` is ``ci`` once ``l`` stands
    for its class, with ``I`` and ``1``)."""
    return tuple((_fold(one), _fold(two)) for one, two in MULTI_LETTER)


def _fold(text: str) -> str:
    """NFKC, case-folded, each confusable character its class's stand-in: before
    case-folding (a capital Cyrillic ``В`` is ``B``, its small ``в`` is no ``b``) and
    after it (a stand-in may fold again, ``I`` to ``i``)."""
    table = _prototypes()
    text = "".join(table.get(c, c) for c in unicodedata.normalize("NFKC", text))
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(table.get(c, c) for c in text)
    text = unicodedata.normalize("NFKC", text).casefold()
    return "".join(table.get(c, c) for c in text)


def name_key(name: str) -> str:
    """What a name looks like, for telling names apart: NFKC, case-folded, each
    confusable character replaced by its class's stand-in (TR39), each letter that two
    letters read as spelled as the two (``MULTI_LETTER``), spaces collapsed.

    >>> name_key("Ann") == name_key("ann") == name_key("\\u0410nn") == name_key("Ａｎｎ")
    True
    >>> name_key("Arn") == name_key("Am"), name_key("Ann") == name_key("Bob")
    (True, False)
    """
    text = _fold(name)
    for one, two in _multi_letter():
        text = text.replace(one, two)
    return " ".join(text.split())


def is_bot_name(name: str) -> bool:
    """Whether ``name`` reads as a bot's spec (``bot``, ``Bot expert``, ``BOT``...).

    >>> is_bot_name("bot expert"), is_bot_name("Bot"), is_bot_name("Botham")
    (True, True, False)
    """
    key, bot = name_key(name), name_key(BOT_PREFIX)
    return key == bot or key.startswith(bot + " ")


@functools.cache
def _bot_keys() -> dict[str, str]:
    return {name_key(given): given for given in BOT_NAMES}


def bot_given_name(name: str) -> str | None:
    """The bots' given name (``BOT_NAMES``) that ``name`` looks like, if any: a person
    is never called like a bot the server can seat, whichever seat it takes.

    >>> bot_given_name("ben"), bot_given_name("\\u0412en"), bot_given_name("Benedict")
    ('Ben', 'Ben', None)
    """
    return _bot_keys().get(name_key(name))
