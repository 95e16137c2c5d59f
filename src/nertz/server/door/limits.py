"""What one client may take from the server: every limit in one place, and the quotas
that count it per client address.

``Limits`` holds each limit with its default (``nertz serve`` flags change them;
docs/server.md, "Running it in public", says why each default is what it is). The
defaults are far above what a real game night uses — eight friends behind one home
router create a few tables an hour and open a few dozen connections — and far below
what it takes to lock everyone else out: a global cap is always many times one
address's share, so one address cannot exhaust it.

``Quotas`` counts per client address (the socket's peer, or the address a trusted
reverse proxy names in ``X-Forwarded-For``): token buckets for rates, live counts for
what is held open. A quota that bites is a ``Refusal`` — a code, a sentence and when to
try again — answered ``429`` with ``Retry-After`` over HTTP, or an ``error`` over a
WebSocket. Nothing here blocks or sleeps. On a cluster node every count here is also
counted across the nodes, in Redis (``cluster/quotas.py`` the rates, ``cluster/live.py``
the live counts and the server-wide caps), except the full-state rates.

``RefusalMemory`` keeps, per address, the refusals of its rates whose ``Retry-After`` is
still running, so that the server's door (``edge.EarlyRefusals``) can answer the same
refusal again at once, before any routing or body reading: every quota here notes its
refusals there.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, ClassVar

import msgspec
from starlette.responses import JSONResponse

from nertz.server.door.buckets import TokenBucket

__all__ = ["Limits", "Quotas", "Refusal", "RefusalMemory"]

_TRACKED_MAX = 50_000
"""Addresses whose buckets are kept; past this, full (idle) buckets are forgotten."""

_REMEMBERED_MAX = 10_000
"""Addresses whose refusals ``RefusalMemory`` keeps; past this the oldest is forgotten."""


class Limits(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Every limit the server enforces at its door, with its default."""

    body_bytes: int = 64 * 1024
    """Largest HTTP request body; the largest real one (a 200-hand score sheet for
    eight) is about 30 KB. Counted as it arrives: a bigger body is refused (413)
    without being read."""
    header_timeout_s: float = 10.0
    """A connection must send a complete request head within this time of opening (or
    of its last answer): a silent or trickling connection is closed."""
    hello_timeout_s: float = 10.0
    """A WebSocket must say ``hello`` within this time of opening."""
    ipv6_prefix: Annotated[int, msgspec.Meta(ge=0, le=128)] = 64
    """IPv6 clients are counted by their network of this many bits (``edge.address_key``):
    a home or a server is given a /64, and every address in it is one client's; 128
    counts each address alone. An IPv4 address mapped into IPv6 is its IPv4 address."""
    requests_per_s: float = 20.0
    """HTTP requests from one address a second, every route but the client's files (a
    burst of ten seconds' worth): a page asks a few; a script asking on and on is
    refused (``too_many_requests``) before any route runs."""
    files_per_s: float = 30.0
    """The client's files and pages (``/static/...``, ``/sw.js``, ``/t/{code}`` ...)
    from one address a second (a burst of ten seconds' worth, 300): a first visit asks
    for about forty and its service worker for the other fifty, and a household may
    load at once. At 100 (a burst of 1,000) six addresses asking for ``/sw.js`` on
    and on took honest players' ack p99 from 6.6 to 37 ms (docs/performance.md)."""
    refusals_per_s: Annotated[float, msgspec.Meta(gt=0)] = 2.0
    """Refusals answered to one address a second, after a burst of ``refusal_burst``
    (``pace.RefusalPace``): a client that asks again at once while refused waits its
    turn, its connection not read meanwhile, so asking faster costs the server nothing
    more."""
    refusal_burst: Annotated[int, msgspec.Meta(ge=1)] = 10
    """Refusals answered to one address at once before ``refusals_per_s`` paces them."""
    refusal_wait_s: float = 10.0
    """The longest a refusal waits for its turn; a request whose turn is further away
    has its connection closed with no answer."""
    costly_per_minute: int = 30
    """Reads that cost the server milliseconds (a finished match, a score sheet and its
    CSV, the invite dialog and its QR code) from one address a minute (a burst of as
    many); each also counts as a request. Their answers are kept, so asking again for
    the same one is cheap, but each new one is work."""
    max_tables: int = 2000
    """Tables not yet over, server-wide (on a cluster, all the nodes together)."""
    open_tables_per_address: int = 10
    """Tables created from one address that the server still runs, started or not
    (each counts until it is gone: ``lifetimes.py`` bounds how long a table nobody
    plays at lives). 14 addresses hold at most 7% of the default ``max_tables``."""
    bot_tables_per_address: int = 2
    """Of those, tables with no seat for a person (every seat a bot's) from one address:
    a table of bots to watch costs the server eight bots' play for up to ``unattended_s``
    with nobody at it, so 14 addresses may run 28 of them (224 bots), not 140 (the
    1,120 bots that tripled honest players' ack p99 in ``bench/abuse.py``)."""
    creates_per_minute: int = 30
    """``POST /api/tables`` from one address, a minute (a burst of as many)."""
    joins_per_minute: int = 60
    """``POST /api/tables/{code}/join`` from one address, a minute."""
    misses_per_minute: int = 30
    """Unknown codes and wrong keys or invites one address may try, a minute (a burst of
    as many); then it may look nothing up until the bucket refills. A guess at a private
    table's invite (49 bits, ``invites.py``) then takes millions of years; a person
    mistyping a code misses a handful of times."""
    sheets_per_hour: int = 60
    """New score sheets from one address, an hour (a burst of as many)."""
    devices_per_hour: int = 20
    """New device identities (a browser's first seat, ``devices.py``) from one address,
    an hour (a burst of as many): one a browser, so a household never meets it."""
    bots_per_day: int = 10
    """Outside bots registered from one address, a day (a burst of as many;
    ``POST /api/bots``): each holds a name for good, so a script cannot hoard names."""
    histories_per_minute: int = 30
    """A player's history (``GET /api/me``) and its match pages asked for by one address,
    a minute (a burst of as many): a page shows one; each reads every match of a device
    from the database (164 ms of CPU for a device with 600 matches on this VM)."""
    accounts_per_day: int = 5
    """Accounts made from one address, a day (a burst of as many; ``POST /api/account``):
    each holds a name for good, so a script cannot hoard names; a household makes a
    few once."""
    recoveries_per_hour: int = 5
    """Recovery codes tried from one address, and against one account from anywhere, an
    hour (a burst of as many; ``POST /api/account/recover``): a person who typed one
    wrong tries again a few times; a guesser of its 98 bits gets 120 a day."""
    ceremonies_per_minute: int = 30
    """Passkey ceremonies (a challenge kept in memory: making an account, signing in,
    adding a passkey) begun from one address, a minute (a burst of as many)."""
    quick_per_address: int = 4
    """People waiting for a quick match from one address at once (``POST /api/quick``;
    one entry per account): a household, not a script filling the queue."""
    max_quick: int = 1000
    """People waiting for a quick match on one node at once (``lobby/quickmatch.py``):
    at 100 arrivals a minute and waits under 30 s, about 50 wait."""
    max_ceremonies: int = 10_000
    """Passkey ceremonies under way, server-wide (each kept ``passkeys.CEREMONY_S``)."""
    max_sheets: int = 100_000
    """Score sheets stored, server-wide."""
    sheet_days: int = 365
    """A score sheet nobody changed for this many days is deleted."""
    max_connections: int = 10_000
    """Open WebSockets, server-wide (on a cluster, all the nodes together)."""
    connections_per_address: int = 64
    """Open WebSockets from one address (players and spectators together)."""
    spectators_per_address: int = 16
    """Of those, connections watching without a seat token."""
    states_per_s: float = 4.0
    """Full states (``hello``, ``resync``) one connection may ask for, a second (a burst
    of ten): a client only needs one after a gap; a script may look before each play."""
    address_states_per_s: float = 5.0
    """Full states one address may ask for, a second, over all its connections (a
    burst of four times as many: a household reconnecting at once)."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """A quota that bites: a code, a sentence and the seconds until it would not."""

    code: str
    reason: str
    retry_after_s: int
    status: int = 429

    def response(self) -> JSONResponse:
        return JSONResponse(
            {"error": self.code, "reason": self.reason},
            status_code=self.status,
            headers={"Retry-After": str(self.retry_after_s)},
        )


class RefusalMemory:
    """The refusals each address was given that still hold: for a rate (a token
    bucket, or a cluster's window) until its ``Retry-After`` has passed, since the same
    request could only be refused again until then; for a cap on what an address holds
    open (``HELD``) only a few seconds, as the address may close one meanwhile. At most
    ``cap`` addresses, the oldest forgotten first; a refusal past its time is forgotten
    when next looked at."""

    RATES: ClassVar[frozenset[str]] = frozenset(
        {
            "too_many_creates",
            "too_many_joins",
            "too_many_misses",
            "too_many_sheets",
            "too_many_histories",
            "too_many_ceremonies",
            "too_many_recoveries",
            "too_many_requests",
            "too_many_files",
            "too_many_reads",
        }
    )
    """Codes of the per-address rates (not ``too_many_devices``: it depends on the
    request, whether it brings a known device)."""
    HELD: ClassVar[dict[str, float]] = {"too_many_open_tables": 2.0}
    """Codes of the per-address caps on what is held open, and how long one is kept."""

    def __init__(self, clock: Callable[[], float], cap: int = _REMEMBERED_MAX) -> None:
        self.clock, self.cap = clock, cap
        self.by_address: dict[str, dict[str, tuple[float, Refusal]]] = {}
        """Address -> code -> (when it is forgotten, the refusal as it was given)."""

    def remember(self, address: str, refusal: Refusal) -> None:
        """Note ``refusal``, just given to ``address`` (a code not kept here is not)."""
        if refusal.status != 429:
            return
        if refusal.code in self.RATES:
            keep = float(refusal.retry_after_s)
        elif (held := self.HELD.get(refusal.code)) is not None:
            keep = min(held, refusal.retry_after_s)
        else:
            return
        codes = self.by_address.pop(address, None)  # re-inserted last: the newest
        if codes is None:
            codes = {}
            while len(self.by_address) >= self.cap:
                del self.by_address[next(iter(self.by_address))]
        codes[refusal.code] = (self.clock() + keep, refusal)
        self.by_address[address] = codes

    def holding(self, address: str, codes: tuple[str, ...]) -> tuple[Refusal, int] | None:
        """The first of ``codes`` that still refuses ``address``, with the seconds it
        still holds (its ``Retry-After`` now), or None."""
        mine = self.by_address.get(address)
        if mine is None:
            return None
        now = self.clock()
        for code in codes:
            found = mine.get(code)
            if found is None:
                continue
            until, refusal = found
            if until <= now:
                del mine[code]
                if not mine:
                    del self.by_address[address]
                continue
            if refusal.code in self.HELD:
                return refusal, refusal.retry_after_s  # the same answer as its quota's
            return refusal, _seconds(until - now)
        return None


class _Buckets:
    """One bucket per address, made on first use; idle ones are forgotten when many."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.by_address: dict[str, TokenBucket] = {}

    def take(self, address: str) -> float:
        now = self.clock()
        bucket = self.by_address.get(address)
        if bucket is None:
            if len(self.by_address) >= _TRACKED_MAX:
                self.by_address = {a: b for a, b in self.by_address.items() if not b.full(now)}
            bucket = self.by_address[address] = TokenBucket(self.rate, self.burst, now)
        return bucket.take(now)

    def wait(self, address: str) -> float:
        bucket = self.by_address.get(address)
        return 0.0 if bucket is None else bucket.wait(self.clock())


def _seconds(wait: float) -> int:
    return max(1, math.ceil(wait))


def _slow_down(wait: float, code: str, limit: str) -> Refusal | None:
    """None when ``wait`` is 0 (a token was there), else the refusal ``code`` saying the
    ``limit`` and when to try again."""
    if not wait:
        return None
    return Refusal(code, f"{limit}; try again in {_seconds(wait)} s", _seconds(wait))


class Quotas:
    """Per-address counts and rates for one server (``Limits``)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._creates = _Buckets(limits.creates_per_minute / 60, limits.creates_per_minute, clock)
        self._joins = _Buckets(limits.joins_per_minute / 60, limits.joins_per_minute, clock)
        self._misses = _Buckets(limits.misses_per_minute / 60, limits.misses_per_minute, clock)
        self._sheets = _Buckets(limits.sheets_per_hour / 3600, limits.sheets_per_hour, clock)
        self._devices = _Buckets(limits.devices_per_hour / 3600, limits.devices_per_hour, clock)
        self._bots = _Buckets(limits.bots_per_day / 86_400, limits.bots_per_day, clock)
        per_day = limits.accounts_per_day
        self._accounts = _Buckets(per_day / 86_400, per_day, clock)
        per_hour = limits.recoveries_per_hour
        self._recoveries = _Buckets(per_hour / 3600, per_hour, clock)
        """Keyed by address, and by ``account:ID`` for the tries against one account."""
        per_minute = limits.ceremonies_per_minute
        self._ceremonies = _Buckets(per_minute / 60, per_minute, clock)
        per_minute = limits.histories_per_minute
        self._histories = _Buckets(per_minute / 60, per_minute, clock)
        self._states = _Buckets(limits.address_states_per_s, 4 * limits.address_states_per_s, clock)
        self._requests = _Buckets(limits.requests_per_s, 10 * limits.requests_per_s, clock)
        self._files = _Buckets(limits.files_per_s, 10 * limits.files_per_s, clock)
        per_minute = limits.costly_per_minute
        self._costly = _Buckets(per_minute / 60, per_minute, clock)
        self.created: dict[str, list[str]] = {}
        self.bot_tables: dict[str, list[str]] = {}
        """Of ``created``, the tables with no seat for a person (``bot_table``)."""
        """Address -> codes of the tables it created that the server may still run."""
        self.connections: dict[str, int] = {}
        """Address -> its open WebSockets."""
        self.spectators: dict[str, int] = {}
        self.open = 0
        """Open WebSockets, every address."""
        self.memory = RefusalMemory(clock)
        """The refusals given that still hold, for the door to answer again early."""

    def _noted(self, address: str, refusal: Refusal | None) -> Refusal | None:
        """``refusal``, remembered for the door (``RefusalMemory`` keeps the codes it
        can answer early and ignores the rest)."""
        if refusal is not None:
            self.memory.remember(address, refusal)
        return refusal

    def _rate(self, address: str, wait: float, code: str, limit: str) -> Refusal | None:
        """A rate's answer to ``address`` (``_slow_down``), remembered when it refuses."""
        return self._noted(address, _slow_down(wait, code, limit))

    # ------------------------------------------------------------------ HTTP

    def request(self, address: str, kind: str) -> Refusal | None:
        """May ``address`` make one more HTTP request of ``kind`` (``edge.request_kind``:
        ``file``, ``costly`` or ``request``)? Asked by the door before any route."""
        limits = self.limits
        if kind == "file":
            return self._rate(
                address,
                self._files.take(address),
                "too_many_files",
                f"at most {limits.files_per_s:g} files and pages a second from one address",
            )
        refusal = self._rate(
            address,
            self._requests.take(address),
            "too_many_requests",
            f"at most {limits.requests_per_s:g} requests a second from one address",
        )
        if refusal is None and kind == "costly":
            refusal = self._rate(
                address,
                self._costly.take(address),
                "too_many_reads",
                f"at most {limits.costly_per_minute} match pages, score sheets, invite "
                "dialogs and QR codes a minute from one address",
            )
        return refusal

    def create_table(self, address: str, held: Callable[[str], bool]) -> Refusal | None:
        """May ``address`` create a table? ``held(code)`` says whether a table it made
        earlier still counts (the server still runs it, started or not)."""
        mine = [code for code in self.created.get(address, ()) if held(code)]
        if mine:
            self.created[address] = mine
        else:
            self.created.pop(address, None)
        cap = self.limits.open_tables_per_address
        if len(mine) >= cap:
            refusal = Refusal(
                "too_many_open_tables",
                f"you have {len(mine)} tables open (at most {cap} from one address): "
                "finish or leave one first",
                60,
            )
            return self._noted(address, refusal)
        return self._rate(
            address,
            self._creates.take(address),
            "too_many_creates",
            f"at most {self.limits.creates_per_minute} new tables a minute from one address",
        )

    def bot_table(self, address: str, held: Callable[[str], bool]) -> Refusal | None:
        """May ``address`` create one more table with no seat for a person
        (``bot_tables_per_address``)? Asked once the request says so, after
        ``create_table``."""
        mine = [code for code in self.bot_tables.get(address, ()) if held(code)]
        if mine:
            self.bot_tables[address] = mine
        else:
            self.bot_tables.pop(address, None)
        cap = self.limits.bot_tables_per_address
        if len(mine) < cap:
            return None
        refusal = Refusal(
            "too_many_bot_tables",
            f"you have {len(mine)} tables of bots alone open (at most {cap} from one "
            "address): let one finish, or keep a seat for a person",
            60,
        )
        return self._noted(address, refusal)

    def table_created(
        self, address: str, code: str, held: Callable[[str], bool], bots_only: bool = False
    ) -> None:
        if address not in self.created and len(self.created) >= _TRACKED_MAX:
            self.created = {a: codes for a, codes in self.created.items() if any(map(held, codes))}
            self.bot_tables = {
                a: codes for a, codes in self.bot_tables.items() if any(map(held, codes))
            }
        self.created.setdefault(address, []).append(code)
        if bots_only:
            self.bot_tables.setdefault(address, []).append(code)

    def join(self, address: str) -> Refusal | None:
        return self._rate(
            address,
            self._joins.take(address),
            "too_many_joins",
            f"at most {self.limits.joins_per_minute} joins a minute from one address",
        )

    def lookup(self, address: str) -> Refusal | None:
        """May ``address`` look a table up by a code, key or invite? Not while its
        misses are spent (``missed``), so that probing for private tables stays slow."""
        return self._rate(
            address,
            self._misses.wait(address),
            "too_many_misses",
            f"too many unknown codes or wrong invites from one address (at most "
            f"{self.limits.misses_per_minute} a minute)",
        )

    def missed(self, address: str) -> None:
        """``address`` asked for a table that does not exist, or that it holds no key to."""
        self._misses.take(address)

    def sheet(self, address: str) -> Refusal | None:
        return self._rate(
            address,
            self._sheets.take(address),
            "too_many_sheets",
            f"at most {self.limits.sheets_per_hour} new score sheets an hour from one address",
        )

    def device(self, address: str) -> Refusal | None:
        """May ``address`` make one more device identity?"""
        return _slow_down(
            self._devices.take(address),
            "too_many_devices",
            f"at most {self.limits.devices_per_hour} new browsers an hour from one address",
        )

    def bot(self, address: str) -> Refusal | None:
        """May ``address`` register one more outside bot?"""
        return _slow_down(
            self._bots.take(address),
            "too_many_bots",
            f"at most {self.limits.bots_per_day} new bots a day from one address",
        )

    def account(self, address: str, spend: bool = True) -> Refusal | None:
        """May ``address`` make one more account? ``spend=False`` asks without counting
        one (before the passkey is made: a refusal after it would leave the person's
        authenticator a passkey of no account)."""
        wait = self._accounts.take(address) if spend else self._accounts.wait(address)
        return _slow_down(
            wait,
            "too_many_accounts",
            f"at most {self.limits.accounts_per_day} new accounts a day from one address",
        )

    def ceremony(self, address: str) -> Refusal | None:
        """May ``address`` begin one more passkey ceremony?"""
        return self._rate(
            address,
            self._ceremonies.take(address),
            "too_many_ceremonies",
            f"at most {self.limits.ceremonies_per_minute} passkey requests a minute from "
            "one address",
        )

    def recovery(self, address: str, account: str | None) -> Refusal | None:
        """May ``address`` try one more recovery code, against ``account`` (None: a name
        no account holds)? Both counts are spent by every try."""
        limit = self.limits.recoveries_per_hour
        mine = self._rate(
            address,
            self._recoveries.take(address),
            "too_many_recoveries",
            f"at most {limit} recovery codes an hour from one address",
        )
        if mine is not None or account is None:
            return mine
        return _slow_down(
            self._recoveries.take(f"account:{account}"),
            "recovery_locked",
            f"at most {limit} recovery codes an hour against one account",
        )

    def history(self, address: str) -> Refusal | None:
        """May ``address`` read a player's history or a match of it once more?"""
        return self._rate(
            address,
            self._histories.take(address),
            "too_many_histories",
            f"at most {self.limits.histories_per_minute} histories and match pages a "
            "minute from one address",
        )

    # ------------------------------------------------------------------ WebSocket

    def open_connection(self, address: str) -> Refusal | None:
        """Count a new WebSocket from ``address``, or refuse it (then nothing is counted)."""
        limits = self.limits
        if self.open >= limits.max_connections:
            return Refusal(
                "server_full",
                f"this server holds at most {limits.max_connections} connections; try again later",
                30,
                503,
            )
        held = self.connections.get(address, 0)
        if held >= limits.connections_per_address:
            return Refusal(
                "too_many_connections",
                f"at most {limits.connections_per_address} connections from one address; "
                "close one first",
                30,
            )
        self.connections[address] = held + 1
        self.open += 1
        return None

    def close_connection(self, address: str, spectator: bool) -> None:
        self.open -= 1
        _decrement(self.connections, address)
        if spectator:
            _decrement(self.spectators, address)

    def spectate(self, address: str) -> Refusal | None:
        """Count a connection from ``address`` that watches without a seat token."""
        held = self.spectators.get(address, 0)
        if held >= self.limits.spectators_per_address:
            return Refusal(
                "too_many_spectators",
                f"at most {self.limits.spectators_per_address} spectators from one address",
                30,
            )
        self.spectators[address] = held + 1
        return None

    def unspectate(self, address: str) -> None:
        """Undo a ``spectate`` (the cluster refused what this server admitted)."""
        _decrement(self.spectators, address)

    def connection_states(self) -> TokenBucket:
        """The bucket of full states one new connection may ask for."""
        rate = self.limits.states_per_s
        return TokenBucket(rate, max(1.0, 2.5 * rate), self.clock())

    def state(self, address: str, mine: TokenBucket) -> Refusal | None:
        """May a connection (its bucket ``mine``) from ``address`` get a full state?"""
        wait = mine.take(self.clock())
        if not wait:
            wait = self._states.take(address)
        return _slow_down(
            wait,
            "rate_limited",
            f"too many full states: at most {self.limits.states_per_s:g} a second per "
            f"connection and {self.limits.address_states_per_s:g} per address",
        )


def _decrement(counts: dict[str, int], address: str) -> None:
    left = counts.get(address, 0) - 1
    if left > 0:
        counts[address] = left
    else:
        counts.pop(address, None)
