"""The environment's tests need the optional extra ``env`` (PettingZoo, Gymnasium).

``make test`` installs it. Without it they are skipped with a message saying how to
install it, except under ``CI=true``, where a missing extra fails them instead.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

MISSING = [m for m in ("pettingzoo", "gymnasium", "numpy") if importlib.util.find_spec(m) is None]


def require() -> None:
    """Skip (or under CI fail) the calling test module when the extra is missing."""
    if not MISSING:
        return
    message = (
        f"nertz.env's optional extra is not installed ({', '.join(MISSING)} missing): "
        "pip install -e '.[test,env]' (make test does)"
    )
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)
