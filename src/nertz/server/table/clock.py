"""One connection's clock and the time the table credits its plays (R16, docs/fairness.md).

Sans-I/O: every method takes the table's time in ms. The table pings each seated
connection (``ping``: its table time ``t``, and ``o``, the client's clock minus the
table's as measured so far, so the client can read the table's clock); the client
answers at once with ``t`` echoed and ``c``, its own clock when the ping arrived
(``pong``). From the last ``SAMPLES`` answers ``ConnectionClock`` estimates:

* the **offset** (client clock minus table clock), NTP's way: the median offset of the
  quarter of samples with the shortest round trip (the least queueing, the least error);
* the **one-way delay** client -> table of each sample (arrival minus the client's
  clock read through that offset): its median is the connection's ``typical_ms``, its
  second highest (a single spike dropped) plus ``MARGIN_MS`` its ``highest_ms``, the
  longest trip its claims may show;
* ``jitter_ms``, the spread of those one-way delays (half of highest minus lowest).

A play carries ``at``, the table's clock on the client when the gesture ended.
``credit`` turns it into the play's **credited time**, never later than its arrival and
never earlier than arrival minus ``highest_ms`` (capped at ``MAX_ONE_WAY_MS``). Claims
that do not fit what the connection has shown get less than they ask for:

* a claimed trip longer than ``highest_ms`` (a stamp from before what the pings allow:
  a spike of the network, or a lie) is credited as a claim of ``highest_ms``, and like
  any claim its part beyond the typical trip is paid from the quota;
* a stamp from the future (after its arrival) is credited nothing;
* the part of any claim beyond the typical trip is paid from a *lag quota* (lichess's
  ``LagTracker``): it grows by ``QUOTA_GAIN_MS`` a play up to ``QUOTA_MAX_MS``, so jitter
  is credited in full while a steady lie within the bound runs out of credit;
* a pong for a ping that is not outstanding is ignored, and a round trip longer than
  ``MAX_ONE_WAY_MS`` twice over is not kept (it can only inflate the bound).

Answering pings late makes a connection look farther away, but the same late answers
shift its offset, so its stamps come out late by as much: alone, the lie costs what it
buys. Answering late *and* stamping early by as much fits everything the pings show:
it is what a connection that far away shows (docs/fairness.md, "Liars"). What tells
them apart is the **wire's round trip** (``wire``): a WebSocket ping frame timed by
the server's transport, answered by the client's network stack, which no page script
sees or can delay. Once the wire has been timed, the pings' median round trip less the
wire's is how long the page holds its pongs (``held_ms``: a liar's delay, or an honest
page's own few milliseconds), and every estimate above is made from the pings with
that taken off their answers: the offset is the true one, the late answers buy no
trip, and a stamp made early claims a trip past the bound, paid from the quota like
any other claim.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import NamedTuple

__all__ = [
    "FIRST_EVERY_MS",
    "FIRST_PINGS",
    "MARGIN_MS",
    "MAX_ONE_WAY_MS",
    "PING_EVERY_MS",
    "PING_SLACK_MS",
    "QUOTA_GAIN_MS",
    "QUOTA_MAX_MS",
    "SAMPLES",
    "WIRE_SAMPLES",
    "ConnectionClock",
    "Credit",
    "Sample",
]

SAMPLES = 16
"""Answers kept: about 30 s of history at ``PING_EVERY_MS``."""
FIRST_PINGS = 6
"""Pings sent ``FIRST_EVERY_MS`` apart after a connection opens, for a quick estimate."""
FIRST_EVERY_MS = 250
PING_EVERY_MS = 2000
"""Then one ping every 2 s: at most one message a second each way, well inside the
per-connection limit (20 a second)."""
PING_SLACK_MS = 500
"""A table pings together every seated connection whose ping is due within this much of
the one due now (and whose last ping was answered): one timer for them all."""
MAX_ONE_WAY_MS = 300
"""The most one-way delay ever credited (lichess caps its lag compensation too)."""
MARGIN_MS = 10
"""Slack above the longest trip the pings have shown, before a claim stops fitting."""
QUOTA_GAIN_MS = 10
"""Credit beyond the typical trip that each play earns (honest jitter spends ~7 ms)."""
QUOTA_MAX_MS = 60
WIRE_SAMPLES = 8
"""Wire round trips kept (``ConnectionClock.wire``)."""


@dataclass(frozen=True, slots=True)
class Sample:
    """One answered ping: table time sent, the client's clock when it got it, table time
    the answer arrived."""

    sent_ms: int
    client_ms: float
    received_ms: int

    @property
    def round_trip_ms(self) -> int:
        return self.received_ms - self.sent_ms

    @property
    def offset_ms(self) -> float:
        """Client clock minus table clock, if both legs took as long."""
        return self.client_ms - (self.sent_ms + self.received_ms) / 2


class Credit(NamedTuple):
    """What ``credit`` decided for one play: its ``credited_ms`` (table time), the
    ``claimed_ms`` trip its stamp implied (None: unstamped), and whether the claim fit
    what the connection has shown. (A named tuple: one is made per play.)"""

    arrival_ms: int
    credited_ms: int
    claimed_ms: int | None
    fits: bool


class ConnectionClock:
    """Clock sync and crediting for one connection (module docstring)."""

    def __init__(self, opened_ms: int) -> None:
        self.samples: deque[Sample] = deque(maxlen=SAMPLES)
        self.outstanding: int | None = None
        """The table time of the ping awaiting its answer (one at a time)."""
        self.next_ping_ms = opened_ms
        self.pings = 0
        self.quota_ms = float(QUOTA_MAX_MS)
        self.misfits = 0
        """Claims that did not fit (for the record and the tests)."""
        self._estimate: tuple[float, float, float, float] | None = None
        """Cached (offset, typical, highest, lowest) of the current samples."""
        self.wire_trips: deque[float] = deque(maxlen=WIRE_SAMPLES)
        """The last round trips of WebSocket ping frames, in ms (``wire``)."""

    # ------------------------------------------------------------------ pings

    def ping(self, now_ms: int) -> tuple[int, int | None]:
        """Send a ping now: returns its ``t`` and the offset to tell the client (None
        before any answer). An unanswered ping is simply replaced."""
        self.outstanding = now_ms
        self.pings += 1
        every = FIRST_EVERY_MS if self.pings < FIRST_PINGS else PING_EVERY_MS
        self.next_ping_ms = now_ms + every
        offset = self.offset_ms
        return now_ms, None if offset is None else round(offset)

    def pong(self, sent_ms: int, client_ms: float, now_ms: int) -> bool:
        """The answer to the ping sent at ``sent_ms``; False (and ignored) when that ping
        is not the one outstanding or the trip is beyond anything creditable."""
        if self.outstanding is None or sent_ms != self.outstanding:
            return False
        self.outstanding = None
        sample = Sample(sent_ms, client_ms, now_ms)
        if not 0 <= sample.round_trip_ms <= 2 * MAX_ONE_WAY_MS:
            return False
        self.samples.append(sample)
        self._estimate = None
        return True

    def wire(self, round_trip_ms: float) -> None:
        """A round trip of a WebSocket ping frame, timed by the server's transport
        (``Connection.round_trip``): answered by the client's network stack, so a page
        cannot lengthen it. With it the pings' estimates leave out how long the page
        held its answers (``held_ms``)."""
        if 0 <= round_trip_ms <= 2 * MAX_ONE_WAY_MS:
            self.wire_trips.append(round_trip_ms)
            self._estimate = None

    # ------------------------------------------------------------------ estimates

    def _estimates(self) -> tuple[float, float, float, float] | None:
        if self._estimate is None and self.samples:
            held = self.held_ms  # the page's own time before it answered: not the path's
            samples = sorted(self.samples, key=lambda s: s.round_trip_ms)
            best = samples[: max(1, len(samples) // 4)]
            offset = _median([s.offset_ms + held / 2 for s in best])
            trips = sorted(s.received_ms - held - (s.client_ms - offset) for s in samples)
            high = trips[-2] if len(trips) >= 4 else trips[-1]
            self._estimate = (offset, _median(trips), high, trips[0])
        return self._estimate

    @property
    def offset_ms(self) -> float | None:
        """Client clock minus table clock; None before any answer."""
        estimate = self._estimates()
        return None if estimate is None else estimate[0]

    @property
    def typical_ms(self) -> float:
        """The median one-way delay client -> table (0 before any answer)."""
        estimate = self._estimates()
        return 0.0 if estimate is None else max(0.0, estimate[1])

    @property
    def highest_ms(self) -> float:
        """The longest trip a claim may show: what the pings showed plus ``MARGIN_MS``,
        at most ``MAX_ONE_WAY_MS``; 0 before any answer (nothing shown, nothing credited)."""
        estimate = self._estimates()
        if estimate is None:
            return 0.0
        return min(float(MAX_ONE_WAY_MS), max(0.0, estimate[2]) + MARGIN_MS)

    @property
    def held_ms(self) -> float:
        """How long the page holds its answers to the pings: their median round trip
        less the wire's (``wire``), never below 0; 0 before the wire was timed."""
        if not self.wire_trips or not self.samples:
            return 0.0
        pings = _median([float(s.round_trip_ms) for s in self.samples])
        return max(0.0, pings - _median(list(self.wire_trips)))

    @property
    def jitter_ms(self) -> float:
        estimate = self._estimates()
        return 0.0 if estimate is None else (estimate[2] - estimate[3]) / 2

    # ------------------------------------------------------------------ crediting

    def credit(self, stamp_ms: int | None, arrival_ms: int) -> Credit:
        """The credited time of a play stamped ``stamp_ms`` (table time, as the client
        read it) that arrived at ``arrival_ms`` (module docstring)."""
        if stamp_ms is None or not self.samples:
            return Credit(arrival_ms, arrival_ms, None, True)
        claimed = arrival_ms - stamp_ms
        typical = self.typical_ms
        if claimed < 0:
            self.misfits += 1
            return Credit(arrival_ms, arrival_ms, claimed, False)
        fits = claimed <= self.highest_ms
        if not fits:  # a spike past what the pings showed, or a lie: the bound at most
            self.misfits += 1
        trip = min(float(claimed), self.highest_ms)
        base = min(trip, typical)
        extra = min(trip - base, self.quota_ms)
        self.quota_ms = min(float(QUOTA_MAX_MS), self.quota_ms + QUOTA_GAIN_MS - extra)
        return Credit(arrival_ms, arrival_ms - round(base + extra), claimed, fits)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
