"""The browser client as an installable app: its web manifest and its service worker.

``GET /manifest.webmanifest`` names the app, its start page and its icons (192 and 512
px, ``web/icons``), to be opened standalone once added to a phone's home screen.
``GET /sw.js`` is the service worker (``web/sw.js``), served from the root so that its
scope is the whole site (``/``). It keeps the client's shell (the page and every file
of ``web/``) for when the network is gone; the list of files and a version made from
their contents are written into it here, so the list has one home (the folder) and a
changed client replaces the cached one.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

__all__ = ["MANIFEST", "installable_routes", "shell_files", "worker_script"]

MANIFEST = {
    "name": "Nertz",
    "short_name": "Nertz",
    "description": "Nertz, the racing solitaire: play it with friends or bots.",
    "start_url": "/",
    "scope": "/",
    "display": "standalone",
    "background_color": "#1f5e3b",
    "theme_color": "#1f5e3b",
    "icons": [
        {"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png"},
        {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png"},
        {
            "src": "/static/icons/icon-512.png",
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
    ],
}
"""The web manifest (the icons keep their drawing inside the maskable safe zone)."""


CHECK_S = 1.0
"""The client's files are looked at for changes at most this often (``/sw.js``)."""


def shell_files(web_dir: Path) -> list[str]:
    """The client's shell as URLs: the page (``/``) and every file the client is made of
    (``/static/...``), the worker itself left out."""
    files = sorted(
        p.relative_to(web_dir).as_posix()
        for p in web_dir.rglob("*")
        if p.is_file() and p.name != "sw.js" and not p.name.endswith(".py")
    )
    return ["/", *(f"/static/{name}" for name in files)]


def worker_script(web_dir: Path) -> str:
    """``web/sw.js`` with its shell and version filled in."""
    shell = shell_files(web_dir)
    digest = hashlib.sha256()
    for url in shell[1:]:
        digest.update((web_dir / url.removeprefix("/static/")).read_bytes())
    digest.update((web_dir / "index.html").read_bytes())
    text = (web_dir / "sw.js").read_text(encoding="utf-8")
    text = text.replace('"__SHELL__"', json.dumps(shell))
    return text.replace("__VERSION__", digest.hexdigest()[:12])


def installable_routes(web_dir: Path) -> list[BaseRoute]:
    """``/manifest.webmanifest`` and ``/sw.js``."""

    async def manifest(request: Request) -> Response:
        return JSONResponse(MANIFEST, media_type="application/manifest+json")

    made: dict[tuple[tuple[str, int, int], ...], str] = {}
    looked: list[Any] = [-CHECK_S, ""]  # when the files were last looked at, the worker

    def current() -> str:
        # Written once per state of the client's files (about 10 ms on a loaded machine
        # against 0.7 ms to look at their sizes and times), and those looked at at most
        # once a CHECK_S: a browser asks for the worker on every visit, to see whether
        # it changed, and a script asking on and on took time from every table.
        now = time.monotonic()
        if now - looked[0] < CHECK_S:
            return str(looked[1])
        key = tuple(
            (str(p), p.stat().st_mtime_ns, p.stat().st_size)
            for p in sorted(web_dir.rglob("*"))
            if p.is_file()
        )
        if key not in made:
            made.clear()
            made[key] = worker_script(web_dir)
        looked[:] = [now, made[key]]
        return made[key]

    async def worker(request: Request) -> Response:
        # Never cached itself: the browser's update check must see a new version.
        return Response(
            current(),
            media_type="text/javascript",
            headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
        )

    return [
        Route("/manifest.webmanifest", manifest, methods=["GET"]),
        Route("/sw.js", worker, methods=["GET"]),
    ]
