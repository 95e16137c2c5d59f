"""Which build of the engine and the bots is in use: compiled by mypyc, or the sources.

``make install`` compiles ``nertz.engine``, ``nertz.bots`` and the simulator's hand loop
(``nertz.sim.table``) in place: each module's
extension lies beside its ``.py`` and Python would import the extension first. A source
edited after the build would then be silently ignored, so the extensions are used only
while every one of them is newer than its source; otherwise, and whenever ``NERTZ_PURE``
is set (to anything but ``0``), all of them are imported from their ``.py`` files.
A partly stale build is never mixed with sources: compiled modules call each other
directly and need their peers compiled too.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

PACKAGES = ("engine", "bots")
"""The subpackages ``setup.py`` compiles."""
MODULES = ("sim.table",)
"""Single modules ``setup.py`` compiles with them: the simulator's loop over a hand, the
one place outside the two packages where the simulator spends its time."""

ROOT = Path(__file__).parent


def pure_requested() -> bool:
    """True when ``NERTZ_PURE`` asks for the sources."""
    return os.environ.get("NERTZ_PURE", "") not in ("", "0")


def _extension(source: Path) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        built = source.with_suffix(suffix)
        if built.exists():
            return built
    return None


def _sources() -> list[Path]:
    packages = [path for package in PACKAGES for path in sorted((ROOT / package).glob("*.py"))]
    return packages + [ROOT.joinpath(*module.split(".")).with_suffix(".py") for module in MODULES]


def built() -> bool:
    """True when compiled modules lie beside the sources (fresh or stale)."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    in_packages = any(
        path.name.endswith(suffixes) for package in PACKAGES for path in (ROOT / package).iterdir()
    )
    return in_packages or any(
        _extension(source) is not None for source in _sources()[-len(MODULES) :]
    )


def fresh() -> bool:
    """True when every source has an extension built after it was last changed."""
    for source in _sources():
        extension = _extension(source)
        if extension is None or extension.stat().st_mtime < source.stat().st_mtime:
            return False
    return True


def in_use() -> bool:
    """True when the engine imported in this process is the compiled one."""
    from .engine import hand

    return not (hand.__file__ or "").endswith(".py")


class _FromSources(importlib.abc.MetaPathFinder):
    """Finds the compiled packages' and modules' ``.py`` files only."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        parts = fullname.split(".")
        if len(parts) < 2 or parts[0] != __package__:
            return None
        if parts[1] not in PACKAGES and ".".join(parts[1:]) not in MODULES:
            return None
        base = ROOT.joinpath(*parts[1:])
        if (base / "__init__.py").exists():
            return importlib.util.spec_from_file_location(
                fullname, base / "__init__.py", submodule_search_locations=[str(base)]
            )
        source = base.with_suffix(".py")
        if source.exists():
            return importlib.util.spec_from_file_location(fullname, source)
        # Only a stale extension is left: its source was removed.
        raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)


def choose() -> None:
    """Import the engine and the bots from their sources unless a fresh build is there."""
    if built() and (pure_requested() or not fresh()):
        sys.meta_path.insert(0, _FromSources())
