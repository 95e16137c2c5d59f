"""What players see of the ratings (issue 26, point 4; ``lobby/standings.py``,
``http/ratings_api.py``): a leaderboard per mode of established players only, paged
and bounded; a player's page data (each mode's rating with "?" while provisional, its
history and rated matches linking to the match pages); both a quota of the address."""

from __future__ import annotations

import secrets
from pathlib import Path

from sqlalchemy import insert

from nertz.rating import ESTABLISHED_MATCHES, Rating, points
from nertz.server.door.limits import Limits
from nertz.server.lobby.accounts import NEW_ACCOUNT_S
from nertz.server.lobby.standings import LEADERBOARD_PAGE, leaderboard
from nertz.server.store.schema import accounts_t, ratings_t
from nertz.server.store.store import Store

from ..live_server import eventually
from .test_accounts import LIMITS, error, make_account, serving
from .test_rated_accounts import age, device, join, rated_table, win

NOW = 1_800_000_000.0
DAY = 86_400.0


def _account(store: Store, name: str, mu: float, sigma: float, matches: int, last: float) -> str:
    account_id = secrets.token_hex(8)
    with store.engine.begin() as conn:
        conn.execute(
            insert(accounts_t).values(
                id=account_id, name=name, created=0.0, recovery_hash="-", owner_address="-"
            )
        )
        conn.execute(
            insert(ratings_t).values(
                key=account_id, mode="solo", mu=mu, sigma=sigma, matches=matches, last=last
            )
        )
    return account_id


def test_the_leaderboard_lists_established_players_only_best_first(tmp_path: Path) -> None:
    """Established as of now (docs/rating.md): enough matches, a small enough sigma, and
    not grown back by a long absence; a provisional player, one away for two years and
    a device's rating (no account) are left out."""
    store = Store(str(tmp_path / "s.db"))
    _account(store, "Bea", 27.0, 5.0, 8, NOW - DAY)
    _account(store, "Ann", 31.0, 4.0, 12, NOW - 3 * DAY)
    _account(store, "Cy", 40.0, 5.0, ESTABLISHED_MATCHES - 1, NOW)  # too few matches
    _account(store, "Dee", 35.0, 5.0, 30, NOW - 730 * DAY)  # away two years: provisional
    _account(store, "Eve", 38.0, 7.9, 9, NOW)  # sigma too wide
    with store.engine.begin() as conn:  # a device's, from before rated play needed accounts
        conn.execute(
            insert(ratings_t).values(
                key="f" * 64, mode="solo", mu=45.0, sigma=3.0, matches=40, last=NOW
            )
        )
    board = leaderboard(store.engine, "solo", 1, NOW)
    assert [(r["rank"], r["name"]) for r in board["rows"]] == [(1, "Ann"), (2, "Bea")]
    assert (
        board["rows"][0]["shown"] == str(points(Rating(31.0))) and board["rows"][0]["matches"] == 12
    )
    assert board["players"] == 2 and board["pages"] == 1
    assert leaderboard(store.engine, "partners", 1, NOW)["rows"] == []
    store.close()


def test_the_leaderboard_is_paged(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "p.db"))
    for n in range(LEADERBOARD_PAGE + 10):
        _account(store, f"P{n:03d}", 20.0 + n / 10, 5.0, 6, NOW)
    first = leaderboard(store.engine, "solo", 1, NOW)
    second = leaderboard(store.engine, "solo", 2, NOW)
    assert first["pages"] == 2 and first["players"] == LEADERBOARD_PAGE + 10
    assert len(first["rows"]) == LEADERBOARD_PAGE and len(second["rows"]) == 10
    assert first["rows"][0]["name"] == f"P{LEADERBOARD_PAGE + 9:03d}"
    assert second["rows"][-1] == {**second["rows"][-1], "rank": LEADERBOARD_PAGE + 10}
    store.close()


def test_a_players_ratings_history_and_rated_matches(tmp_path: Path) -> None:
    """After a rated match: the player's solo rating with its "?" (one match is
    provisional), its change in the history linking to the match's page, which
    answers; partners never played is a new player's; unknown names are 404."""
    with serving(tmp_path / "p.db") as site, site.browser(device()) as ann:
        made, _ = make_account(ann, site.authenticator(), "Ann")
        age(site, made["account"]["id"], 2 * NEW_ACCOUNT_S)
        code = rated_table(ann)
        seat = join(ann, code, "Ann")
        assert seat.status_code == 200, seat.text
        win(site, code, seat.json()["token"])
        shown = eventually(
            lambda: (b := ann.get("/api/players/ann").json())["history"]["solo"] and b,
            "the rated match on the player's page",
        )
        assert shown["name"] == "Ann"  # found by any form of the name that looks the same
        solo = shown["ratings"]["solo"]
        assert solo["provisional"] and solo["shown"] == f"{solo['rating']}?"
        assert solo["rating"] > 1500 and solo["matches"] == 1
        assert shown["ratings"]["partners"] == {
            "rating": 1500,
            "shown": "1500?",
            "provisional": True,
            "matches": 0,
        }
        (change,) = shown["history"]["solo"]
        assert change["place"] == 1 and change["change"] == change["after"] - change["before"] > 0
        assert change["after"] == solo["rating"]
        assert shown["matches"] == [{**change, "mode": "solo"}]
        assert ann.get(f"/api/{change['link'].removeprefix('/')}").status_code == 200
        assert ann.get("/p/Ann").status_code == 200 and ann.get("/ratings").status_code == 200
        missing = ann.get("/api/players/Nobody")
        assert missing.status_code == 404 and error(missing) == "unknown_player"
        assert ann.get(f"/api/players/{'x' * 500}").status_code == 404


def test_the_rating_routes_refuse_bad_input_and_are_a_quota_of_the_address(
    tmp_path: Path,
) -> None:
    limits = Limits(
        histories_per_minute=5,
        recoveries_per_hour=LIMITS.recoveries_per_hour,
        accounts_per_day=LIMITS.accounts_per_day,
        ceremonies_per_minute=LIMITS.ceremonies_per_minute,
    )
    with serving(tmp_path / "q.db", limits=limits) as site, site.browser() as someone:
        assert someone.get("/api/ratings/solo").json()["rows"] == []
        unknown = someone.get("/api/ratings/blitz")
        assert unknown.status_code == 404 and error(unknown) == "unknown_mode"
        for page in ("0", "21", "x"):
            bad = someone.get(f"/api/ratings/solo?page={page}")
            assert bad.status_code == 400 and error(bad) == "bad_page"
        over = someone.get("/api/players/Ann")
        assert over.status_code == 429 and error(over) == "too_many_histories"
        assert int(over.headers["retry-after"]) > 0
        assert someone.get("/api/ratings/solo").status_code == 429  # the door remembers
