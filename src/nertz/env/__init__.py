"""Nertz for learning agents: a PettingZoo environment and its Gymnasium wrapper.

``NertzEnv`` (parallel.py) is a hand of Nertz as a PettingZoo ``ParallelEnv``, real
time framed as ticks; ``aec_env`` wraps it for turn-based learners; ``NertzGymEnv``
(single.py) is one learner against the package's bots as a Gymnasium ``Env``. The
move space is ``actions.MoveSpace``, the observations ``observe.Observer``, the tick
loop ``table.Table``. Everything goes through the engine (``nertz.engine``) and the
bots' driver (``nertz.bots``); nothing in the engine or the bots imports this package.

Needs the optional extra: ``pip install 'nertz[env]'`` (PettingZoo, Gymnasium, NumPy).
See docs/env.md.
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as missing:  # pragma: no cover - the extra is installed for the tests
    raise ImportError(
        f"nertz.env needs the optional extra 'env' ({missing.name} is missing): "
        "pip install 'nertz[env]'"
    ) from missing

from typing import Any

from pettingzoo.utils.conversions import parallel_to_aec
from pettingzoo.utils.env import AECEnv

from .actions import WAIT, MoveSpace
from .parallel import NertzEnv, agent_name
from .single import NertzGymEnv

__all__ = ["WAIT", "MoveSpace", "NertzEnv", "NertzGymEnv", "aec_env", "agent_name", "parallel_env"]


def parallel_env(**kwargs: Any) -> NertzEnv:
    """A ``NertzEnv`` (PettingZoo's naming): the same arguments."""
    return NertzEnv(**kwargs)


def aec_env(**kwargs: Any) -> AECEnv[str, Any, Any]:
    """A ``NertzEnv`` for turn-based learners (PettingZoo's AEC API): the agents give
    their actions one after another, and the tick is played when all have."""
    return parallel_to_aec(NertzEnv(**kwargs))
