"""A non-editable install serves the whole client: the package data (pyproject.toml)
takes every file under ``web/``, its folders too (``js/table/``), matched as setuptools
matches it (``glob`` with ``**``)."""

import glob
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "nertz"


def test_the_package_data_takes_every_file_of_the_client() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["nertz"]
    taken = {
        Path(p) for pattern in patterns for p in glob.glob(str(PACKAGE / pattern), recursive=True)
    }
    client = {p for p in (PACKAGE / "web").rglob("*") if p.is_file()}
    assert any(p.parent.name == "table" for p in client)  # a folder inside js/
    missing = sorted(str(p.relative_to(PACKAGE)) for p in client - taken)
    assert not missing, f"a wheel would leave out {missing}"
