"""``NertzEnv``: a hand of Nertz as a PettingZoo ``ParallelEnv`` (docs/env.md).

Every seat without a bot is an agent, ``seat_0`` ... At each step (a tick of
``step_ms`` virtual milliseconds, ``table.Table``) every agent plays one action of the
fixed move space (``actions.MoveSpace``; 0 waits) and gets its observation back: the
seat's own view as a fixed-size array (``observe.Observer``) and the action mask, 1 for
every action whose move the engine takes now (``Hand.legal_moves``) and for waiting.
A masked-out action is still sent to the engine, which refuses it (the code and its
sentence are in the agent's info, ``refused`` and ``reason``) and nothing changes. A
masked action can still be refused: it lost a race to another seat's card (``beaten``,
R16), or the table rotated earlier in the tick (``rotated``, R25: the tick's remaining
moves are dropped, as every bot drops its committed move).

An episode is one hand: it ends for everyone when the hand ends (a call and its
landing window, R27-R28, or a table still blocked, R26), and is cut short
(truncated) after ``max_ms`` of virtual time. The reward is the hand's score (R29-R31)
at its end; with ``shaped`` it is paid as it is earned, each step the change in the
seat's score as the hand stands (each card sent to the middle, each Nertz card gone),
summing to the same hand score.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from nertz.bots import SeatSpec, parse_seat
from nertz.engine import MAX_SEATS, Move, Rules, spectator_view

from .actions import WAIT, MoveSpace
from .observe import Observer
from .table import DROPPED, Table

__all__ = ["NertzEnv", "agent_name"]

Obs = dict[str, np.ndarray[Any, Any]]


def agent_name(seat: int) -> str:
    """The agent that plays ``seat``: ``seat_0`` ..."""
    return f"seat_{seat}"


class NertzEnv(ParallelEnv[str, Obs, int]):
    """A hand of Nertz in ticks, one agent per seat without a bot.

    ``seats``: how many seats (2-8, R2). ``bots``: the seats the package's bots play,
    by seat number, each a seat spec (``expert``, ``demon:racer``, ...; ``nertz.bots``).
    ``rules``: a ``Rules`` or a mapping of table options (``nertz.engine.OPTIONS``), any
    of them. ``step_ms``: the tick. ``pace``: the bots' speed in percent of their
    level's (100: as fast as the level). ``shaped``: pay the score as it is earned.
    ``max_ms``: the virtual time after which a hand is cut short.
    """

    def __init__(
        self,
        seats: int = 4,
        bots: Mapping[int, str] | None = None,
        rules: Rules | Mapping[str, Any] | None = None,
        step_ms: int = 100,
        pace: int = 100,
        shaped: bool = False,
        max_ms: int = 30 * 60 * 1000,
        render_mode: str | None = None,
    ) -> None:
        if not 2 <= seats <= MAX_SEATS:
            raise ValueError(f"a table has 2 to {MAX_SEATS} seats (R2), not {seats}")
        specs: list[SeatSpec | None] = [None] * seats
        for seat, spec in (bots or {}).items():
            if not 0 <= seat < seats:
                raise ValueError(f"bots names seat {seat}, but the seats are 0 to {seats - 1}")
            specs[seat] = parse_seat(spec)
        if all(spec is not None for spec in specs):
            raise ValueError("every seat has a bot: leave at least one seat for an agent")
        if rules is None:
            rules = Rules()
        elif not isinstance(rules, Rules):
            rules = Rules().with_options(**dict(rules))
        if max_ms < step_ms:
            raise ValueError(f"max_ms ({max_ms}) must be at least one step ({step_ms} ms)")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode is None or 'ansi', not {render_mode!r}")
        self.metadata = {"name": "nertz_v0", "render_modes": ["ansi"], "is_parallelizable": True}
        self.rules = rules
        self.render_mode = render_mode
        self.shaped = shaped
        self.max_ms = max_ms
        self.table = Table(rules, specs, step_ms, pace)
        self.space = MoveSpace(rules.jokers)
        self.observer = Observer(seats, rules, self.space.max_run)
        self.seats = self.table.learners
        self.possible_agents = [agent_name(s) for s in self.seats]
        self.agents: list[str] = []
        self._seat_of = {agent_name(s): s for s in self.seats}
        self._agent_of = {s: agent_name(s) for s in self.seats}
        self._legal: dict[int, dict[int, Move]] = {}
        self._standing: dict[int, int] = {}
        self._seed: int | None = None
        self._hands = 0
        observation = spaces.Box(0, self.observer.high, dtype=np.int16)
        mask = spaces.Box(0, 1, (len(self.space),), dtype=np.int8)
        self._observation_space = spaces.Dict({"observation": observation, "action_mask": mask})
        self._action_space = spaces.Discrete(len(self.space))

    @functools.cache  # noqa: B019 - one space per agent, kept (PettingZoo)
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space[Any]:
        return spaces.Discrete(len(self.space))

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Obs], dict[str, dict[str, Any]]]:
        """Deal a new hand. With ``seed`` the deal and the bots' choices follow from it;
        without, the next hand after the last seed (or a random one)."""
        if seed is not None:
            self._seed, self._hands = seed, 0
        elif self._seed is None:
            self._seed = random.SystemRandom().getrandbits(48)
        self.table.reset(hash((self._seed, self._hands)) & 0xFFFF_FFFF_FFFF)
        self._hands += 1
        self.agents = self.possible_agents[:]
        # Shaped rewards start from 0: the first step pays the score as it stands at Go
        # (the Nertz pile's penalty, R30), so a hand's rewards add up to its score.
        self._standing = dict.fromkeys(self.seats, 0)
        return self._observations(), {agent: {} for agent in self.agents}

    def step(
        self, actions: Mapping[str, int]
    ) -> tuple[
        dict[str, Obs],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """One tick: every agent's action (a missing agent waits), then the table's
        time runs to the next tick."""
        if not self.agents:
            raise RuntimeError("the hand is over: call reset() to deal the next one")
        moves: list[tuple[int, Move]] = []
        size = len(self.space)
        legal_of = self._legal
        canonical = self.space.moves
        for seat, agent in zip(self.seats, self.agents):
            action = int(actions.get(agent, WAIT))
            if action != WAIT:
                if not 0 < action < size:
                    raise ValueError(
                        f"{agent}: action {action} is not in the move space 0-{size - 1}"
                    )
                move = legal_of[seat].get(action) or canonical[action]
                assert move is not None
                moves.append((seat, move))
        outcomes = self.table.step(moves)
        hand = self.table.hand
        over = hand.over
        truncated = not over and self.table.now >= self.max_ms
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        for seat, outcome in outcomes.items():
            if not outcome.ok:
                code = outcome.code
                refused = code.value if code is not None else DROPPED
                infos[self._agent_of[seat]] = {"refused": refused, "reason": outcome.reason}
        rewards = self._rewards(over)
        agents = self.agents
        observations = self._observations()
        terminations = dict.fromkeys(agents, over)
        truncations = dict.fromkeys(agents, truncated)
        if over or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _rewards(self, over: bool) -> dict[str, float]:
        hand = self.table.hand
        if self.shaped:
            scores = hand.scores()
            rewards = {}
            for seat, agent in zip(self.seats, self.agents):
                score = scores[seat].score
                rewards[agent] = float(score - self._standing[seat])
                self._standing[seat] = score
            return rewards
        if over:
            scores = hand.scores()
            return {agent: float(scores[s].score) for s, agent in zip(self.seats, self.agents)}
        return dict.fromkeys(self.agents, 0.0)

    def _observations(self) -> dict[str, Obs]:
        hand = self.table.hand
        space = self.space
        size = len(space)
        seats = self.seats
        table = self.table
        observations = self.observer.observe_all(
            hand, seats, table.piles_changed, table.seats_changed
        )
        # Every mask in one array, set by one NumPy call: row i is agent i's.
        flat: list[int] = []
        legal_of = self._legal
        changed = table.moves_changed
        for i, seat in enumerate(seats):
            if seat in changed:
                legal_of[seat] = space.legal(hand.legal_moves(seat))
            legal = legal_of[seat]
            row = i * size
            flat += [row + action for action in legal]
        changed.clear()
        masks = np.zeros((len(seats), size), dtype=np.int8)
        masks[:, WAIT] = 1
        masks.put(flat, 1)
        return {
            agent: {"observation": observation, "action_mask": mask}
            for agent, observation, mask in zip(self.agents, observations, list(masks))
        }

    def legal_actions(self, agent: str) -> list[int]:
        """The actions ``agent``'s mask allows now, waiting first: the mask as a list."""
        return [WAIT, *self._legal.get(self._seat_of[agent], ())]

    def render(self) -> str | None:
        """With ``render_mode="ansi"``: the table as anyone watching sees it, as text."""
        if self.render_mode != "ansi":
            return None
        seen = spectator_view(self.table.hand)
        lines = [f"{seen['now_ms']} ms, {seen['phase']}"]
        for seat in seen["seats"]:
            work = " | ".join(" ".join(pile) or "-" for pile in seat["work"])
            lines.append(
                f"seat {seat['seat']}: Nertz {seat['nertz_top']} ({seat['nertz_count']}), "
                f"stock {seat['stock_count']}, waste {' '.join(seat['waste']) or '-'}, {work}"
            )
        lines.append("middle: " + " ".join(f"{f['suit']}{f['top']}" for f in seen["foundations"]))
        return "\n".join(lines)

    def close(self) -> None:
        pass

    def describe(self, action: int) -> str:
        """An action in move notation (``wait``, ``N>F``, ``3/2>1`` ...)."""
        return self.space.describe(action)
