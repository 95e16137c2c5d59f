"""Costly answers made off the event loop (``kept.Makers``, issue 24, point 2): many
asking at once for one new answer get it from one making, and however many answers are
asked for at once only a few are made at a time, so worker threads holding the GIL do
not take the event loop's turns from every table."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from nertz.server.door.limits import Limits
from nertz.server.http import web
from nertz.server.http.app import Config, create_app
from nertz.server.http.kept import MAKERS, Makers
from nertz.server.http.sheets import Sheet, SheetIn


def test_everyone_asking_for_an_answer_while_it_is_made_gets_that_one_making() -> None:
    made: list[str] = []
    release = threading.Event()

    def score_sheet() -> bytes:
        release.wait(30)
        made.append("sheet")
        return b"scored"

    async def run() -> None:
        makers = Makers()
        asking = [asyncio.create_task(makers.make("sheet 1", score_sheet)) for _ in range(8)]
        await asyncio.sleep(0)
        asking[0].cancel()  # one asker goes away: the others still get the answer
        release.set()
        answers = await asyncio.gather(*asking[1:])
        assert answers == [b"scored"] * 7
        assert made == ["sheet"]
        assert makers.making == {}  # made: asked again, it is made again (or kept)

    asyncio.run(run())


class Costly:
    """Work that takes 10 ms on a worker thread and counts how many ran at once."""

    def __init__(self) -> None:
        self.running = self.most = 0
        self.lock = threading.Lock()

    def __call__(self) -> int:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        threading.Event().wait(0.01)
        with self.lock:
            self.running -= 1
        return 1


def test_only_a_few_answers_are_made_at_once() -> None:
    make = Costly()

    async def run() -> None:
        makers = Makers(at_once=2)
        answers = await asyncio.gather(*(makers.make(n, make) for n in range(12)))
        assert answers == [1] * 12

    asyncio.run(run())
    assert make.most == 2


def test_sheets_checked_and_scored_take_the_same_few_slots_as_kept_answers() -> None:
    # Seven addresses posting long sheets while others read kept answers: at no moment
    # more than two threads of costly Python (each would take turns with the loop).
    costly = Costly()

    async def run() -> None:
        makers = Makers(at_once=2)
        new_sheets = [makers.run(costly) for _ in range(7)]
        kept = [makers.make(("sheet", n), costly) for n in range(7)]
        assert await asyncio.gather(*new_sheets, *kept) == [1] * 14

    asyncio.run(run())
    assert costly.most == 2


def test_a_making_that_fails_fails_for_everyone_waiting_and_is_not_kept() -> None:
    def broken() -> bytes:
        raise ValueError("no such sheet")

    async def run() -> None:
        makers = Makers()
        asking = [makers.make("gone", broken) for _ in range(3)]
        for outcome in await asyncio.gather(*asking, return_exceptions=True):
            assert isinstance(outcome, ValueError)
        assert makers.making == {}
        with pytest.raises(ValueError, match="no such sheet"):
            await makers.make("gone", broken)

    asyncio.run(run())


def test_long_sheets_posted_at_once_are_checked_a_few_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seven addresses' worth of long sheets posted at once (bench/abuse.py's opening):
    each is still checked, scored and stored, but no more than ``MAKERS`` checks run at
    once, each a thread of Python taking turns with every table's event loop."""
    checking = Costly()
    check = web.check_sheet

    def counted(data: SheetIn) -> Sheet:
        checking()
        return check(data)

    monkeypatch.setattr(web, "check_sheet", counted)
    names = [f"Player {i}" for i in range(8)]
    hands = [{"middle": [5] * 8, "nertz_left": [4] * 8} for _ in range(30)]
    config = Config(db=str(tmp_path / "m.db"), limits=Limits(sheets_per_hour=100))
    with (
        TestClient(create_app(config), base_url="http://127.0.0.1") as client,
        ThreadPoolExecutor(7) as posters,
    ):
        posted = list(
            posters.map(
                lambda _: client.post("/api/sheets", json={"names": names, "hands": hands}),
                range(7),
            )
        )
    assert [p.status_code for p in posted] == [201] * 7
    assert all(len(p.json()["scored"]) == 30 for p in posted)
    assert checking.most <= MAKERS  # unbounded, three or more ran at once here
