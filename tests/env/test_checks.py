"""PettingZoo's and Gymnasium's own checks on the environment (issue 28.1)."""

from __future__ import annotations

from tests.env.extra import require

require()

import pytest  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

from nertz.env import NertzEnv, NertzGymEnv, aec_env  # noqa: E402

TABLES = [
    {},
    {"bots": {1: "expert", 3: "demon:racer"}, "pace": 50},
    {"seats": 3, "rules": {"jokers": True, "draw": 1}, "shaped": True},
]


@pytest.mark.parametrize("table", TABLES)
def test_pettingzoo_parallel_api_test_passes(table: dict) -> None:
    parallel_api_test(NertzEnv(**table), num_cycles=400)


@pytest.mark.parametrize("table", TABLES)
def test_pettingzoo_api_test_passes_on_the_aec_wrapper(table: dict) -> None:
    api_test(aec_env(**table), num_cycles=400)


@pytest.mark.parametrize("table", TABLES)
def test_pettingzoo_seed_tests_pass(table: dict) -> None:
    seed_test(lambda: aec_env(**table), num_cycles=100)
    parallel_seed_test(lambda: NertzEnv(**table), num_cycles=100)


@pytest.mark.parametrize(
    "table", [{}, {"opponent": "expert", "rules": {"jokers": True}, "shaped": True}]
)
def test_gymnasium_check_env_passes_on_one_learner_against_bots(table: dict) -> None:
    check_env(NertzGymEnv(**table), skip_render_check=True)
