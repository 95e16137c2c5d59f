"""Figures: Wilson intervals and per-seat and per-table means."""

from __future__ import annotations

from dataclasses import replace

import pytest

from nertz.bots import parse_seat
from nertz.engine import Rules
from nertz.sim import HandResult, MatchResult, Setup, summarize
from nertz.sim.stats import wilson


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(0, 10)[1] == pytest.approx(0.2775, abs=1e-4)


def _hand(scores: tuple[int, int], caller: int | None, blocked: bool) -> HandResult:
    return HandResult(
        scores=scores,
        middle=(scores[0] + 2, 5),
        nertz_left=(1, 0),
        caller=caller,
        races_lost=(1, 2),
        ties=(0, 1),
        length_ms=30_000,
        rotations=1 if blocked else 0,
        blocked=blocked,
    )


def test_summary_counts_shared_wins_and_means_per_hand() -> None:
    setup = Setup((parse_seat("expert"), parse_seat("racer")), Rules(), 1)
    results = [
        MatchResult((_hand((10, 4), 0, False), _hand((2, 6), None, True)), (0,), (12, 10)),
        MatchResult((_hand((5, 5), 1, False),), (0, 1), (5, 5)),
    ]
    summary = summarize(setup, results)
    first, second = summary.seats
    assert first.win_share == pytest.approx(0.75)
    assert second.win_share == pytest.approx(0.25)
    assert first.mean_score == pytest.approx(17 / 3)
    assert first.calls == 1 and second.calls == 1
    assert second.races_lost == 6 and second.ties == 3
    assert summary.table.hands_per_match == 1.5
    assert summary.table.blocked_share == pytest.approx(1 / 3)
    assert summary.table.mean_hand_s == 30.0
    data = summary.as_json()
    assert data["seats"][1]["label"] == "2 skilled:racer"
    assert data["table"]["hands"] == 3


def test_summary_adds_up_jokers_and_the_spread_of_hand_lengths() -> None:
    """R41: jokers announced, landed, stayed home and answers add up per seat; the
    stayed share is over all announcements. Hand lengths 20 s and 40 s: sd 10 s."""
    setup = Setup((parse_seat("expert"), parse_seat("racer")), Rules(jokers=True), 1)
    hands = (
        replace(
            _hand((10, 4), 0, False),
            length_ms=20_000,
            jokers_announced=(2, 1),
            jokers_landed=(2, 0),
            jokers_stayed=(0, 1),
            answers=(1, 0),
        ),
        replace(
            _hand((3, 8), 1, False),
            length_ms=40_000,
            jokers_announced=(1, 0),
            jokers_landed=(0, 0),
            jokers_stayed=(1, 0),
            answers=(0, 1),
        ),
    )
    summary = summarize(setup, [MatchResult(hands, (0,), (13, 12))])
    first, second = summary.seats
    assert (first.jokers_announced, first.jokers_landed, first.jokers_stayed) == (3, 2, 1)
    assert (second.jokers_announced, second.answers) == (1, 1)
    assert summary.table.jokers_per_hand == 2.0
    assert summary.table.jokers_stayed_share == pytest.approx(0.5)
    assert summary.table.mean_hand_s == 30.0 and summary.table.hand_s_sd == pytest.approx(10.0)
