"""The simulator plays a duplicate match in whole rotations (R42, R45)."""

from nertz.bots import parse_seat
from nertz.engine import Rules, duplicate_totals
from nertz.sim import Setup, play_match


def test_a_duplicate_match_is_whole_rotations_won_on_duplicate_totals_r45() -> None:
    seats = tuple(parse_seat(s) for s in ("expert", "skilled", "casual"))
    setup = Setup(seats, Rules(duplicate=True, match="single"), seed=4)
    result = play_match(setup, 0)
    assert len(result.hands) == 3  # one deal, once from every seat
    scores = [list(hand.scores) for hand in result.hands]
    totals = duplicate_totals(scores, 3)
    assert sum(totals) == 0
    assert result.winners == tuple(s for s in range(3) if totals[s] == max(totals))
