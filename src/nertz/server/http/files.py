"""The client's files (``/static/...``) served from memory.

Starlette's ``StaticFiles`` looks each file up and reads it in a worker thread, two
trips off the event loop and back per file: a page's first visit asks for some forty
files, and a client asking on and on took time from every table. Here each file of
the client's folder is read once, with its type, ``ETag`` and length, and answered from
memory; ``If-None-Match`` with its tag gets ``304``. A file changed on disk (a
developer's edit) is read again when next asked for: its size and time are looked at
each time (a ``stat``, microseconds). Only the files found at startup are served: a
path is a dictionary key, never joined to the folder, so nothing outside it can be
named.
"""

from __future__ import annotations

import hashlib
import mimetypes
import os
from dataclasses import dataclass
from pathlib import Path

from starlette._utils import get_route_path
from starlette.types import Receive, Scope, Send

__all__ = ["Files"]


@dataclass(frozen=True, slots=True)
class _File:
    body: bytes
    headers: list[tuple[bytes, bytes]]
    etag: bytes
    stamp: tuple[int, int]
    """(modification time in ns, size) when it was read."""


def _read(path: Path) -> _File:
    stat = path.stat()
    body = path.read_bytes()
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind == "application/javascript":
        kind += "; charset=utf-8"
    etag = b'"' + hashlib.sha256(body).hexdigest()[:20].encode() + b'"'
    headers = [
        (b"content-type", kind.encode()),
        (b"etag", etag),
        (b"cache-control", b"no-cache"),  # revalidated: a changed client is seen at once
    ]
    return _File(body, headers, etag, (stat.st_mtime_ns, stat.st_size))


class Files:
    """An ASGI app serving ``folder``'s files (mounted at ``/static``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.files = {
            path.relative_to(folder).as_posix(): _read(path)
            for path in sorted(folder.rglob("*"))
            if path.is_file() and not path.name.endswith(".py")
        }

    def _current(self, name: str) -> _File | None:
        found = self.files.get(name)
        if found is None:
            return None
        path = self.folder / name
        try:
            stat = os.stat(path)
        except OSError:
            return found  # gone from disk: the copy read at startup still serves
        if (stat.st_mtime_ns, stat.st_size) != found.stamp:
            found = self.files[name] = _read(path)
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        name = get_route_path(scope).lstrip("/")  # the path under the mount
        found = self._current(name)
        if scope["method"] not in ("GET", "HEAD"):
            await _answer(send, 405, [(b"allow", b"GET, HEAD")], b"Method Not Allowed")
            return
        if found is None:
            await _answer(send, 404, [(b"content-type", b"text/plain")], b"Not Found")
            return
        for key, value in scope["headers"]:
            if key == b"if-none-match" and found.etag in value:
                await _answer(send, 304, [(b"etag", found.etag)], b"")
                return
        body = b"" if scope["method"] == "HEAD" else found.body
        headers = [*found.headers, (b"content-length", str(len(found.body)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def _answer(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    if status != 304:
        headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
