"""The environment's speed against RLCard's Uno, in one run on one core (issue 28).

``nertz.env.NertzEnv``: four learning seats, standard rules, ticks of ``--step-ms``
(100 ms), every agent acting at every step (a random action among those its mask
allows, waiting included) and every observation built. RLCard's Uno (``rlcard.make``,
its ``RandomAgent`` at both seats, ``env.run``), measured the same way in the same
process, alternating, the best of three rounds each: steps per second of this
process's CPU time (the machine's cores are shared; wall time would measure the
neighbours). A step is one agent's action with its
observation and mask built, as an RLCard step is one player's action with its state
built: a tick in which all four Nertz agents act is four steps (the line before the
last gives the ticks per second too).

Needs the extras ``env`` and ``bench`` (``pip install -e '.[env,bench]'``: RLCard
1.2.0). Prints, as its last line, ``env steps/s=X rlcard_uno=X ratio=X``. See
docs/performance.md.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

SEATS = 4
"""Four learners: every one acts at every tick."""


def nertz_rate(seconds: float, step_ms: int) -> tuple[float, int]:
    """Steps per CPU second of ``NertzEnv`` with every seat a random learner."""
    from nertz.env import NertzEnv

    env = NertzEnv(seats=SEATS, step_ms=step_ms)
    rng = random.Random(1)
    steps = hands = 0
    obs, _ = env.reset(seed=1)
    cpu = time.process_time()
    while steps % 64 or time.process_time() - cpu < seconds:
        actions = {agent: rng.choice(env.legal_actions(agent)) for agent in obs}
        obs, _, _, _, _ = env.step(actions)
        steps += 1
        if not env.agents:
            hands += 1
            obs, _ = env.reset()
    return steps / (time.process_time() - cpu), hands


def uno_rate(seconds: float) -> tuple[float, int]:
    """Steps per CPU second of RLCard's Uno with random agents (``env.run``)."""
    import rlcard
    from rlcard.agents import RandomAgent

    env = rlcard.make("uno", config={"seed": 1})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    np.random.seed(1)
    steps = games = 0
    cpu = time.process_time()
    while time.process_time() - cpu < seconds:
        trajectories, _ = env.run(is_training=False)
        # A trajectory is state, action, state ...: one action per pair after the first.
        steps += sum((len(t) - 1) // 2 for t in trajectories)
        games += 1
    return steps / (time.process_time() - cpu), games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0, help="CPU s a round (10)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, best kept (3)")
    parser.add_argument("--step-ms", type=int, default=100, help="the tick (100 ms)")
    args = parser.parse_args()
    nertz_rate(0.5, args.step_ms)  # warm up imports and caches
    uno_rate(0.5)
    # Best of ``--rounds`` rounds each, alternating, as the other benchmarks do: a
    # neighbour's load only slows a round down.
    ticks = uno = 0.0
    hands = games = 0
    for _ in range(args.rounds):
        rate, ended = nertz_rate(args.seconds, args.step_ms)
        ticks, hands = max(ticks, rate), hands + ended
        rate, ended = uno_rate(args.seconds)
        uno, games = max(uno, rate), games + ended
    steps = ticks * SEATS
    print(f"nertz: {ticks:.0f} ticks/s of {SEATS} agents, {hands} hands; uno: {games} games")
    print(f"env steps/s={steps:.0f} rlcard_uno={uno:.0f} ratio={steps / uno:.2f}")


if __name__ == "__main__":
    main()
