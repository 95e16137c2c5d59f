"""People's names at a table: what makes two names the same, and which are the bots'.

Two names are the same when they look alike: ``name_key`` folds compatibility forms
(NFKC: fullwidth ``Ａｎｎ`` is ``Ann``), case (``ann``) and confusable characters (the
Unicode TR39 confusables data, as the ``confusable-homoglyphs`` package ships it:
Cyrillic ``Аnn`` is ``Ann``). A table refuses a name whose key another place already
has, and names that read as a bot's (``bot expert``): those are the bots'.
"""

from __future__ import annotations

import functools
import unicodedata

from confusable_homoglyphs import confusables  # type: ignore[import-untyped]

__all__ = ["BOT_PREFIX", "is_bot_name", "name_key"]

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


def name_key(name: str) -> str:
    """What a name looks like, for telling names apart: NFKC, case-folded, each
    confusable character replaced by its class's stand-in (TR39), spaces collapsed.

    >>> name_key("Ann") == name_key("ann") == name_key("\\u0410nn") == name_key("Ａｎｎ")
    True
    >>> name_key("Ann") == name_key("Bob")
    False
    """
    text = unicodedata.normalize("NFKC", name).casefold()
    table = _prototypes()
    text = "".join(table.get(c, c) for c in text)
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(table.get(c, c) for c in text)
    return " ".join(text.split())


def is_bot_name(name: str) -> bool:
    """Whether ``name`` reads as a bot's (``bot``, ``Bot expert``, ``BOT``...).

    >>> is_bot_name("bot expert"), is_bot_name("Bot"), is_bot_name("Botham")
    (True, True, False)
    """
    key, bot = name_key(name), name_key(BOT_PREFIX)
    return key == bot or key.startswith(bot + " ")
