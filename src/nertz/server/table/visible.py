"""What a person sees of a text: the characters that show nothing, the ones that turn
the text around, and marks stacked on a letter.

Names (``lobby.check_name``) and chat lines (``chat.py``) are shown to other people;
these are the tricks that make a shown text lie about itself:

* **Invisible characters.** Unicode's default-ignorable code points (zero-width
  spaces and joiners, word joiners, variation selectors, tags, the Hangul fillers
  U+115F, U+1160, U+3164 and U+FFA0, which are letters that draw nothing) and a few
  blank symbols that are not (U+2800 BRAILLE PATTERN BLANK). A name made of them is
  an invisible name; inside a name they make two names that look the same.
* **Direction controls.** The embeddings, overrides and isolates (U+202A..U+202E,
  U+2066..U+2069) reorder what follows them: ``gg`` + RLO + ``txt.exe`` reads as
  ``ggexe.txt``.
* **Stacked marks.** Combining marks (categories Mn, Me) stack on the letter before
  them without bound: 199 of them on one letter draw over the lines above and below.
  Real writing uses a few (Vietnamese, Hebrew points, Thai tones: at most three on a
  letter once composed, NFC); ``MAX_MARKS`` is the bound.
"""

from __future__ import annotations

import unicodedata

__all__ = [
    "BIDI_CONTROLS",
    "MAX_MARKS",
    "bidi_control",
    "codepoint",
    "invisible",
    "is_blank",
    "most_marks",
]

# Default_Ignorable_Code_Point (Unicode 15, DerivedCoreProperties.txt), as ranges.
_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_BLANK_SYMBOLS = frozenset("\u2800")
"""Drawn as nothing though not ignorable: the blank Braille pattern."""

BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Embeddings, overrides and isolates: they reorder the text after them."""

MAX_MARKS = 3
"""The most combining marks one letter may carry (counted once composed, NFC)."""


def invisible(char: str) -> bool:
    """Whether ``char`` draws nothing: default-ignorable (the Hangul fillers among
    them) or a blank symbol.

    >>> invisible("\\u3164"), invisible("\\u200b"), invisible("a"), invisible(" ")
    (True, True, False, False)
    """
    point = ord(char)
    return char in _BLANK_SYMBOLS or any(lo <= point <= hi for lo, hi in _IGNORABLE)


def bidi_control(char: str) -> bool:
    """Whether ``char`` is a direction embedding, override or isolate."""
    return char in BIDI_CONTROLS


def is_blank(text: str) -> bool:
    """Whether ``text`` shows nothing a person can read: only spaces, invisible
    characters, format and control characters and marks with no letter under them.

    >>> is_blank(" \\u3164\\u200b "), is_blank("\\u0301"), is_blank("a\\u200b")
    (True, True, False)
    """
    for char in text:
        if invisible(char) or char.isspace():
            continue
        if unicodedata.category(char) in ("Cc", "Cf", "Mn", "Me", "Zs", "Zl", "Zp"):
            continue
        return False
    return True


def most_marks(text: str) -> int:
    """The most combining marks (Mn, Me) in a row anywhere in ``text``, once composed
    (NFC: a Vietnamese ``ệ`` typed as e + two marks is one letter, no mark).

    >>> most_marks("Vie\\u0323\\u0302t"), most_marks("x" + "\\u0301" * 5)
    (0, 5)
    """
    most = run = 0
    for char in unicodedata.normalize("NFC", text):
        if unicodedata.category(char) in ("Mn", "Me"):
            run += 1
            most = max(most, run)
        else:
            run = 0
    return most


def codepoint(char: str) -> str:
    """A character as a person can be told about it: ``U+3164 HANGUL FILLER``."""
    return f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed')}"
