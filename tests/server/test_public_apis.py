"""The transport through its libraries' public APIs only (issue 25): no generator
internals, code objects or private attributes of websockets, uvicorn, Starlette or
asyncio are read, and no attribute of a library's object is replaced
(docs/server.md, "The transport")."""

from __future__ import annotations

import re
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "src" / "nertz" / "server"

_PRIVATE = re.compile(
    r"gi_yieldfrom|gi_code|__code__|_asyncio_future_blocking|\._receive\b|\._send\b"
    r"|websockets_sansio_impl|\.conn\.receive_data\s*=|\.handle_text\s*=|del \w+\.\w+\n"
)


def test_the_server_reads_no_library_internals() -> None:
    found = [
        f"{path.relative_to(SERVER)}:{number}: {line.strip()}"
        for path in sorted(SERVER.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(keepends=True), 1)
        if _PRIVATE.search(line)
    ]
    assert found == [], "\n".join(found)
