"""The leaderboard and a player's page in Chromium (issue 26, point 4): /ratings lists
established players only, each linking to their page; /p/NAME shows each mode's
rating (with "?" while provisional), the rating's history as a chart and the rated
matches linking to their match pages."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import Page, expect
from sqlalchemy import create_engine, insert

from nertz.rating import Rating, points
from nertz.server.store.schema import accounts_t, names_t, rating_changes_t, ratings_t
from nertz.server.table.names import name_key

from .conftest import Console, serving

SHOTS = Path(__file__).resolve().parent.parent.parent / "build" / "screenshots"


def _player(db: Path, name: str, mus: list[float], sigma: float) -> None:
    """An account holding ``name`` whose solo rating went through ``mus`` (the first
    its start), one rated match each step, the last an hour ago."""
    now = time.time()
    engine = create_engine(f"sqlite:///{db}")
    account_id = name_key(name)[:16]
    with engine.begin() as conn:
        conn.execute(
            insert(names_t).values(
                key=name_key(name), name=name, kind="account", owner=account_id, created=0.0
            )
        )
        conn.execute(
            insert(accounts_t).values(
                id=account_id, name=name, created=0.0, recovery_hash="-", owner_address="-"
            )
        )
        steps = len(mus) - 1
        for n in range(steps):
            conn.execute(
                insert(rating_changes_t).values(
                    table_id=f"{name.upper()}{n}",
                    number=1,
                    key=account_id,
                    mode="solo",
                    place=1 if mus[n + 1] > mus[n] else 2,
                    finished=now - 3600 * (steps - n),
                    mu_before=mus[n],
                    sigma_before=sigma + 0.1,
                    mu_after=mus[n + 1],
                    sigma_after=sigma,
                    matches=n + 1,
                )
            )
        conn.execute(
            insert(ratings_t).values(
                key=account_id,
                mode="solo",
                mu=mus[-1],
                sigma=sigma,
                matches=steps,
                last=now - 3600,
            )
        )
    engine.dispose()


def test_the_leaderboard_and_a_players_page(page: Page, console: Console, tmp_path: Path) -> None:
    db = tmp_path / "ratings.db"
    with serving(db) as server:
        _player(db, "Ann", [25.0, 27.0, 26.0, 29.0, 31.0, 30.5, 33.0], 5.0)
        _player(db, "Bea", [25.0, 28.0], 7.9)  # one match: provisional, not on the board
        page.goto(f"{server.url}/ratings")
        solo = page.locator("table.leaderboard[data-mode=solo]")
        expect(solo.locator("tbody tr")).to_have_count(1)
        shown = str(points(Rating(33.0)))
        expect(solo.locator("tr[data-name=Ann] .rating")).to_have_text(shown)
        expect(page.locator("table.leaderboard[data-mode=partners]")).to_have_count(0)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "ratings-board.png"), full_page=True)

        solo.get_by_role("link", name="Ann").click()
        page.wait_for_url("**/p/Ann")
        expect(page.locator("h1")).to_have_text("Ann")
        expect(page.locator("[data-figure=solo] dd")).to_contain_text(f"{shown} (6 rated")
        expect(page.locator("[data-figure=partners] dd")).to_contain_text("1500? (0 rated")
        chart = page.locator("section.history[data-mode=solo] svg.chart")
        expect(chart.locator("circle")).to_have_count(7)  # the start and six matches
        expect(chart.locator("circle").last).to_have_attribute("data-rating", shown)
        links = page.locator("ul.matches li a")
        expect(links).to_have_count(6)
        expect(links.first).to_have_attribute("href", "/matches/ANN5/1")  # the newest first
        page.screenshot(path=str(SHOTS / "ratings-player.png"), full_page=True)

        page.goto(f"{server.url}/p/Bea")
        expect(page.locator("[data-figure=solo] dd")).to_contain_text(
            f"{points(Rating(28.0))}? (1 rated match)"
        )
