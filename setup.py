"""Builds nertz with the engine, the bots and the simulator's hand loop compiled by mypyc
(a C compiler is needed).

``NERTZ_PURE=1`` (or no C compiler) installs pure Python. Everything else about the
package is in pyproject.toml. An editable install (``make install``) builds the compiled
modules in place, next to their sources; ``nertz/_build.py`` uses them only while they
are newer than every source they were built from.
"""

import os
import shutil
import sysconfig
from pathlib import Path

from setuptools import setup

COMPILED = ("engine", "bots")
"""The subpackages mypyc compiles: the engine and the bots (the simulator's hot path)."""


COMPILED_MODULES = ("sim/table.py",)
"""Single modules compiled with them: the simulator's loop over a hand (as
``nertz.compiled.MODULES`` lists them, which tests/test_compiled.py checks)."""


def compiled_modules() -> list[str]:
    root = Path(__file__).parent / "src"
    packages = [path for package in COMPILED for path in (root / "nertz" / package).glob("*.py")]
    singles = [root / "nertz" / module for module in COMPILED_MODULES]
    return sorted(str(path.relative_to(root.parent)) for path in packages + singles)


def can_compile() -> bool:
    if os.environ.get("NERTZ_PURE", "") not in ("", "0"):
        return False
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(compiler) is not None


if can_compile():
    from mypyc.build import mypycify

    setup(ext_modules=mypycify(compiled_modules(), opt_level="3"))
else:
    setup()
