"""Talk at the table on the wire (protocol 7): the client's ``chat`` and ``reaction``
messages and the server's, as msgspec Structs tagged by ``type`` like every other
message. ``protocol.py`` puts ``ChatIn`` and ``ChatOut`` in its unions (``ClientMessage``,
``ServerMessage``); ``chat.py`` is what the table does with them."""

from __future__ import annotations

from typing import Annotated

import msgspec

__all__ = ["Chat", "ChatIn", "ChatLine", "ChatMsg", "ChatOut", "React", "ReactionMsg"]

Short = Annotated[str, msgspec.Meta(max_length=64)]


class Chat(msgspec.Struct, tag_field="type", tag="chat", forbid_unknown_fields=True, frozen=True):
    """A line of table chat, plain text (``chat.py``: its length and rate limits).
    Only people with a place write; spectators read."""

    text: str


class React(
    msgspec.Struct, tag_field="type", tag="reaction", forbid_unknown_fields=True, frozen=True
):
    """A quick reaction shown on this seat for a moment: one of ``chat.REACTIONS``."""

    what: Short


ChatIn = Chat | React
"""The client's talk: what ``chat.py`` handles."""


class ChatLine(msgspec.Struct, kw_only=True, omit_defaults=True, frozen=True):
    """One line of table chat: its number at the table (from 1, in order), who said it
    (``seat``; ``partner`` only at a partnership table, R40; ``name`` the place's
    normalised name) and the ``text``, plain text to be shown as text."""

    n: int
    seat: int
    partner: int | None = None
    name: str
    person: str | None = None
    """Who said it (``Place.person``): a page mutes the person, whatever their name."""
    text: str


class ChatMsg(msgspec.Struct, tag_field="type", tag="chat", omit_defaults=True):
    """Chat lines: one as it is said, or the recent ones to a page that resumed
    (a page keeps each ``n`` once). Not versioned: talk is no table event."""

    lines: list[ChatLine]


class ReactionMsg(msgspec.Struct, tag_field="type", tag="reaction", omit_defaults=True):
    """A quick reaction (``what``) from the person at ``seat`` (``partner``), shown on
    that seat for a moment. Not versioned and not stored."""

    seat: int
    name: str
    what: str
    partner: int | None = None
    person: str | None = None


ChatOut = ChatMsg | ReactionMsg
"""The server's talk."""
