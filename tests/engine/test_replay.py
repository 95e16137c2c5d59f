"""Replay: a hand rebuilt from its deal and its log is the same hand."""

import pytest

from nertz.bots import greedy_move
from nertz.engine import Hand, Rules, deal, replay


def played_hand(seed: int, rules: Rules) -> Hand:
    hand = Hand(deal(3, rules, seed), rules)
    hand.start(5)
    now = 5
    while not hand.over:
        for seat in range(3):
            now += 97 + seat
            move = greedy_move(hand.legal_moves(seat))
            if move is not None:
                hand.play(seat, move, now)
            hand.tick(now)
    return hand


@pytest.mark.parametrize("rules", [Rules(), Rules(draw=1, nertz_pile=11, tie_window_ms=0)])
def test_replaying_the_log_rebuilds_the_hand(rules: Rules) -> None:
    hand = played_hand(21, rules)
    assert hand.over and len(hand.log) > 50
    again = replay(hand.deal, rules, hand.log)
    assert again.snapshot() == hand.snapshot()
    assert again.scores() == hand.scores()


def test_a_log_that_does_not_replay_is_refused() -> None:
    hand = played_hand(3, Rules())
    bad = list(hand.log)
    bad.insert(1, (bad[1][0], 0, "NERTZ"))
    with pytest.raises(ValueError, match="does not replay"):
        replay(hand.deal, Rules(), bad)
    with pytest.raises(ValueError, match="not a move"):
        replay(hand.deal, Rules(), [(0, -1, "GO"), (1, 0, "XYZ")])
