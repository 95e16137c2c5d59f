"""One connection's clock and the time the table credits its plays (R16, docs/fairness.md).

Sans-I/O: every method takes the table's time in ms. The table pings each seated
connection (``ping``: its table time ``t``, and ``o``, the client's clock minus the
table's as measured so far, so the client can read the table's clock); the client
answers at once with ``t`` echoed and ``c``, its own clock when the ping arrived
(``pong``). From the last ``SAMPLES`` answers ``ConnectionClock`` estimates:

* the **offset** (client clock minus table clock), from each leg's quickest trip: the
  ping that reached the client quickest bounds it from above (``c - sent`` is the
  offset plus that trip), the answer that came back quickest from below (``c -
  answered`` is the offset less its trip); midway between the two, the path's floor
  cancels out, and the error is half the difference of the two legs' queueing at their
  quickest, which many samples make small (the quickest round trip's own midpoint keeps
  the queueing of both its legs);
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
  any claim its part beyond the typical trip is paid from the quota; but within
  ``MISFIT_PLAYS`` plays of another such claim it is credited the typical trip, no
  more: a spike is rare, a lie that overshoots every time buys nothing on average;
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
them apart is the **wire** (``wire_pong``): each ping goes out in one write with a
WebSocket ping frame, which the client's network stack answers by itself (RFC 6455,
5.5.2) and no page script sees or can delay. The two reach the client together, so the
frame's answer comes back when the ping's would have, had the page answered at once:
a sample whose frame came back is measured from the frame's answer (``Sample.wire_ms``),
and the page's answer gives only its clock, ``c``. Held answers then buy nothing, and
an early stamp claims a trip past the bound, paid from the quota like any other claim.
Once any sample has its frame's answer, only such samples are used; a transport that
cannot send ping frames leaves every sample as before. What a page still decides is
``c``: misstated alike in every answer, it is a stamp lie like any other; misstated in
a few answers only, it moves the offset (which rests on the quickest answers) more than
the other answers' trips, and such claims fit: open (docs/fairness.md, "Liars").
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
    "MAX_OUTSTANDING",
    "MISFIT_PLAYS",
    "PING_EVERY_MS",
    "PING_SLACK_MS",
    "QUOTA_GAIN_MS",
    "QUOTA_MAX_MS",
    "SAMPLES",
    "ConnectionClock",
    "Credit",
    "Sample",
]

SAMPLES = 16
"""Answers kept: about 30 s of history at ``PING_EVERY_MS``."""
FIRST_PINGS = 12
"""Pings sent ``FIRST_EVERY_MS`` apart after a connection opens, for a quick estimate:
the offset rests on each leg's quickest trip, so its error shrinks with the samples
(about the jitter over their number)."""
FIRST_EVERY_MS = 150
MAX_OUTSTANDING = 4
"""Pings awaiting answers at once: a far connection's round trip (up to 600 ms) spans
several of the first pings, which would otherwise replace each other unanswered."""
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
MISFIT_PLAYS = 5
"""A claim past the bound within this many plays of another is credited the typical
trip (``credit``)."""


@dataclass(frozen=True, slots=True)
class Sample:
    """One answered ping: table time sent, the client's clock when it got it, table time
    the answer arrived, and table time the ping frame sent with it came back (None: not
    back, or no frame was sent)."""

    sent_ms: int
    client_ms: float
    received_ms: int
    wire_ms: int | None = None

    @property
    def answered_ms(self) -> int:
        """When the client's answer came back: the frame's when it did (the page cannot
        hold that one), else the page's."""
        return self.received_ms if self.wire_ms is None else self.wire_ms

    @property
    def round_trip_ms(self) -> int:
        return self.answered_ms - self.sent_ms

    @property
    def offset_ms(self) -> float:
        """Client clock minus table clock, if both legs took as long."""
        return self.client_ms - (self.sent_ms + self.answered_ms) / 2


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
        self.outstanding: dict[int, int | None] = {}
        """The pings awaiting their answer, by table time sent, each with the table time
        its frame came back (None: not yet); at most ``MAX_OUTSTANDING``."""
        self.next_ping_ms = opened_ms
        self.pings = 0
        self.quota_ms = float(QUOTA_MAX_MS)
        self.misfits = 0
        """Claims that did not fit (for the record and the tests)."""
        self.plays = 0
        """Stamped claims credited."""
        self.misfit_play = -MISFIT_PLAYS - 1
        """The number (``plays``) of the last claim that did not fit."""
        self._estimate: tuple[float, float, float, float] | None = None
        """Cached (offset, typical, highest, lowest) of the current samples."""

    # ------------------------------------------------------------------ pings

    def ping(self, now_ms: int) -> tuple[int, int | None]:
        """Send a ping now: returns its ``t`` and the offset to tell the client (None
        before any answer). Up to ``MAX_OUTSTANDING`` pings may await their answers (a
        far connection's first pings overlap); beyond, the oldest is given up."""
        if len(self.outstanding) >= MAX_OUTSTANDING:
            del self.outstanding[min(self.outstanding)]
        self.outstanding[now_ms] = None
        self.pings += 1
        every = FIRST_EVERY_MS if self.pings < FIRST_PINGS else PING_EVERY_MS
        self.next_ping_ms = now_ms + every
        offset = self.offset_ms
        return now_ms, None if offset is None else round(offset)

    def pong(self, sent_ms: int, client_ms: float, now_ms: int) -> bool:
        """The answer to the ping sent at ``sent_ms``; False (and ignored) when that ping
        is not outstanding or the trip is beyond anything creditable. Pings sent before
        it and still unanswered are given up: answers come back in order."""
        if sent_ms not in self.outstanding:
            return False
        back = self.outstanding.pop(sent_ms)
        for older in [t for t in self.outstanding if t < sent_ms]:
            del self.outstanding[older]
        sample = Sample(sent_ms, client_ms, now_ms, back)
        if not 0 <= sample.round_trip_ms <= 2 * MAX_ONE_WAY_MS:
            return False
        self.samples.append(sample)
        self._estimate = None
        return True

    def wire_pong(self, sent_ms: int, now_ms: int) -> None:
        """The ping frame sent with the ping ``sent_ms`` came back at ``now_ms``: answered
        by the client's network stack, so no page can hold it (module docstring). It
        comes back before the page's answer or after it; a frame for a ping replaced
        since, or back beyond anything creditable, is ignored."""
        if not 0 <= now_ms - sent_ms <= 2 * MAX_ONE_WAY_MS:
            return
        if sent_ms in self.outstanding:
            self.outstanding[sent_ms] = now_ms
            return
        last = self.samples[-1] if self.samples else None
        if last is not None and last.sent_ms == sent_ms and last.wire_ms is None:
            self.samples[-1] = Sample(last.sent_ms, last.client_ms, last.received_ms, now_ms)
            self._estimate = None

    # ------------------------------------------------------------------ estimates

    def _estimates(self) -> tuple[float, float, float, float] | None:
        if self._estimate is None and self.samples:
            # Once a frame came back, only samples it timed: the page's answers may be held.
            samples = [s for s in self.samples if s.wire_ms is not None] or list(self.samples)
            # Each leg's quickest trip bounds the offset from one side: the ping that came
            # quickest (the least c - sent) from above, the answer that came back quickest
            # (the most c - answered) from below. Midway, the path's floor cancels out.
            offset = (
                min(s.client_ms - s.sent_ms for s in samples)
                + max(s.client_ms - s.answered_ms for s in samples)
            ) / 2
            trips = sorted(s.answered_ms - (s.client_ms - offset) for s in samples)
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
        self.plays += 1
        if fits:
            trip = float(claimed)
        else:  # a spike past what the pings showed, or a lie
            self.misfits += 1
            recent = self.plays - self.misfit_play <= MISFIT_PLAYS
            self.misfit_play = self.plays
            trip = typical if recent else self.highest_ms
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
