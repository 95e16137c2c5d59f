"""Quick match's pairing policy (``nertz.rating.pairing``, issue 26 point 3): by rating,
widening with the wait, table sizes within everyone's range, bots after a visible
wait; pure and deterministic."""

from __future__ import annotations

import pytest

from nertz.rating import BOT_RATINGS, POLICY, Entry, Pairing, bot_for, bots_in, pair, window


def test_close_ratings_sit_down_together_at_once_when_the_table_is_full() -> None:
    queue = [Entry(f"p{i}", 25.0 + i * 0.2, "solo", 0.0) for i in range(4)]
    assert pair(queue, 0.0) == (Pairing("solo", ("p0", "p1", "p2", "p3")),)


def test_far_ratings_wait_and_the_window_widens_with_time() -> None:
    queue = [Entry("low", 20.0, "solo", 0.0), Entry("high", 28.0, "solo", 0.0)]
    assert window(queue[0], 0.0) == POLICY.window
    assert window(queue[0], 10.0) > window(queue[0], 0.0)
    reach = (8.0 - POLICY.window) / POLICY.widen  # when both windows reach 8 apart
    assert POLICY.start_after_s < reach < POLICY.bots_after_s
    assert pair(queue, 0.0) == ()
    assert pair(queue, POLICY.start_after_s) == ()  # a table of two may start: too far
    assert pair(queue, reach - 0.5) == ()
    assert pair(queue, reach) == (Pairing("solo", ("high", "low")),)


def test_both_windows_must_reach() -> None:
    """A newcomer's narrow window protects them from a far rating, however long the
    other waited."""
    due = POLICY.bots_after_s
    queue = [Entry("old", 20.0, "solo", 0.0), Entry("new", 25.0, "solo", due - 1)]
    assert pair(queue, due - 1) == ()
    assert pair(queue, due) == (Pairing("solo", ("old",), (bot_for(20.0),)),)


def test_a_smaller_table_starts_after_its_wait_and_sizes_stay_in_range() -> None:
    queue = [Entry("a", 25.0, "solo", 0.0), Entry("b", 25.0, "solo", 0.0)]
    assert pair(queue, 1.0) == ()  # both would take four: wait for more
    assert pair(queue, POLICY.start_after_s) == (Pairing("solo", ("a", "b")),)
    # c takes exactly three: with a and b that is a full table, at once.
    c = Entry("c", 25.0, "solo", 0.0, low=3, high=3)
    assert pair([c, *queue], 0.0) == (Pairing("solo", ("a", "b", "c")),)
    # Two of them are too few for c: they wait, and bots make up the third seat.
    assert pair([c, queue[0]], POLICY.start_after_s) == ()
    assert pair([c, queue[0]], POLICY.bots_after_s) == (
        Pairing("solo", ("a", "c"), (bot_for(25.0),)),
    )


def test_bots_fill_after_the_visible_wait_at_a_suitable_level() -> None:
    alone = Entry("ann", BOT_RATINGS["expert"][0], "solo", 100.0)
    assert bots_in(alone, 100.0) == POLICY.bots_after_s
    assert bots_in(alone, 105.0) == POLICY.bots_after_s - 5
    assert pair([alone], 100.0 + POLICY.bots_after_s - 0.5) == ()
    assert bots_in(alone, 100.0 + POLICY.bots_after_s) == 0
    assert pair([alone], 100.0 + POLICY.bots_after_s) == (Pairing("solo", ("ann",), ("expert",)),)
    wants_four = Entry("ben", BOT_RATINGS["beginner"][0], "solo", 0.0, low=4, high=4)
    assert pair([wants_four], POLICY.bots_after_s) == (
        Pairing("solo", ("ben",), ("beginner",) * 3),
    )


def test_modes_never_mix_and_partnerships_sit_in_pairs() -> None:
    queue = [Entry("s", 25.0, "solo", 0.0), Entry("p", 25.0, "partners", 0.0)]
    made = pair(queue, POLICY.bots_after_s)
    assert {p.mode: p.keys for p in made} == {"solo": ("s",), "partners": ("p",)}
    assert all(len(p.keys + p.bots) % 2 == 0 for p in made if p.mode == "partners")
    four = [Entry(f"q{i}", 25.0, "partners", 0.0) for i in range(4)]
    assert pair(four, 0.0) == (Pairing("partners", ("q0", "q1", "q2", "q3")),)
    three = four[:3]
    assert pair(three, POLICY.start_after_s) == (Pairing("partners", ("q0", "q1")),)


def test_the_policy_is_pure_one_entry_each_and_deterministic() -> None:
    queue = [Entry(f"p{i}", 20.0 + i, "solo", float(i)) for i in range(9)]
    assert pair(queue, 40.0) == pair(list(reversed(queue)), 40.0)
    seated = [k for p in pair(queue, 40.0) for k in p.keys]
    assert len(seated) == len(set(seated)) == 9
    with pytest.raises(ValueError, match="one queue entry per person"):
        pair([queue[0], queue[0]], 0.0)
    with pytest.raises(ValueError, match="within 2 to 8"):
        Entry("x", 25.0, "solo", 0.0, low=1, high=4)
