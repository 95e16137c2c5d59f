"""Talk at the table: chat lines and quick reactions.

A person with a place may write a line of chat (plain text, at most ``CHAT_MAX_CHARS``
characters, at most ``CHAT_BURST`` lines in any ``CHAT_WINDOW_MS``) or send a reaction
(one of ``REACTIONS``, shown on their seat for a moment, at most ``REACTION_BURST`` in
any ``REACTION_WINDOW_MS``); a refusal is an ``error`` with a code and a sentence
(``chat_too_long``, ``chat_too_fast``, ``chat_empty``, ``reaction_too_fast``,
``bad_reaction``). A line must show what it says (``visible.py``): one with no visible
character is ``chat_blank``, one with a direction override or isolate (which turns the
text after it around) ``chat_bidi``, one with more than ``visible.MAX_MARKS`` combining
marks on a letter (drawn over the lines around it) ``chat_marks``. Spectators read the
chat and see the reactions but write nothing (``not_seated``): anyone with the watch
link may watch, and what is said at the table is said by the people playing.

Talk is not play: a chat line is no table event (no version, so it never shifts the
match's event log that restores a hand) but a ``chat`` message of its own, numbered
``n`` at the table. Each line is kept in the store (a ``ChatRecord``) with the match
it was said in, and goes out only once it is there, like every message of the table;
a restored table reads back its last ``RECENT_LINES`` lines, which every ``state``
carries and a resuming page is sent again. A reaction is momentary, like a partner's
hold: sent once, never stored.

Nothing private is in it: a line carries the seat, the place's normalised name and
what the person wrote; the server adds nothing of the hand.

``Chat`` is the ``Table``'s collaborator that does this; the limits count in table time.
"""

from __future__ import annotations

import collections
import math
import unicodedata
from collections.abc import Sequence

from nertz.server.chat_wire import Chat as ChatMessage
from nertz.server.chat_wire import ChatLine, ChatMsg, React, ReactionMsg
from nertz.server.protocol import ClientMessage, encode
from nertz.server.table.context import Place, TableContext
from nertz.server.table.records import ChatRecord, Record
from nertz.server.table.visible import MAX_MARKS, bidi_control, codepoint, is_blank, most_marks

__all__ = [
    "CHAT_BURST",
    "CHAT_MAX_CHARS",
    "CHAT_WINDOW_MS",
    "REACTIONS",
    "REACTION_BURST",
    "REACTION_WINDOW_MS",
    "RECENT_LINES",
    "Chat",
    "clean_text",
    "shows_as_written",
]

RECENT_LINES = 50
"""How many of a table's latest lines a ``state`` carries (and a restored table keeps)."""
CHAT_MAX_CHARS = 200
"""The longest line, in characters (after ``clean_text``)."""
CHAT_BURST = 5
CHAT_WINDOW_MS = 10_000
"""At most ``CHAT_BURST`` lines from one place in any ``CHAT_WINDOW_MS``: a quick
exchange is never held up, a flood is."""
REACTIONS = ("👍", "😂", "😮", "😬", "🎉", "Nertz!")
"""The reactions a person may send."""
REACTION_BURST = 3
REACTION_WINDOW_MS = 5_000


def clean_text(text: str) -> str:
    """A chat line as it is kept: one line of plain text. Control characters (line
    breaks, tabs, escapes) become spaces and the ends are trimmed; markup is left as
    typed, to be shown as text."""
    spaced = "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)
    return spaced.strip()


def shows_as_written(line: str) -> tuple[str, str] | None:
    """The refusal (a code and a sentence) of a line that would not show what it says,
    or None: no visible character, a direction control, a letter under a pile of
    combining marks (``visible.py``)."""
    if is_blank(line):
        return "chat_blank", "that line shows nothing: type something the others can see"
    control = next((c for c in line if bidi_control(c)), None)
    if control is not None:
        return (
            "chat_bidi",
            f"that line holds a direction control ({codepoint(control)}) that turns the text "
            "after it around; send it without",
        )
    marks = most_marks(line)
    if marks > MAX_MARKS:
        return (
            "chat_marks",
            f"a letter in that line carries {marks} combining marks; at most {MAX_MARKS} "
            "are allowed on one letter",
        )
    return None


class _Window:
    """The times of a place's last few messages, for a rate limit."""

    def __init__(self, burst: int, window_ms: int) -> None:
        self.times: collections.deque[int] = collections.deque(maxlen=burst)
        self.window_ms = window_ms

    def wait_ms(self, now: int) -> int:
        """How long until one more is allowed (0: now)."""
        times = self.times
        if len(times) < (times.maxlen or 0):
            return 0
        return max(0, times[0] + self.window_ms - now)


# Each rate limit: its burst, its window and what the refusal calls the messages.
_LIMITS = {
    "chat": (CHAT_BURST, CHAT_WINDOW_MS, "lines"),
    "reaction": (REACTION_BURST, REACTION_WINDOW_MS, "reactions"),
}


class Chat:
    """The table's chat and reactions. State: ``lines`` (the recent lines, oldest
    first), ``count`` (the last line's ``n``) and each place's rate windows."""

    def __init__(self, ctx: TableContext) -> None:
        self.ctx = ctx
        self.count = 0
        self.lines: collections.deque[ChatLine] = collections.deque(maxlen=RECENT_LINES)
        self._windows: dict[tuple[int, str], _Window] = {}

    def _too_fast(self, conn: int, index: int, kind: str, now: int) -> bool:
        """Refuse (``<kind>_too_fast``) when place ``index`` is over its ``kind`` rate
        limit; otherwise count this one against the limit."""
        burst, window_ms, noun = _LIMITS[kind]
        window = self._windows.get((index, kind))
        if window is None:
            window = self._windows[(index, kind)] = _Window(burst, window_ms)
        wait = window.wait_ms(now)
        if wait:
            self.ctx.error(
                conn,
                f"{kind}_too_fast",
                f"slow down: at most {burst} {noun} in {window_ms // 1000} seconds; "
                f"try again in {math.ceil(wait / 1000)} s",
            )
            return True
        window.times.append(now)
        return False

    # ------------------------------------------------------------------ input

    def talk(self, conn: int, index: int | None, message: ClientMessage, now: int) -> None:
        """A ``chat`` or ``reaction`` message from connection ``conn`` (place ``index``,
        None for a spectator); other messages are not talk."""
        if type(message) is not ChatMessage and type(message) is not React:
            return
        places = self.ctx.places
        if index is None:
            self.ctx.error(
                conn, "not_seated", "spectators read the chat; only people at the table write"
            )
        elif type(message) is ChatMessage:
            self._chat(conn, places[index], index, message.text, now)
        elif type(message) is React:
            self._react(conn, places[index], index, message.what, now)

    def _chat(self, conn: int, place: Place, index: int, text: str, now: int) -> None:
        ctx = self.ctx
        line = clean_text(text)
        if not line:
            ctx.error(conn, "chat_empty", "there is nothing to send: type something first")
            return
        shown = shows_as_written(line)
        if shown is not None:
            ctx.error(conn, *shown)
            return
        if len(line) > CHAT_MAX_CHARS:
            ctx.error(
                conn,
                "chat_too_long",
                f"that line has {len(line)} characters; the limit is {CHAT_MAX_CHARS}",
            )
            return
        if self._too_fast(conn, index, "chat", now):
            return
        self.count += 1
        said = ChatLine(
            n=self.count,
            seat=place.number,
            partner=ctx.partner_no(place),
            name=place.name,
            person=place.person,
            text=line,
        )
        self.lines.append(said)
        record = ChatRecord(said.n, ctx.match_no, place.number, place.partner, place.name, line)
        ctx.store(record)
        ctx.to_everyone(encode(ChatMsg([said])))

    def _react(self, conn: int, place: Place, index: int, what: str, now: int) -> None:
        if what not in REACTIONS:
            self.ctx.error(
                conn, "bad_reaction", f"reactions are {' '.join(REACTIONS)}, not {what!r}"
            )
            return
        if self._too_fast(conn, index, "reaction", now):
            return
        reaction = ReactionMsg(
            seat=place.number,
            name=place.name,
            what=what,
            partner=self.ctx.partner_no(place),
            person=place.person,
        )
        self.ctx.to_everyone(encode(reaction))

    # ------------------------------------------------------------------ resume and restore

    def resend(self, conn: int) -> None:
        """A page that resumed from its last version missed the lines said while it was
        away (they carry no version): it is sent the recent ones again."""
        if self.lines:
            self.ctx.send(conn, encode(ChatMsg(list(self.lines))))

    def restore(self, records: Sequence[Record]) -> None:
        """Restoring: the recent lines from the store's ``ChatRecord`` rows (in order)."""
        per_seat = self.ctx.per_seat
        for record in records:
            if type(record) is ChatRecord:
                self.count = max(self.count, record.n)
                self.lines.append(
                    ChatLine(
                        n=record.n,
                        seat=record.seat,
                        partner=record.partner if per_seat > 1 else None,
                        name=record.name,
                        text=record.text,
                    )
                )
