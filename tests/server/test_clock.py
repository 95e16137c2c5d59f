"""Clock sync and crediting for one connection (server/table/clock.py), with explicit times."""

from __future__ import annotations

from itertools import pairwise

from nertz.server.table.clock import (
    FIRST_EVERY_MS,
    FIRST_PINGS,
    MARGIN_MS,
    MAX_ONE_WAY_MS,
    MAX_OUTSTANDING,
    MISFIT_PLAYS,
    PING_EVERY_MS,
    QUOTA_GAIN_MS,
    ConnectionClock,
)

OFFSET = 5000.0
"""The client's clock runs this far ahead of the table's."""


def synced(
    trips: list[tuple[int, int]], answer_late_ms: int = 0, frames: bool = False
) -> ConnectionClock:
    """A connection whose pings took ``(down, up)`` ms each way; a client that answers
    ``answer_late_ms`` after the ping arrived (a liar) but reports when it arrived.
    ``frames``: each ping went with a WebSocket ping frame, which the client's network
    stack answered at once."""
    clock = ConnectionClock(0)
    now = 0
    for down, up in trips:
        t, _ = clock.ping(now)
        arrived = now + down
        if frames:
            clock.wire_pong(t, arrived + up)
        assert clock.pong(t, arrived + OFFSET, arrived + answer_late_ms + up)
        now += 2000
    return clock


def test_offset_and_trip_from_symmetric_pings() -> None:
    clock = synced([(50, 50)] * 8)
    assert clock.offset_ms == OFFSET
    assert clock.typical_ms == 50
    assert clock.highest_ms == 50 + MARGIN_MS
    assert clock.jitter_ms == 0


def test_an_honest_stamp_is_credited_its_play_time() -> None:
    clock = synced([(50, 50)] * 8)
    credit = clock.credit(10_000, 10_050)  # played at 10 000, arrived 50 ms later
    assert (credit.credited_ms, credit.fits) == (10_000, True)


def test_credit_is_never_later_than_arrival_nor_for_an_unmeasured_connection() -> None:
    assert ConnectionClock(0).credit(9_000, 10_000).credited_ms == 10_000  # nothing shown
    clock = synced([(50, 50)] * 8)
    assert clock.credit(None, 10_000).credited_ms == 10_000  # unstamped
    future = clock.credit(10_200, 10_000)  # a stamp after its own arrival
    assert (future.credited_ms, future.fits) == (10_000, False)


def test_a_stamp_earlier_than_the_pings_allow_gets_no_more_than_the_bound() -> None:
    """A claimed trip past the longest the pings showed (a spike, or a lie) is credited
    as a claim of that longest trip, its part beyond the typical trip from the quota."""
    clock = synced([(50, 50)] * 8)
    assert clock.typical_ms == 50 and clock.highest_ms == 50 + MARGIN_MS
    lie = clock.credit(10_000 - 100, 10_050)  # stamped 100 ms before the truth
    assert lie.fits is False and lie.claimed_ms == 150
    assert lie.credited_ms == 10_050 - 60  # arrival minus the bound, no more
    assert clock.misfits == 1


def test_a_steady_lie_past_the_bound_gains_nothing_after_its_first_claim() -> None:
    # Trips of 40-60 ms: the bound is 70 ms; each play claims 300.
    clock = synced([(40, 40), (60, 60), (50, 50), (45, 55), (55, 45), (50, 50)] * 2)
    gained = []
    for n in range(20):
        arrival = 10_000 + 1000 * n
        played = arrival - 50  # the truth: the typical trip
        gained.append(played - clock.credit(arrival - 300, arrival).credited_ms)
    assert gained[0] == 20  # the first, as a spike would be: the bound, from the quota
    assert gained[1:] == [0] * 19  # then the typical trip (MISFIT_PLAYS): its true one here
    assert clock.misfits == 20


def test_a_spike_now_and_then_is_credited_the_bound() -> None:
    """An honest connection's rare spike past the bound is credited the bound (from the
    quota), however many spikes it had, as long as they are ``MISFIT_PLAYS`` apart."""
    clock = synced([(40, 40), (60, 60), (50, 50), (45, 55), (55, 45), (50, 50)] * 2)
    for n in range(30):
        arrival = 10_000 + 1000 * n
        spike = n % (MISFIT_PLAYS + 1) == 0
        trip = 90 if spike else 50
        credited = clock.credit(arrival - trip, arrival).credited_ms
        assert arrival - credited == (60 + MARGIN_MS if spike else 50)


def test_a_steady_lie_within_the_bound_runs_out_of_quota() -> None:
    # Trips of 40-60 ms: a claim of 65 ms fits, but is 15 ms beyond the typical 50.
    clock = synced([(40, 40), (60, 60), (50, 50), (45, 55), (55, 45), (50, 50)] * 2)
    assert clock.typical_ms == 50 and clock.highest_ms == 60 + MARGIN_MS
    gained = []
    for n in range(20):
        arrival = 10_000 + 1000 * n
        played = arrival - 50  # the truth: the typical trip
        gained.append(played - clock.credit(arrival - 65, arrival).credited_ms)
    assert gained[0] == 15  # jitter is credited in full while there is quota
    assert all(g <= QUOTA_GAIN_MS for g in gained[-10:])  # then no more than it earns


def test_honest_jitter_is_credited_in_full() -> None:
    clock = synced([(40, 40), (60, 60), (50, 50), (45, 55), (55, 45), (50, 50)] * 2)
    for n, trip in enumerate([60, 40, 55, 45, 58, 42, 50, 60, 41, 59] * 3):
        arrival = 10_000 + 1000 * n
        assert clock.credit(arrival - trip, arrival).credited_ms == arrival - trip


def test_the_offset_comes_from_the_shortest_round_trips() -> None:
    # One ping queued 300 ms on the way up: the offset and the bound ignore it.
    clock = synced([(30, 30)] * 7 + [(30, 330)])
    assert clock.offset_ms == OFFSET
    assert clock.typical_ms == 30
    assert clock.highest_ms == 30 + MARGIN_MS


def test_the_offset_comes_from_each_legs_quickest_trip() -> None:
    """Pings that were never quick both ways: each quick one way only (10 ms down and
    50 up, or the reverse). Each bounds the offset from one side; midway between the
    bounds is the true offset (the median of the quickest round trips was 20 ms off,
    which tied races 30 ms apart that R16 says were won)."""
    clock = synced([(10, 50)] * 5 + [(50, 10)] * 3)
    assert clock.offset_ms == OFFSET
    assert clock.typical_ms == 50 and clock.jitter_ms == 20


def test_credit_is_capped() -> None:
    clock = synced([(295, 295)] * 8)
    assert clock.highest_ms == MAX_ONE_WAY_MS


def test_a_pong_for_no_outstanding_ping_is_ignored() -> None:
    clock = ConnectionClock(0)
    assert not clock.pong(0, OFFSET, 100)  # nothing was sent
    t, offset = clock.ping(1000)
    assert offset is None
    assert not clock.pong(t + 1, OFFSET + 1050, 1100)  # not that ping
    assert clock.pong(t, OFFSET + 1050, 1100)
    assert not clock.pong(t, OFFSET + 1050, 1100)  # answered already
    assert clock.ping(3000)[1] == OFFSET


def test_answering_pings_late_only_makes_stamps_late() -> None:
    # A client 10 ms away that holds its answers back 100 ms, to look 60 ms away.
    clock = synced([(10, 10)] * 8, answer_late_ms=100)
    assert clock.typical_ms == 60
    offset = clock.offset_ms
    assert offset is not None
    # It stamps with the offset the table told it: its own clock minus ``o``.
    played = 10_000
    stamp = round(played + OFFSET - offset)
    credited = clock.credit(stamp, played + 10).credited_ms
    assert credited >= played  # no earlier than the truth: the lie bought nothing


def test_the_first_pings_come_quickly_then_every_two_seconds() -> None:
    clock = ConnectionClock(0)
    sent = []
    now = 0
    for _ in range(FIRST_PINGS + 2):
        now = clock.next_ping_ms
        clock.ping(now)
        sent.append(now)
    gaps = [b - a for a, b in pairwise(sent)]
    assert gaps == [FIRST_EVERY_MS] * (FIRST_PINGS - 1) + [PING_EVERY_MS] * 2
    assert FIRST_EVERY_MS * FIRST_PINGS <= 2000  # a good estimate within two seconds


def test_a_far_connections_first_pings_overlap_and_every_one_is_a_sample() -> None:
    """R16: a connection 200 ms away each way answers each of the first pings after the
    next ones went out. Each answer still counts: the offset rests on the quickest
    trips, so every sample of the first seconds makes it closer."""
    clock = ConnectionClock(0)
    trips = [(190, 210), (205, 195), (200, 200), (215, 185), (185, 215), (200, 200)] * 2
    due: list[tuple[int, int, float]] = []  # (answer back, ping's t, client's clock)
    for n, (down, up) in enumerate(trips[:FIRST_PINGS]):
        now = n * FIRST_EVERY_MS
        for back, t, c in [d for d in due if d[0] <= now]:  # the answers back by now
            assert clock.pong(t, c, back)
            due.remove((back, t, c))
        t, _ = clock.ping(now)
        due.append((t + down + up, t, t + down + OFFSET))
    for back, t, c in due:
        assert clock.pong(t, c, back)
    assert len(clock.samples) == FIRST_PINGS
    offset = clock.offset_ms
    assert offset is not None and abs(offset - OFFSET) <= 5


def test_pings_awaiting_answers_are_bounded_and_an_answer_gives_up_older_ones() -> None:
    clock = ConnectionClock(0)
    sent = [clock.ping(100 * n)[0] for n in range(MAX_OUTSTANDING + 2)]
    assert len(clock.outstanding) == MAX_OUTSTANDING
    assert not clock.pong(sent[0], OFFSET + 50, 600)  # given up: the oldest went first
    assert clock.pong(sent[-2], OFFSET + sent[-2] + 50, sent[-2] + 100)
    assert list(clock.outstanding) == [sent[-1]]  # the ones before it will not come back
    assert not clock.pong(sent[-3], OFFSET + sent[-3] + 50, sent[-2] + 110)


def test_the_ping_frames_bound_a_page_that_answers_late_and_stamps_early() -> None:
    """Issue 23: a page 10 ms away that holds its pongs back 100 ms and stamps its plays
    100 ms early looks, to the table's pings alone, like an honest page 60 ms away. The
    WebSocket ping frame sent with each ping is answered by its network stack at once:
    timed by the frames, its held answers buy nothing, and its early stamp is credited
    no more than its true trip plus the margin (R16)."""
    played = 10_000

    def credited_early(clock: ConnectionClock) -> float:
        offset = clock.offset_ms
        assert offset is not None
        stamp = round(played + OFFSET - offset) - 100  # its clock read the table's way, less 100
        return played - clock.credit(stamp, played + 10).credited_ms

    assert credited_early(synced([(10, 10)] * 8, answer_late_ms=100)) == 50  # the lie pays
    liar = synced([(10, 10)] * 8, answer_late_ms=100, frames=True)
    assert liar.offset_ms == OFFSET and liar.highest_ms == 10 + MARGIN_MS
    assert credited_early(liar) <= MARGIN_MS  # at most the margin before the truth


def test_a_frame_answered_after_the_page_times_its_ping_as_well() -> None:
    """The frame's pong may come back after the page's answer (the page was quick, the
    path jittery): it still times that ping; one for a ping since replaced does not."""
    clock = ConnectionClock(0)
    t, _ = clock.ping(0)
    assert clock.pong(t, 40 + OFFSET, 60)  # the page answered 20 ms after the ping came
    clock.wire_pong(t, 80)  # the frame's pong took the long way: 40 + 40
    assert clock.offset_ms == OFFSET and clock.typical_ms == 40
    old, _ = clock.ping(2000)
    new, _ = clock.ping(4000)  # the first never answered: replaced
    clock.wire_pong(old, 4010)
    assert clock.pong(new, 4040 + OFFSET, 4080)
    assert clock.samples[-1].wire_ms is None


def test_an_honest_page_is_credited_as_before_with_ping_frames() -> None:
    """An honest page's frames come back with its pings: its jitter is still credited
    in full (R16)."""
    trips = [(40, 40), (60, 60), (50, 50), (45, 55), (55, 45), (50, 50)] * 2
    clock = synced(trips, frames=True)
    assert clock.highest_ms >= 60  # the longest trip it showed
    for n, trip in enumerate([60, 40, 55, 45, 58, 42, 50, 60, 41, 59] * 3):
        arrival = 10_000 + 1000 * n
        assert clock.credit(arrival - trip, arrival).credited_ms == arrival - trip


def test_a_ping_frame_back_beyond_anything_creditable_is_not_kept() -> None:
    clock = ConnectionClock(0)
    t, _ = clock.ping(0)
    clock.wire_pong(t, 2 * MAX_ONE_WAY_MS + 1)
    assert clock.pong(t, 50 + OFFSET, 100)
    assert clock.samples[-1].wire_ms is None and clock.typical_ms == 50
