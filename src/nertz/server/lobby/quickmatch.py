"""Quick match's queue on one node (issue 26, point 3): who waits, in this process's
memory, and what each waiting person is told.

The decision of who sits together is ``nertz.rating.pair`` (pure, the same function the
benchmark measures); this module keeps the people it decides about and what became of
them. The server's side (``http/quick_api.py``) feeds it, asks it for the tables to
make on a timer (``due``), makes each rated table, and records the seats it took
(``seated``); a waiting page reads its state (``status``) about once a second.

* **One entry per account.** An account in the queue that enters again (another tab,
  another mode) replaces its entry, and its wait starts again; both tabs read the one
  state. An account seated but not yet told keeps that answer until it is read.
* **Bounded**: at most ``max_entries`` people wait on this node and at most
  ``per_address`` from one address (``QuickError`` ``queue_full``, ``too_many_entries``).
* **Lifetimes**: an entry whose page has not asked for ``expire_s`` is dropped (the
  page was closed); a seat not picked up for ``keep_s`` is forgotten (the table's own
  ``reconnect_s`` frees the place, and the person ranks as a leaver: docs/rating.md).
* **Leaving** (``leave``) takes the account out at once, whatever its wait.
* **One rated match at a time.** An account seated by the queue may not enter again
  while that table's match is being played (``QuickError`` ``in_rated_match``): a
  person is in one rated match at a time (docs/rating.md, "Where it runs").

Times are seconds on ``clock`` (the server's monotonic clock; a test's own).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nertz.rating import MODES, POLICY, Entry, Pairing, Policy, bots_in, pair
from nertz.server.door.requests import RequestError

__all__ = [
    "EXPIRE_S",
    "KEEP_S",
    "Player",
    "QuickError",
    "QuickMatch",
    "Refused",
    "Seat",
    "Waiting",
]

EXPIRE_S = 30.0
"""An entry whose page has not asked about it this long is dropped (the page polls
each second; a closed tab stops)."""
KEEP_S = 120.0
"""A seat made for someone who has not asked for it this long is forgotten."""


class QuickError(RequestError):
    """A quick-match request that cannot be done: a code and a sentence."""


@dataclass(frozen=True, slots=True)
class Seat:
    """The place quick match took for a person: where their page goes."""

    code: str
    key: str | None
    seat: int
    partner: int
    token: str
    made: float

    def body(self) -> dict[str, Any]:
        link = f"/t/{self.code}" + (f"?key={self.key}" if self.key else "")
        return {
            "state": "seated",
            "code": self.code,
            "key": self.key,
            "seat": self.seat,
            "partner": self.partner,
            "token": self.token,
            "link": f"{link}#seat={self.token}",
        }


@dataclass(frozen=True, slots=True)
class Refused:
    """A table was made for the person but the seat refused them (``Lobby.join``): the
    page is told why, once, as it would be told its seat."""

    code: str
    reason: str
    made: float

    def body(self) -> dict[str, Any]:
        return {"state": "refused", "error": self.code, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Player:
    """Who enters: their account, the name they sit under (the account's), the device
    their page brings (the place it takes is stored with it, as a join's), their
    address (the per-address bound; a rated table's one new account per address) and
    whether the account is younger than a day (``Account.is_new``)."""

    account: str
    name: str
    device: str
    address: str
    new_account: bool = False


@dataclass(slots=True)
class Waiting:
    """One person in the queue: who (``Player``) and the pairing's entry (rating, mode,
    sizes, when)."""

    player: Player
    entry: Entry
    seen: float
    """When their page last asked (``EXPIRE_S``)."""


@dataclass
class QuickMatch:
    """The queue of one node (the module's docstring)."""

    clock: Callable[[], float] = time.monotonic
    policy: Policy = POLICY
    max_entries: int = 1000
    per_address: int = 4
    expire_s: float = EXPIRE_S
    keep_s: float = KEEP_S
    waiting: dict[str, Waiting] = field(default_factory=dict)
    """Account id -> its entry, oldest first."""
    seats: dict[str, Seat | Refused] = field(default_factory=dict)
    """Account id -> the seat made for it (or why none could be), until its page reads
    it (``KEEP_S``)."""
    playing: dict[str, str] = field(default_factory=dict)
    """Account id -> the code of the rated table the queue seated it at, while that
    table's match is being played (``forget_played``)."""

    def enter(self, player: Player, mode: str, low: int, high: int, mu: float) -> Waiting:
        """Put ``player``'s account in the queue (replacing its entry, if any), or raise
        ``QuickError`` naming the bound it would break."""
        account, address = player.account, player.address
        if mode not in MODES:
            raise QuickError("bad_mode", f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if not 2 <= low <= high <= 8:
            raise QuickError(
                "bad_size", f"a table size range must be within 2 to 8, low first, not {low}-{high}"
            )
        if mode == "partners" and low < 4:
            raise QuickError(
                "bad_size",
                f"partnerships need two seats of two, at least 4 people, not {low} (R40)",
            )
        now = self.clock()
        self._expire(now)
        if account in self.playing:
            raise QuickError(
                "in_rated_match",
                f"you are playing a rated match (table {self.playing[account]}): "
                "finish it, then queue again",
                409,
            )
        self.waiting.pop(account, None)
        self.seats.pop(account, None)  # a new entry: an old seat not picked up is given up
        if sum(1 for w in self.waiting.values() if w.player.address == address) >= self.per_address:
            raise QuickError(
                "too_many_entries",
                f"at most {self.per_address} people may wait for a quick match from one address",
                429,
            )
        if player.new_account and any(
            w.player.new_account and w.player.address == address for w in self.waiting.values()
        ):  # they would be paired together, and a rated table seats one (Lobby.join)
            raise QuickError(
                "new_account",
                "a rated table seats one account younger than a day from each address, and "
                "one from yours is waiting already: play rated with an older account",
                409,
            )
        if len(self.waiting) >= self.max_entries:
            raise QuickError(
                "queue_full", "the quick match queue is full; try again in a minute", 503
            )
        made = Waiting(player, Entry(account, mu, mode, now, low, high), now)
        self.waiting[account] = made
        return made

    def leave(self, account: str) -> bool:
        """Take ``account`` out of the queue (and forget a seat not yet read); whether
        it was there."""
        return (self.waiting.pop(account, None) or self.seats.pop(account, None)) is not None

    def status(self, account: str) -> dict[str, Any]:
        """What ``account``'s page is told: its seat (once), or how long it has waited
        and the countdown until bots fill (``bots_in``), or that it is not waiting."""
        now = self.clock()
        self._expire(now)
        seat = self.seats.pop(account, None)
        if seat is not None:
            return seat.body()
        waiting = self.waiting.get(account)
        if waiting is None:
            return {"state": "none"}
        waiting.seen = now
        entry = waiting.entry
        return {
            "state": "waiting",
            "mode": entry.mode,
            "low": entry.low,
            "high": entry.high,
            "waited_s": round(now - entry.entered, 1),
            "bots_in": round(bots_in(entry, now, self.policy), 1),
        }

    def due(self) -> tuple[tuple[Pairing, tuple[Waiting, ...]], ...]:
        """The tables to make now (``nertz.rating.pair``), each with its people in the
        pairing's order. They stay in the queue until ``seated`` or ``failed``."""
        now = self.clock()
        self._expire(now)
        made = pair([w.entry for w in self.waiting.values()], now, self.policy)
        return tuple((p, tuple(self.waiting[k] for k in p.keys)) for p in made)

    def seated(self, account: str, seat: Seat) -> None:
        """``account`` sat at ``seat``: out of the queue, the seat kept for its page."""
        self.playing[account] = seat.code
        if self.waiting.pop(account, None) is not None:
            self.seats[account] = seat

    def refused(self, account: str, code: str, reason: str) -> None:
        """The table made for ``account`` refused it a seat: out of the queue, told why."""
        if self.waiting.pop(account, None) is not None:
            self.seats[account] = Refused(code, reason, self.clock())

    def forget_played(self, playing: Callable[[str], bool]) -> None:
        """Let go of the accounts whose table's match is no longer being played
        (``playing(code)`` is False: over, or gone)."""
        for key in [k for k, code in self.playing.items() if not playing(code)]:
            del self.playing[key]

    def _expire(self, now: float) -> None:
        for key in [k for k, w in self.waiting.items() if now - w.seen > self.expire_s]:
            del self.waiting[key]
        for key in [k for k, s in self.seats.items() if now - s.made > self.keep_s]:
            del self.seats[key]
