"""The transport through its libraries' public APIs only (issue 25): no generator
internals, code objects or private attributes of websockets, uvicorn, Starlette or
asyncio are read, and no attribute of a library's object is replaced
(docs/server.md, "The transport")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "src" / "nertz" / "server"

_PRIVATE = re.compile(
    r"gi_yieldfrom|gi_code|__code__|_asyncio_future_blocking|\._receive\b|\._send\b"
    r"|websockets_sansio_impl|\.conn\.receive_data\s*=|\.handle_text\s*=|del \w+\.\w+\n"
    # uvicorn's HTTP protocols inside: their hooks, parser state and request cycles.
    r"|_start_asgi_task|their_state|self\.pipeline\b|\bcycle\.|on_headers_complete"
    r"|on_response_complete|protocols\.http\.\w+_impl"
)
LIBRARIES = ("uvicorn", "websockets", "h11", "httptools", "wsproto")
"""The transport's libraries, whose classes the server uses but never subclasses."""


def test_the_server_reads_no_library_internals() -> None:
    found = [
        f"{path.relative_to(SERVER)}:{number}: {line.strip()}"
        for path in sorted(SERVER.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(keepends=True), 1)
        if _PRIVATE.search(line)
    ]
    assert found == [], "\n".join(found)


def libraries_imported(tree: ast.Module) -> set[str]:
    """The names a module binds to the transport's libraries or to what it takes from
    them (``import uvicorn``, ``from uvicorn.x import Y``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {
                alias.asname or alias.name.split(".")[0]
                for alias in node.names
                if alias.name.split(".")[0] in LIBRARIES
            }
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in LIBRARIES:
            names |= {alias.asname or alias.name for alias in node.names}
    return names


def test_the_server_subclasses_no_class_of_the_transport_s_libraries() -> None:
    """A subclass of a library's class overrides and reads its insides: the server
    composes instead (the door's ``HeadGate`` drives uvicorn's HTTP protocol through
    ``asyncio.Protocol``'s calls and sees its writes through a transport of its own)."""
    found = []
    for path in sorted(SERVER.rglob("*.py")):
        tree = ast.parse(path.read_text())
        theirs = libraries_imported(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            for base in node.bases:
                while isinstance(base, ast.Attribute):
                    base = base.value
                if isinstance(base, ast.Name) and base.id in theirs:
                    found.append(f"{path.relative_to(SERVER)}:{node.lineno}: {node.name}")
    assert found == [], "\n".join(found)
