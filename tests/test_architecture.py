"""Data flows one way: the engine imports nothing from the rest of the package, and
nothing that reads a clock, the network or the disk. The layers between packages and
the absence of cycles are import-linter's contracts (``pyproject.toml``, ``make lint``);
what it cannot say (an allow-list, private names) is here."""

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
    "fractions",
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


SERVER = ENGINE.parent / "server"
SERVER_DOC = ENGINE.parents[2] / "docs" / "server.md"


def test_the_servers_map_in_the_docs_matches_its_folders() -> None:
    """docs/server.md's "How it is built" lists every module of the server under its
    package, and no module that is not there: a newcomer's map is the real one."""
    text = SERVER_DOC.read_text()
    built = text[text.index("## How it is built") : text.index("Every input to a table")]
    documented: set[str] = set()
    package = ""
    for line in built.splitlines():
        if heading := re.match(r"^`(\w+)/`: ", line):
            package = heading.group(1) + "/"
        elif row := re.match(r"^\| `(\w+)\.py` \|", line):
            documented.add(package + row.group(1) + ".py")
    on_disk = {
        str(path.relative_to(SERVER))
        for path in SERVER.rglob("*.py")
        if path.name != "__init__.py"
        and path.parts[-2] not in {"cluster", "versions", "migrations"}
    }
    assert documented == on_disk


TABLE = SERVER / "table"


def test_the_table_is_composed_and_no_part_reads_anothers_private_state() -> None:
    """``Table`` is made of collaborators, not mixins (STYLE.md, "compose, don't mix
    in"): its only base is ``object``, and no module of the table core reads another
    object's private attribute (``x._name`` where ``x`` is not ``self`` or ``cls``;
    dunders aside): each part offers the others a public interface."""
    from nertz.server.table.table import Table

    assert Table.__bases__ == (object,)
    files = sorted(TABLE.glob("*.py"))
    assert len(files) >= 10
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Attribute):
                continue
            name = node.attr
            if not name.startswith("_") or (name.startswith("__") and name.endswith("__")):
                continue
            owner = node.value
            mine = isinstance(owner, ast.Name) and owner.id in ("self", "cls")
            assert mine, f"{path.name}:{node.lineno} reads {ast.unparse(node)}"


SERVICE_HOLDERS = {"state", "nertz", "services"}
"""Names a dict of the server's services went by (``app.state.nertz``, ``state``)."""


def _holder(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    return expr.attr if isinstance(expr, ast.Attribute) else None


def test_the_server_reads_its_services_by_attribute_never_by_string_key() -> None:
    """Every service of the server is an attribute of one typed object
    (``http/services.py``'s ``Services``), so that mypy checks each use: no module of
    the server reads one from a dict by name (``state["lobby"]``,
    ``app.state.nertz["metrics"]``, ``state.get("cluster")``)."""
    for path in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Subscript):
                key, holder = node.slice, node.value
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("get", "setdefault", "pop")
                and node.args
            ):
                key, holder = node.args[0], node.func.value
            else:
                continue
            by_name = isinstance(key, ast.Constant) and isinstance(key.value, str)
            where = f"{path.relative_to(SERVER)}:{node.lineno}"
            assert not (by_name and _holder(holder) in SERVICE_HOLDERS), (
                f"{where} reads a service by name: {ast.unparse(node)}"
            )


CREATE_APP_LINES = 60
"""``create_app`` at most this long, its ``def`` line to its last (31 when this was
set): one screen."""


def test_create_app_reads_at_once() -> None:
    """``create_app`` builds the services and mounts each module's routes and the
    middleware, short enough to read at once; every handler lives in its module by
    concern (``tables_api.py``, ``matches_api.py``, ...), none inline in it."""
    tree = ast.parse((SERVER / "http" / "app.py").read_text())
    (found,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "create_app"]
    assert found.end_lineno is not None
    lines = found.end_lineno - found.lineno + 1
    assert lines <= CREATE_APP_LINES, f"create_app is {lines} lines long"
    inline = [
        n.name
        for n in ast.walk(found)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n is not found
    ]
    assert not inline, f"create_app defines {inline}: give them a module of their own"
