"""``NertzGymEnv``: one learner against the package's bots, as a Gymnasium ``Env``.

A ``NertzEnv`` with a single agent, at ``seat`` (0 by default), and bots at every
other seat (``skilled`` unless named). Each ``step`` is one tick; the observation
is the same dict of the seat's view and the action mask, and ``action_masks()`` gives
the mask alone, as maskable learners (e.g. sb3-contrib's ``MaskablePPO``) ask for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from nertz.engine import Rules

from .parallel import NertzEnv, Obs, agent_name

__all__ = ["NertzGymEnv"]


class NertzGymEnv(gym.Env[Obs, int]):
    """One learner at ``seat`` of a table of ``seats``; ``bots`` names the other seats'
    bots (by seat; a seat not named gets ``opponent``). The other arguments are
    ``NertzEnv``'s."""

    def __init__(
        self,
        seats: int = 4,
        seat: int = 0,
        opponent: str = "skilled",
        bots: Mapping[int, str] | None = None,
        rules: Rules | Mapping[str, Any] | None = None,
        step_ms: int = 100,
        pace: int = 100,
        shaped: bool = False,
        max_ms: int = 30 * 60 * 1000,
        render_mode: str | None = None,
    ) -> None:
        if not 0 <= seat < seats:
            raise ValueError(f"the learner's seat must be from 0 to {seats - 1}, not {seat}")
        named = dict(bots or {})
        if seat in named:
            raise ValueError(f"seat {seat} is the learner's: bots cannot name it")
        others = {s: named.get(s, opponent) for s in range(seats) if s != seat}
        self.env = NertzEnv(seats, others, rules, step_ms, pace, shaped, max_ms, render_mode)
        self.metadata = {"render_modes": ["ansi"]}
        self.agent = agent_name(seat)
        self.render_mode = render_mode
        self.observation_space = self.env.observation_space(self.agent)
        self.action_space = self.env.action_space(self.agent)
        self._mask = np.ones(self.action_space.n, dtype=np.int8)  # type: ignore[attr-defined]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        observations, infos = self.env.reset(seed=seed, options=options)
        obs = observations[self.agent]
        self._mask = obs["action_mask"]
        return obs, infos[self.agent]

    def step(self, action: int) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        agent = self.agent
        observations, rewards, terminations, truncations, infos = self.env.step({agent: action})
        obs = observations[agent]
        self._mask = obs["action_mask"]
        return obs, rewards[agent], terminations[agent], truncations[agent], infos[agent]

    def action_masks(self) -> np.ndarray[Any, Any]:
        """The current action mask (1: the engine takes that move now, or wait)."""
        return self._mask

    def render(self) -> str | None:
        return self.env.render()

    def close(self) -> None:
        self.env.close()
