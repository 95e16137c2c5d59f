"""``GET /api/matches/{id}/analysis`` and ``.../advice`` on a real server: a finished
hand analysed for a seat agrees with the hand the notation replays (R29), the bots'
advice is a move the seat could make then, a match still played is refused (its cards
stay hidden), and bad questions are named."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from nertz.analysis import missed_plays, nertz_first
from nertz.engine import Hand, MatchText, Move
from nertz.engine.replay import apply
from nertz.server.door.edge import request_kind
from nertz.server.door.limits import Limits
from nertz.server.http.app import Config

from ..live_server import free_port, running
from .conftest import SPEED
from .test_notation import bots_table, watch_to_the_end


@pytest.fixture
def http(tmp_path: Path) -> Iterator[str]:
    config = Config(
        db=str(tmp_path / "n.db"),
        port=free_port(),
        speed=SPEED,
        limits=Limits(costly_per_minute=60),
    )
    with running(config) as port:
        yield f"http://127.0.0.1:{port}"


def test_a_finished_hand_is_analysed_as_the_notation_replays_it_and_not_before(
    http: str,
) -> None:
    table = bots_table(http, public=True)
    base = f"{http}/api/matches/{table['id']}"
    for path in ("analysis?hand=1&seat=0", "advice?hand=1&seat=0&t=1000"):
        playing = httpx.get(f"{base}/{path}")
        assert playing.status_code == 409, playing.text
        assert playing.json()["error"] == "match_in_progress"
    stored = watch_to_the_end(http, table)
    match = MatchText.parse(httpx.get(f"{base}/notation").text)

    for seat in range(3):
        answer = httpx.get(f"{base}/analysis?hand=1&seat={seat}")
        assert answer.status_code == 200, answer.text
        found = answer.json()
        played = match.hands[0]
        replayed = played.replay(match.rules)
        assert found["to_middle"] == replayed.middle[seat]
        assert found["nertz_left"] == len(replayed.seats[seat].nertz)
        assert found["races_won"] == stored["hands"][0]["races_won"][seat]
        assert found["races_lost"] == stored["hands"][0]["races_lost"][seat]
        assert found["missed_count"] == len(found["missed"])
        for missed in found["missed"]:
            assert missed["waited_ms"] >= 2000
            assert missed["ended"] in ("played", "moved", "taken", "hand_end")
        # The same figures as the analysis of the hand the notation gives (R29).
        expected = missed_plays(match.rules, played, seat)
        assert found["missed"] == [m.as_dict() for m in expected]
        assert found["nertz_first"] == nertz_first(match.rules, played, seat).as_dict()
        assert found["nertz_first"]["left"] == found["nertz_left"]

    go = next(at for at, who, text in match.hands[0].inputs if who < 0 and text == "GO")
    advice = httpx.get(f"{base}/advice?hand=1&seat=1&t=1500")
    assert advice.status_code == 200, advice.text
    told = advice.json()
    hand = Hand(match.hands[0].deal, match.rules)
    for entry in match.hands[0].inputs:
        if entry[0] <= go + 1500:
            apply(hand, entry)
    if told["move"] is not None:
        assert hand.copy().play(1, Move.parse(told["move"]), hand.now).ok, told
    else:
        assert told["reason"] is None  # the policy waits: the hand was on


def test_bad_questions_are_named_and_the_reads_are_costly(http: str) -> None:
    table = bots_table(http, public=True)
    watch_to_the_end(http, table)
    base = f"{http}/api/matches/{table['id']}"
    for path, code in (
        ("analysis?seat=0", "bad_hand"),
        ("analysis?hand=0&seat=0", "bad_hand"),
        ("analysis?hand=99&seat=0", "bad_hand"),
        ("analysis?hand=1", "bad_seat"),
        ("analysis?hand=1&seat=5", "bad_seat"),
        ("analysis?hand=one&seat=0", "bad_hand"),
        ("advice?hand=1&seat=0", "bad_moment"),
        ("advice?hand=1&seat=0&t=-5", "bad_moment"),
        ("advice?hand=1&seat=0&t=" + "9" * 400, "bad_moment"),
        ("analysis?hand=5000&seat=0", "bad_hand"),
    ):
        answer = httpx.get(f"{base}/{path}")
        assert answer.status_code in (400, 404), (path, answer.text)
        assert answer.json()["error"] == code, path
        assert answer.json()["reason"], path
    unknown = httpx.get(f"{http}/api/matches/nosuchmatch/analysis?hand=1&seat=0")
    assert unknown.status_code == 404 and unknown.json()["error"] == "unknown_match"
    for path in ("/api/matches/x/analysis", "/api/matches/x/advice"):
        assert request_kind("GET", path) == "costly"
