"""Quick match across a cluster's nodes (issue 26, point 3): one queue in Redis, so two
people whose pages reach two nodes are paired together.

Each node keeps its own people as a single server does (``lobby/quickmatch.py``: their
entries, what their pages are told, the bounds of an address), and on every tick of
the quick-match timer (``http/quick_api.run_quick``) meets the others in Redis:

1. **Seats made elsewhere come home.** The seats made for its waiting people
   (``nertz:quick:seats``, account -> the seat or the refusal) are taken out with one
   ``HGETALL`` then ``HDEL`` and given to the local queue (``QuickMatch.seated``): the
   page reads its seat from the node it asks, as before.
2. **Its entries are published** (``nertz:quick:entries``, account -> the entry and
   when it was published); those it no longer holds are taken out.
3. **The games in play are learned** (``nertz:quick:playing``, account -> the rated
   table it plays at and the node that made it): the local queue refuses a second
   entry while one is played (``in_rated_match``), whichever node made it. The node
   that made a table takes its accounts out once its match is over or the table gone
   here (ended, or taken over by another node after a failover).
4. **One node pairs** (``nertz:quick:pairer``, a lock that lapses after
   ``PAIRER_MS`` unless its node renews it each tick): it reads every entry published
   in the last ``STALE_S`` (an entry of a node that died lapses), leaves out the
   accounts with a seat or a game already, pairs them (``nertz.rating.pair``) and makes
   each table on itself as a single server does; each seat goes to
   ``nertz:quick:seats`` for the page's own node to pick up, and the entries go.

Times are wall-clock seconds (``time.time``), the one clock the nodes share: every
node's queue runs on it in a cluster. An account is paired once: its entry is taken out
as its seat is written, a node picks up a seat before it publishes again, and the pairer
skips an account with a seat waiting. A person who leaves in the moment between the
pairer's read and their seat is seated all the same; the table's ``reconnect_s``
releases the place, as it does for a page closed after its seat was made. A seat nobody
picks up is dropped after ``QuickMatch.keep_s``, and one made before the person's
current entry (they left and came back) is given up, as a single node gives it up.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as aioredis

from nertz.rating import Entry, Pairing, pair
from nertz.server.lobby.quickmatch import Player, QuickMatch, Refused, Seat, Waiting

__all__ = [
    "ENTRIES",
    "PAIRER",
    "PAIRER_MS",
    "PLAYING",
    "PLAYING_S",
    "SEATS",
    "STALE_S",
    "SharedQueue",
]

log = logging.getLogger("nertz.quick")

ENTRIES = "nertz:quick:entries"
SEATS = "nertz:quick:seats"
PLAYING = "nertz:quick:playing"
PAIRER = "nertz:quick:pairer"
PAIRER_MS = 3000
"""The pairer's lock lapses this long after its last renewal (a tick is 0.5 s)."""
STALE_S = 5.0
"""An entry not published again for this long is a dead node's: left out, taken out."""
PLAYING_S = 4 * 3600.0
"""A game in play recorded this long ago is let go even if no node says it is over (its
node died before saying so)."""

Seating = Callable[[Pairing, tuple[Waiting, ...]], Awaitable[None]]
"""Makes a pairing's table on this node and seats its people (``seat_pairing``)."""


def _entry_body(w: Waiting, now: float) -> str:
    p, e = w.player, w.entry
    return json.dumps(
        {
            "at": now,
            "player": [p.account, p.name, p.device, p.address, p.new_account],
            "entry": [e.key, e.mu, e.mode, e.entered, e.low, e.high],
        }
    )


def _waiting(raw: Any) -> Waiting | None:
    """A published entry; its ``seen`` is when it was last published."""
    try:
        body = json.loads(raw)
        account, name, device, address, new = body["player"]
        key, mu, mode, entered, low, high = body["entry"]
        player = Player(str(account), str(name), str(device), str(address), bool(new))
        entry = Entry(str(key), float(mu), str(mode), float(entered), int(low), int(high))
        return Waiting(player, entry, float(body["at"]))
    except (ValueError, TypeError, KeyError):
        return None


def _seat_body(seat: Seat | Refused) -> str:
    if isinstance(seat, Seat):
        return json.dumps(
            {
                "seat": [seat.code, seat.key, seat.seat, seat.partner, seat.token],
                "made": seat.made,
            }
        )
    return json.dumps({"refused": [seat.code, seat.reason], "made": seat.made})


def _seat(raw: Any) -> Seat | Refused | None:
    try:
        body = json.loads(raw)
        if "seat" in body:
            code, key, number, partner, token = body["seat"]
            return Seat(
                str(code),
                None if key is None else str(key),
                int(number),
                int(partner),
                str(token),
                float(body["made"]),
            )
        code, reason = body["refused"]
        return Refused(str(code), str(reason), float(body["made"]))
    except (ValueError, TypeError, KeyError):
        return None


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class SharedQueue:
    """This node's side of the cluster's quick-match queue (the module's docstring)."""

    def __init__(self, redis: aioredis.Redis, node: str, quick: QuickMatch) -> None:
        self.redis = redis
        self.node = node
        self.quick = quick
        self._published: set[str] = set()

    async def tick(self, seating: Seating, playing_here: Callable[[str], bool]) -> None:
        """One round (the module's docstring, 1-4). ``playing_here(code)``: whether this
        node holds table ``code`` and its match is still being played."""
        now = self.quick.clock()
        await self._seats_home()
        await self._publish(now)
        await self._games(now, playing_here)
        if await self._pairer():
            await self._pair(now, seating)

    async def tell(self, account: str, seat: Seat | Refused) -> None:
        """Write ``account``'s seat (or refusal) for its page's node to pick up."""
        await self.redis.hset(SEATS, account, _seat_body(seat))
        if isinstance(seat, Seat):
            body = json.dumps({"code": seat.code, "node": self.node, "at": self.quick.clock()})
            await self.redis.hset(PLAYING, account, body)

    async def _seats_home(self) -> None:
        mine = list(self.quick.waiting)
        if not mine:
            return
        found = await self.redis.hmget(SEATS, mine)
        taken = []
        for account, raw in zip(mine, found, strict=True):
            if raw is None:
                continue
            taken.append(account)
            seat = _seat(raw)
            if seat is not None and seat.made < self.quick.waiting[account].entry.entered:
                continue  # made for an entry this one replaced: given up, as on one node
            if isinstance(seat, Seat):
                self.quick.seated(account, seat)
            elif isinstance(seat, Refused):
                self.quick.refused(account, seat.code, seat.reason)
        if taken:
            await self.redis.hdel(SEATS, *taken)

    async def _publish(self, now: float) -> None:
        waiting = self.quick.waiting
        gone = self._published - set(waiting)
        if gone:
            await self.redis.hdel(ENTRIES, *gone)
        if waiting:
            bodies = {a: _entry_body(w, now) for a, w in waiting.items()}
            await self.redis.hset(ENTRIES, mapping=bodies)  # type: ignore[arg-type]
        self._published = set(waiting)

    async def _games(self, now: float, playing_here: Callable[[str], bool]) -> None:
        raw = await self.redis.hgetall(PLAYING)
        games: dict[str, str] = {}
        done = []
        for key, value in raw.items():
            account = _text(key)
            try:
                body = json.loads(value)
                code, node, at = str(body["code"]), str(body["node"]), float(body["at"])
            except (ValueError, TypeError, KeyError):
                done.append(account)
                continue
            if (node == self.node and not playing_here(code)) or now - at > PLAYING_S:
                done.append(account)  # over (or gone) here, or its node died long ago
            else:
                games[account] = code
        if done:
            await self.redis.hdel(PLAYING, *done)
        self.quick.playing = games  # whichever node made each table

    async def _pairer(self) -> bool:
        if await self.redis.set(PAIRER, self.node, nx=True, px=PAIRER_MS):
            return True
        holder = await self.redis.get(PAIRER)
        if holder is not None and _text(holder) == self.node:
            await self.redis.pexpire(PAIRER, PAIRER_MS)
            return True
        return False

    async def _pair(self, now: float, seating: Seating) -> None:
        busy = {_text(k) for k in await self.redis.hkeys(PLAYING)}
        expired = []
        for key, value in (await self.redis.hgetall(SEATS)).items():
            seat = _seat(value)
            if seat is None or now - seat.made > self.quick.keep_s:
                expired.append(_text(key))  # its page left before it was read
            else:
                busy.add(_text(key))
        if expired:
            await self.redis.hdel(SEATS, *expired)
        raw = await self.redis.hgetall(ENTRIES)
        people: dict[str, Waiting] = {}
        stale = []
        for key, value in raw.items():
            account = _text(key)
            found = _waiting(value)
            if found is None or now - found.seen > STALE_S:
                stale.append(account)
            elif account not in busy:
                people[account] = found
        if stale:
            await self.redis.hdel(ENTRIES, *stale)
        for pairing in pair([w.entry for w in people.values()], now, self.quick.policy):
            await self.redis.hdel(ENTRIES, *pairing.keys)
            try:
                await seating(pairing, tuple(people[k] for k in pairing.keys))
            except Exception:  # a table that could not be made: they are published again
                log.exception("quick match could not make a table for %s", pairing.keys)
