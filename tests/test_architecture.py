"""Data flows one way: the engine imports nothing from the rest of the package, and
nothing that reads a clock, the network or the disk."""

import ast
import re
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1] / "src" / "nertz" / "engine"
ALLOWED = {
    "bisect",
    "operator",
    "__future__",
    "collections",
    "dataclasses",
    "enum",
    "functools",
    "itertools",
    "random",
    "typing",
}


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


def test_the_engine_imports_only_itself_and_pure_standard_modules() -> None:
    files = sorted(ENGINE.glob("*.py"))
    assert len(files) >= 10
    for path in files:
        for name in imports(path):
            if name.startswith("."):
                assert not name.startswith(".."), f"{path.name} imports {name}"
                continue
            assert name.split(".")[0] in ALLOWED, f"{path.name} imports {name}"


SERVER = ENGINE.parent / "server"


def test_the_store_reads_records_not_the_table() -> None:
    names = imports(SERVER / "store.py")
    assert ".records" in names
    assert not {".table", ".seats", ".partners", ".bots"} & names


def test_no_module_imports_another_modules_private_names() -> None:
    """A private name is its module's own business (``__all__``-style dunders aside)."""
    for path in sorted(ENGINE.parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                private = [
                    a.name
                    for a in node.names
                    if a.name.startswith("_") and not a.name.endswith("__")
                ]
                assert not private, f"{path.name} imports {private} from {node.module}"


WEB = ENGINE.parent / "web"


def test_the_table_reducer_needs_no_browser() -> None:
    """``web/js/table/state.js`` runs under ``node --test``: no page, no clock of its own."""
    text = (WEB / "js" / "table" / "state.js").read_text()
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    for name in ("document", "window", "performance", "localStorage", "location", "fetch"):
        assert not re.search(rf"\b{name}\b", code), f"table/state.js uses {name}"
    assert set(re.findall(r'from "([^"]+)"', code)) == {"../cards.js"}
