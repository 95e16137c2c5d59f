"""Engine speed: legal-move generation and play, whole hands, and is_blocked.

Prints, as its last line:
    engine moves/s=<int> hands/s=<float> blocked_us=<float>

* moves/s: legal moves for a seat plus applying one chosen move, over random 4-seat hands;
* hands/s: 4-seat hands played to the end (call or blocked end) by the greedy policy
  (foundation first, then the Nertz pile, then the waste, else turn the stock), one core;
* blocked_us: mean microseconds of ``is_blocked`` over positions from those hands
  (cache bypassed: every call searches).

Rates are per second of this process's CPU time, best of ``--rounds`` rounds, so other
work on the machine does not count against the engine. ``--jokers`` measures the same
with two jokers per deck (R41), where legal moves come from the plain joker-aware path;
its last line starts ``engine-jokers``.

``--anchor`` also measures python-chess in the same run, as a yardstick that does not
move with the machine: from the start position, ``list(board.legal_moves)`` and
``board.push`` of one of them chosen by ``random.Random(1)``, until the game is over or
300 plies, games repeated for the same CPU time, best of the same rounds; steps are
pushes. It prints ``anchor chess steps/s=<int> ratio=<float>`` (engine moves/s over
chess steps/s) before the last line.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from nertz import compiled
from nertz.bots import greedy_move
from nertz.engine import Hand, Kind, Rules, deal
from nertz.engine.blocked import is_blocked

RULES = Rules()
"""The rules every measured hand is played by (``--jokers`` switches R41 on)."""


def moves_per_second(seconds: float) -> float:
    """Random play: each step picks a seat, lists its moves, plays a random one."""
    rules = RULES
    rnd = random.Random(1).random
    count = 0
    seed = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        hand = Hand(deal(4, rules, seed), rules)
        seed += 1
        hand.start(0)
        for now in range(1, 2001):
            seat = now & 3
            moves = hand.legal_moves(seat)
            move = moves[int(rnd() * len(moves))]
            # Random play rarely calls; skip the call and stuck so hands stay long.
            if move.kind < Kind.CALL:
                hand.play(seat, move, now)
                count += 1
    return count / (time.process_time() - start)


def chess_steps_per_second(seconds: float) -> float:
    """python-chess random playouts: legal moves listed, one pushed, up to 300 plies."""
    import chess

    choose = random.Random(1).choice
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        board = chess.Board()
        for _ in range(300):
            if board.is_game_over():
                break
            board.push(choose(list(board.legal_moves)))
            steps += 1
    return steps / (time.process_time() - start)


def greedy_hand(seed: int, positions: list[tuple[Hand, int]] | None = None) -> Hand:
    """Four greedy seats acting in turn, 250 ms apart in virtual time."""
    rules = RULES
    hand = Hand(deal(4, rules, seed), rules)
    hand.start(0)
    now = 0
    while not hand.over:
        for seat in range(4):
            now += 250
            move = greedy_move(hand.legal_moves(seat))
            if move is not None:
                hand.play(seat, move, now)
                if positions is not None and len(positions) < 5000 and now % 7 == 0:
                    positions.append((hand.copy(), seat))
            hand.tick(now)
            if hand.over:
                break
    return hand


def hands_per_second(seconds: float) -> tuple[float, int]:
    start = time.process_time()
    hands = 0
    moves = 0
    while time.process_time() - start < seconds:
        hand = greedy_hand(hands)
        moves += len(hand.log)
        hands += 1
    return hands / (time.process_time() - start), moves // max(hands, 1)


def blocked_microseconds() -> tuple[float, float]:
    positions: list[tuple[Hand, int]] = []
    seed = 10_000
    while len(positions) < 2000:
        greedy_hand(seed, positions)
        seed += 1
    calls = 0
    blocked = 0
    start = time.process_time()
    for _ in range(5):
        for hand, seat in positions:
            blocked += is_blocked(hand.seats[seat], hand.wants, hand.rules.draw, hand.rules.jokers)
            calls += 1
    elapsed = time.process_time() - start
    return elapsed / calls * 1e6, blocked / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU time per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; the best one counts")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top entries")
    parser.add_argument("--jokers", action="store_true", help="two jokers per deck (R41)")
    parser.add_argument("--anchor", action="store_true", help="python-chess in the same run")
    args = parser.parse_args()
    global RULES
    if args.jokers:
        RULES = Rules(jokers=True)
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        for seed in range(100):
            greedy_hand(seed)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)
    # Best of several rounds, as timeit does: other load on the machine only slows a round.
    # With --anchor the chess rounds alternate with the engine's, so both see the same load.
    mps = sps = 0.0
    for _ in range(args.rounds):
        mps = max(mps, moves_per_second(args.seconds))
        if args.anchor:
            sps = max(sps, chess_steps_per_second(args.seconds))
    hps, per_hand = max(hands_per_second(args.seconds) for _ in range(args.rounds))
    bus, share = min(blocked_microseconds() for _ in range(args.rounds))
    print(f"random play: {mps:,.0f} moves/s (legal moves + play)")
    print(f"greedy hands: {hps:.1f} hands/s, {per_hand} accepted inputs per hand")
    print(f"is_blocked: {bus:.2f} us per call, {share:.1%} of sampled positions blocked")
    print(f"build: {'compiled (mypyc)' if compiled.in_use() else 'pure Python'}")
    if args.anchor:
        print(f"anchor chess steps/s={sps:.0f} ratio={mps / sps:.2f}")
    name = "engine-jokers" if args.jokers else "engine"
    print(f"{name} moves/s={mps:.0f} hands/s={hps:.1f} blocked_us={bus:.2f}")


if __name__ == "__main__":
    main()
