"""The environment's behaviour: what a learner sees, may do and is paid (issue 28.1)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

from tests.env.extra import require

require()

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from nertz.engine import LATE_REFUSALS, Refusal, RulesError  # noqa: E402
from nertz.env import WAIT, NertzEnv, NertzGymEnv, agent_name  # noqa: E402
from nertz.env.observe import Observer  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src" / "nertz"


def play_random(env: NertzEnv, ticks: int, seed: int = 1) -> list[dict]:
    """Every agent plays a random action its mask allows, for ``ticks`` ticks or to the
    hand's end; returns the infos of every step."""
    rng = random.Random(seed)
    obs, _ = env.reset(seed=seed)
    seen = []
    for _ in range(ticks):
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, _, _, _, infos = env.step(actions)
        seen.append(infos)
        if not env.agents:
            break
    return seen


@pytest.mark.parametrize(
    "table", [{}, {"rules": {"jokers": True, "draw": 1}, "bots": {3: "demon"}, "pace": 300}]
)
def test_the_mask_is_the_engines_legal_moves_and_masked_moves_are_played(table: dict) -> None:
    """Every legal move (R12-R27, R41) has its action in the mask, and nothing else but
    waiting; a masked action is refused only when it lost a race (R16) or the table
    rotated under it (R25). The observations kept from step to step are the ones built
    afresh."""
    env = NertzEnv(seats=4, **table)
    rng = random.Random(3)
    obs, _ = env.reset(seed=3)
    played = 0
    for _ in range(600):
        hand = env.table.hand
        fresh = Observer(4, hand.rules, env.space.max_run)
        for seat in env.seats:
            # What the environment keeps between steps is what it would build afresh.
            assert np.array_equal(obs[agent_name(seat)]["observation"], fresh.observe(hand, seat))
            mask = obs[agent_name(seat)]["action_mask"]
            legal = {env.space.index(m) for m in hand.legal_moves(seat)} - {None}
            assert set(np.flatnonzero(mask)) == legal | {WAIT}
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, _, _, _, infos = env.step(actions)
        for info in infos.values():
            if info.get("refused") == "rotated":
                continue  # R25: the table rotated earlier in the tick
            if "refused" in info:
                assert Refusal(info["refused"]) in LATE_REFUSALS, info
            else:
                played += 1
        if not env.agents:
            obs, _ = env.reset()
    assert played > 800


def test_an_unmasked_action_is_refused_by_the_engine_with_its_reason() -> None:
    env = NertzEnv(seats=2)
    obs, _ = env.reset(seed=5)
    mask = obs["seat_0"]["action_mask"]
    action = int(np.flatnonzero(mask == 0)[0])
    before = env.table.hand.snapshot()
    _, _, _, _, infos = env.step({"seat_0": action})
    assert infos["seat_0"]["refused"]
    assert infos["seat_0"]["reason"]
    assert env.table.hand.snapshot()["seats"] == before["seats"]


def test_an_action_outside_the_move_space_is_a_clear_error() -> None:
    env = NertzEnv(seats=2)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="seat_1: action 9999 is not in the move space"):
        env.step({"seat_1": 9999})


def test_observations_never_show_hidden_cards() -> None:
    """Face-down cards are counts only, even to their owner (R4, R6, R21): shuffling
    every seat's stock and the Nertz cards under the top changes no observation, and
    changing a face-up card does."""
    env = NertzEnv(seats=3)
    env.reset(seed=8)
    hand = env.table.hand
    observer = env.observer
    before = [observer.observe(hand, s) for s in range(3)]
    rng = random.Random(0)
    for layout in hand.seats:
        rng.shuffle(layout.stock)
        hidden = layout.nertz[:-1]
        rng.shuffle(hidden)
        layout.nertz[:-1] = hidden
    after = [observer.observe(hand, s) for s in range(3)]
    for a, b in zip(before, after):
        assert np.array_equal(a, b)
    layout = hand.seats[1]
    layout.nertz[-1], layout.nertz[0] = layout.nertz[0], layout.nertz[-1]
    assert not np.array_equal(before[0], observer.observe(hand, 0))


def test_each_seat_sees_its_own_layout_first() -> None:
    env = NertzEnv(seats=3)
    obs, _ = env.reset(seed=2)
    size = env.observer.seat_size
    first = obs["seat_0"]["observation"]
    second = obs["seat_1"]["observation"]
    assert np.array_equal(first[size : 2 * size], second[:size])
    # The Nertz top (R4) of seat 1, as a card code (suit * 13 + rank).
    top = env.table.hand.seats[1].nertz[-1]
    assert second[0] == int(top.suit) * 13 + top.rank


def play_to_end(env: NertzEnv | NertzGymEnv, seed: int) -> float:
    total = 0.0
    if isinstance(env, NertzGymEnv):
        env.reset(seed=seed)
        while True:
            _, reward, done, cut, _ = env.step(WAIT)
            total += reward
            if done or cut:
                return total
    env.reset(seed=seed)
    while env.agents:
        _, rewards, _, _, _ = env.step({})
        total += rewards["seat_0"]
    return total


@pytest.mark.parametrize("shaped", [False, True])
def test_the_reward_is_the_hands_score(shaped: bool) -> None:
    """A learner that only waits against three experts: the hand ends on a bot's call
    (R27-R28) and the rewards add up to its score, 13 Nertz cards left (R30), paid at
    the end or as it is earned."""
    env = NertzEnv(seats=4, bots={1: "expert", 2: "expert", 3: "expert"}, shaped=shaped)
    total = play_to_end(env, 4)
    hand = env.table.hand
    assert hand.over and hand.caller in (1, 2, 3)
    assert total == hand.scores()[0].score == -2 * 13


def test_shaped_rewards_come_as_cards_reach_the_middle() -> None:
    env = NertzGymEnv(seats=2, opponent="expert", shaped=True)
    rng = random.Random(1)
    env.reset(seed=1)
    rewards = []
    for _ in range(600):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, reward, done, cut, _ = env.step(action)
        rewards.append(reward)
        if done or cut:
            break
    assert any(r > 0 for r in rewards[:-1])
    assert sum(rewards) == env.env.table.hand.scores()[0].score


def test_bots_play_at_their_level_and_pace() -> None:
    """A bot at pace 25 plays a quarter as fast: fewer cards in the same time."""
    moved = []
    for pace in (100, 25):
        env = NertzEnv(seats=2, bots={1: "expert"}, pace=pace)
        env.reset(seed=6)
        for _ in range(300):  # 30 s of virtual time
            env.step({})
        moved.append(len([e for e in env.table.hand.log if e[1] == 1]))
    assert moved[0] > 2 * moved[1] > 0


def test_the_tick_is_a_parameter() -> None:
    env = NertzEnv(seats=2, step_ms=250)
    env.reset(seed=1)
    env.step({})
    env.step({})
    assert env.table.now == 500
    obs, *_ = env.step({})
    assert obs["seat_0"]["observation"][env.observer._caller_at + 2] == 0  # 0.75 s


def test_any_table_option_can_be_set_and_a_bad_one_is_named() -> None:
    env = NertzEnv(seats=2, rules={"draw": 1, "nertz_pile": 11, "jokers": True})
    obs, _ = env.reset(seed=1)
    assert env.table.hand.rules.draw == 1
    assert len(env.table.hand.seats[0].nertz) == 11
    assert obs["seat_0"]["action_mask"].shape == (env.action_space("seat_0").n,)
    with pytest.raises(RulesError, match="draw"):
        NertzEnv(rules={"draw": 7})
    with pytest.raises(ValueError, match="unknown level"):
        NertzEnv(bots={1: "grandmaster"})
    with pytest.raises(ValueError, match="every seat has a bot"):
        NertzEnv(seats=2, bots={0: "expert", 1: "expert"})


def test_truncated_after_max_ms() -> None:
    env = NertzEnv(seats=2, step_ms=100, max_ms=1000)
    env.reset(seed=1)
    for _ in range(9):
        _, _, done, cut, _ = env.step({})
        assert not any(cut.values())
    _, _, done, cut, _ = env.step({})
    assert all(cut.values()) and not any(done.values()) and env.agents == []


def test_the_engine_the_bots_and_the_simulator_never_import_the_env() -> None:
    """Data flows engine -> bots -> sim/env: nothing below imports nertz.env."""
    for package in ("engine", "bots", "sim", "server"):
        for path in sorted((SRC / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module:
                    assert not node.module.startswith("nertz.env"), path
                elif isinstance(node, ast.Import):
                    assert not any(a.name.startswith("nertz.env") for a in node.names), path
