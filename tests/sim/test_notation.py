"""Random bot matches from the simulator, written in the match notation and read back
(docs/notation.md): every hand replays to the scores the simulator played, and the
match to its totals and winners (R29-R33)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nertz.bots import SeatSpec
from nertz.engine import EndReason, Match, MatchText, Rules
from nertz.sim.runner import Setup, notation, play_match

SPECS = st.builds(
    SeatSpec,
    st.sampled_from(["casual", "skilled", "expert", "demon"]),
    st.sampled_from(["racer", "prompt", "balanced", "scorer"]),
)


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    partnerships = draw(st.booleans())
    rules = Rules(
        draw=draw(st.sampled_from([3, 1])),
        nertz_pile=draw(st.sampled_from([13, 11])),
        jokers=draw(st.booleans()),
        partnerships=partnerships,
        match="race",
        target=draw(st.sampled_from([10, 25])),
    )
    seats = draw(st.integers(2, 4))
    specs = tuple(draw(SPECS) for _ in range(seats))
    partners = tuple(draw(SPECS) for _ in range(seats)) if partnerships else ()
    return Setup(specs, rules, draw(st.integers(0, 2**48)), partners)


@settings(max_examples=12, deadline=None, derandomize=True, database=None)
@given(setup=setups())
def test_a_simulated_match_written_and_read_back_replays_to_its_scores(setup: Setup) -> None:
    played = play_match(setup, 0, keep_logs=True)
    match = notation(setup, played, title="simulated")
    text = str(match)
    read = MatchText.parse(text)
    assert read == match and str(read) == text
    assert len(read.hands) == len(played.hands)
    again = Match(len(setup.seats), read.rules)
    for hand, result in zip(read.hands, played.hands, strict=True):
        replayed = hand.replay(read.rules)
        scores = replayed.scores()
        assert tuple(s.score for s in scores) == result.scores
        caller = replayed.caller if replayed.end_reason is EndReason.CALLED else None
        assert caller == result.caller
        again.record(scores, caller)
    assert tuple(again.totals) == played.totals and again.winners == played.winners
    assert read.seats[0][0].bot == str(setup.seats[0])
