"""The build in use: compiled by mypyc when ``make install`` compiled it, else the sources."""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import nertz.bots.policy
import nertz.engine.hand
import nertz.sim.table
from nertz import compiled

SRC = Path(compiled.__file__).parents[1]


def _is_extension(path: str | None) -> bool:
    return (path or "").endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def test_the_compiled_engine_and_bots_are_used_when_built() -> None:
    if compiled.built() and not compiled.pure_requested():
        assert compiled.fresh(), "a source changed after the build: run make install"
        assert compiled.in_use()
        assert _is_extension(nertz.engine.hand.__file__)
        assert _is_extension(nertz.bots.policy.__file__)
        assert _is_extension(nertz.sim.table.__file__)  # the simulator's hand loop too
    else:
        # No build, or NERTZ_PURE=1 (make test's second run): the sources, even beside a build.
        assert not compiled.in_use()
        assert nertz.engine.hand.__file__.endswith("hand.py")
        assert (nertz.bots.policy.__file__ or "").endswith("policy.py")
        assert (nertz.sim.table.__file__ or "").endswith("table.py")


def test_setup_compiles_the_modules_the_package_checks_for_staleness() -> None:
    setup = (SRC.parent / "setup.py").read_text()
    for module in compiled.MODULES:
        assert f'"{module.replace(".", "/")}.py"' in setup, module


def _in_use(src: Path) -> str:
    code = "from nertz import compiled; print(compiled.in_use())"
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("NERTZ_PURE", None)
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


@pytest.mark.skipif(not compiled.built(), reason="pure install: nothing compiled to go stale")
def test_a_source_edited_after_the_build_is_used_instead_of_the_build(tmp_path: Path) -> None:
    assert compiled.fresh(), "a source changed after the build: run make install"
    tree = tmp_path / "src"
    shutil.copytree(SRC, tree, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    assert _in_use(tree) == "True"
    edited = tree / "nertz" / "bots" / "greedy.py"
    edited.touch()
    assert _in_use(tree) == "False"
