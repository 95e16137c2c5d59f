"""A table's server-side settings: seats, bots, privacy and the table's own timers.

The rules of play are ``Rules`` (the engine's); these are what the server decides
around them. Each setting is declared once, with its default and its bounds, in
``Settings``: the lobby and the table check them (``check``), the store
keeps ``as_dict`` and reads it back with ``from_dict``.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import msgspec.inspect

__all__ = ["TAKEOVER_SPEC", "Settings"]

TAKEOVER_SPEC = "skilled:balanced"
"""The bot that plays a person's seat while they are away."""


class Settings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Server-side table settings (the rules of play are ``Rules``)."""

    seats: Annotated[int, msgspec.Meta(ge=1, le=8)] = 4
    bots: dict[int, str] = {}
    """Seat number -> bot spec (``expert``, ``demon:racer`` ...; ``A+B`` at a
    partnership table, R40)."""
    public: bool = True
    countdown_ms: Annotated[int, msgspec.Meta(ge=0, le=10_000)] = 3000
    """R8 (online): from the deal to Go."""
    next_hand_s: Annotated[int, msgspec.Meta(ge=1, le=600)] = 30
    """Between hands: the next deal comes this long after the breakdown at the latest."""
    bot_takeover_s: Annotated[int, msgspec.Meta(ge=0, le=3600)] = 30
    """A person disconnected this long has a bot play for them until they return; 0: off."""
    reconnect_s: Annotated[int, msgspec.Meta(ge=1, le=86_400)] = 120
    """A person disconnected this long loses the seat (a bot plays it; anyone may join
    it); so does one who joined and never connected."""
    ready_s: Annotated[int, msgspec.Meta(ge=1, le=3600)] = 60
    """Every place taken and every person connected: those not ready this long after
    have a bot play their place in the first hand (a visible countdown, ``ready_by``)."""
    empty_s: Annotated[int, msgspec.Meta(ge=1, le=86_400)] = 300
    """A table with nobody there this long ends (``lifetimes.py``): no connection open
    and no person holding a place (a dropped person holds it for ``reconnect_s``); a
    finished match's table, kept for "Play again", leaves memory."""
    start_s: Annotated[int, msgspec.Meta(ge=1, le=86_400)] = 3600
    """A table not dealt this long after its creation ends (it is forgotten)."""
    unattended_s: Annotated[int, msgspec.Meta(ge=1, le=600)] = 600
    """A table with no person seated and connected this long ends, whatever its other
    settings say (spectators and bots keep nobody's table; ``lifetimes.py``). The
    server's ceiling, never a client's choice: at most 10 minutes."""
    idle_s: Annotated[int, msgspec.Meta(ge=1, le=86_400)] = 1800
    """A table where no person has played, said ready or "Play again" (nor joined or
    connected) this long ends: a connection left open at a paused practice table or
    an over table holds nothing for good (``lifetimes.py``)."""
    practice: bool = False
    """A practice table (``practice.py``): one person against bots, never in anyone's
    history; it may pause, and gives hints."""
    bot_pace: Annotated[int, msgspec.Meta(ge=10, le=100)] = 100
    """The bots' pace in percent of their level's speed (50: every delay doubled)."""
    lesson: str | None = None
    """A practice table's first hand is this lesson (``lessons.LESSONS``)."""
    host_start_s: Annotated[int, msgspec.Meta(ge=0, le=3600)] = 60
    """Once a match is over the host may start the next this long after it ended,
    without waiting for everyone's "Play again"; 0: at once."""

    outside_bots: bool = False
    """Outside bots (programs registered at ``POST /api/bots``) may take free places;
    off, only one the host invited by name sits (docs/bots.md, "Outside bots")."""
    daily: str | None = None
    """The day (``YYYY-MM-DD``, UTC) whose daily deal this table deals, every hand the
    same (``lobby/daily.py``); the lobby gives such a table its dealer. The day is
    public, its seed never leaves the server before the day is over."""

    rated: bool = False
    """A rated table (issue 26): each finished match changes its people's ratings
    (``lobby/ratings.py``). Only the server makes one (quick match), never a request: it
    plays the rated preset (``nertz.rating.RATED_PRESET``), gives no hints, never
    pauses, its bots play at their own pace, and no outside bot sits at it."""

    def check(self) -> Settings:
        """These settings if each is within its bounds; else ``ValueError`` with a
        sentence naming the first that is not."""
        for name, (low, high) in _BOUNDS.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise ValueError(f"{name} must be {low} to {high}, not {value}")
        if self.rated and (self.practice or self.lesson is not None):
            raise ValueError("a rated table cannot be a practice table (no hints, no pause)")
        if self.rated and self.bot_pace != 100:
            raise ValueError(
                f"a rated table's bots play at their own pace (100), not {self.bot_pace}"
            )
        if self.rated and self.outside_bots:
            raise ValueError("a rated table seats no outside bot: its bots have fixed ratings")
        return self

    def as_dict(self) -> dict[str, Any]:
        """The stored form (JSON: seat numbers as text)."""
        out: dict[str, Any] = msgspec.to_builtins(self, str_keys=True)
        return out

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Settings:
        """Back from ``as_dict``; a missing setting takes its default."""
        return msgspec.convert(data, Settings, strict=False)


def _bounds() -> dict[str, tuple[int, int]]:
    info = msgspec.inspect.type_info(Settings)
    assert isinstance(info, msgspec.inspect.StructType)
    out = {}
    for field in info.fields:
        kind = field.type
        if isinstance(kind, msgspec.inspect.IntType):
            assert kind.ge is not None and kind.le is not None, f"{field.name} has no bounds"
            out[field.name] = (kind.ge, kind.le)
    return out


_BOUNDS = _bounds()
"""Each bounded setting's (lowest, highest), read from its declaration above."""
