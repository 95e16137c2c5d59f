"""Browser tests (issue 5): Playwright for Python driving Debian's Chromium against a
real server on 127.0.0.1 (a free port; it stops itself after the session).

The server runs with ``Config.test_hooks``: ``POST /api/test/tables`` deals explicit
layouts (``src/nertz/server/http/web.py``) so a test knows every card. Tables are made with a
short countdown (300 ms); nothing else is sped up (``serving`` makes another server
whose tables run at another clock speed, ``Config.speed``). Chromium comes from Debian
(``apt-get install chromium``; ``make test`` installs it); without it these tests skip,
except under ``CI=true``, where a missing browser fails.
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from nertz.server.door.limits import Limits
from nertz.server.http.app import Config

from ..live_server import free_port, running

CHROMIUM = os.environ.get("NERTZ_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _have_browser() -> bool:
    return Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is not None


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    if not _have_browser():
        message = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    # bypass_csp: Playwright's wait_for_function evaluates its predicate with eval,
    # which the pages' Content-Security-Policy forbids (no 'unsafe-eval'; site.py).
    # test_cross_site.py opens the pages under their policy and sees no violation.
    return {**browser_context_args, "viewport": {"width": 1280, "height": 720}, "bypass_csp": True}


@dataclass
class Server:
    url: str

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())  # type: ignore[no-any-return]

    def get(self, path: str) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return json.loads(response.read())  # type: ignore[no-any-return]

    def table(self, layouts: list[str], **extra: Any) -> str:
        """A table whose every hand is dealt from ``layouts``; seats 1.. are bots."""
        body: dict[str, Any] = {
            "layouts": layouts,
            "seats": len(layouts),
            "bots": {str(i): "beginner:scorer" for i in range(1, len(layouts))},
            "countdown_ms": 300,
            **extra,
        }
        return str(self.post("/api/test/tables", body)["code"])


ROOMY = Limits(
    creates_per_minute=10_000,
    open_tables_per_address=10_000,
    bot_tables_per_address=10_000,
    joins_per_minute=10_000,
    sheets_per_hour=10_000,
    devices_per_hour=10_000,
    histories_per_minute=10_000,
    address_states_per_s=10_000,
    requests_per_s=10_000,
    files_per_s=10_000,
    costly_per_minute=10_000,
)
"""Every page comes from 127.0.0.1: the per-address quotas are raised so the tests' own
traffic is never throttled."""


@contextmanager
def serving(db: Path, speed: float = 1.0) -> Iterator[Server]:
    """A server with the test hooks on ``db``; ``speed`` is its tables' clock speed
    (``Config.speed``, test-only)."""
    config = Config(db=str(db), port=free_port(), test_hooks=True, limits=ROOMY, speed=speed)
    with running(config) as port:
        yield Server(f"http://127.0.0.1:{port}")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the whole session."""
    with serving(tmp_path_factory.mktemp("web") / "web.db") as served:
        yield served


@dataclass
class Console:
    """Every console error and uncaught exception of a page (test 6: there are none)."""

    errors: list[str] = field(default_factory=list)

    def watch(self, page: Any) -> None:
        page.on(
            "console",
            lambda m: (
                self.errors.append(f"console {m.type}: {m.text}")
                if m.type in ("error", "warning")
                else None
            ),
        )
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e} {e.stack}"))


@pytest.fixture
def console(page: Any) -> Iterator[Console]:
    watched = Console()
    watched.watch(page)
    yield watched
    assert watched.errors == [], watched.errors


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the browser tests last. Playwright's sync API leaves an event loop marked
    running in the main thread for the rest of the session (its ``playwright`` fixture
    is session-scoped), after which ``asyncio.run`` in other tests would refuse to
    start. Under pytest-xdist each worker still runs its share in this order."""
    here = Path(__file__).parent
    items.sort(key=lambda item: here in Path(str(item.path)).parents)
