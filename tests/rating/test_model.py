"""The rating (``nertz.rating.model``, issue 26 point 2): OpenSkill's Plackett-Luce per
mode, ties for shared places (R32), leavers last, absence, provisional and established,
fixed bot ratings, partnerships as teams (R40), and the fold that rebuilds it all."""

from __future__ import annotations

import pytest

from nertz.bots import LEVELS
from nertz.rating import (
    BOT_RATINGS,
    ESTABLISHED_MATCHES,
    ESTABLISHED_SIGMA,
    MU,
    SIGMA,
    MatchResult,
    Rating,
    Side,
    absent,
    bot_for,
    established,
    fold,
    places,
    points,
    rate,
    rated_rules,
    shown,
)

DAY = 86_400.0


def solo(
    match: str, *order: tuple[int, str], left: tuple[str, ...] = (), at: float = 0.0
) -> MatchResult:
    return MatchResult(match, "solo", at, tuple(Side(p, (k,)) for p, k in order), left)


def test_places_follow_totals_and_winners_with_shared_places_tied() -> None:
    """R32: the winners share first place; equal totals below them share a place."""
    assert places([40, 100, 100, 12], [1, 2]) == (3, 1, 1, 4)
    assert places([50, 70, 70, 10], [1]) == (3, 1, 2, 4)  # tie_break caller: one winner
    assert places([5, 9, 5], [1]) == (2, 1, 2)


def test_a_shared_place_is_a_tie_equal_players_move_equally() -> None:
    """R16/R39 ties end in shared places: two new players who tie gain the same, and a
    tie between equals moves neither mean."""
    tied = rate({}, solo("T/1", (1, "ann"), (1, "ben"), (3, "cy")))
    after = tied.ratings
    assert after["ann"] == after["ben"]
    assert after["ann"].mu > MU > after["cy"].mu
    even = rate({}, solo("T/1", (1, "ann"), (1, "ben")))
    assert even.ratings["ann"].mu == pytest.approx(MU)
    assert even.ratings["ann"].sigma < SIGMA


def test_the_winner_gains_and_the_loser_loses() -> None:
    rated = rate({}, solo("T/1", (1, "ann"), (2, "ben")))
    by = {c.key: c for c in rated.changes}
    assert by["ann"].points > 0 > by["ben"].points
    assert by["ann"].after.matches == 1 and by["ann"].match == "T/1"


def test_a_leaver_ranks_last_below_every_seat() -> None:
    """A person who left (or whose place a bot played at the end) ranks after every
    seat, even the last one that finished: the result they left is not theirs."""
    result = solo("T/1", (1, "ann"), (2, "ben"), left=("cy",))
    rated = rate({}, result)
    by = {c.key: c for c in rated.changes}
    assert by["cy"].place == 3
    assert by["cy"].after.mu < by["ben"].after.mu < by["ann"].after.mu
    # Compared with finishing last themselves, leaving costs at least as much.
    stayed = rate({}, solo("T/1", (1, "ann"), (2, "ben"), (3, "cy"))).ratings["cy"]
    assert rated.ratings["cy"].mu == pytest.approx(stayed.mu)


def test_a_seat_played_out_by_a_bot_after_its_person_left_is_not_in_the_order() -> None:
    result = MatchResult("T/1", "solo", 0.0, (Side(1), Side(2, ("ann",))), ("ben",))
    rated = rate({}, result)
    by = {c.key: c for c in rated.changes}
    assert set(by) == {"ann", "ben"}
    assert by["ann"].after.mu > MU > by["ben"].after.mu  # ann's 2nd is first of the people


def test_sigma_grows_with_absence_up_to_a_new_players() -> None:
    sure = Rating(30.0, 3.0, 40, last=0.0)
    assert absent(sure, 0.0) == sure
    month, year = absent(sure, 30 * DAY), absent(sure, 365 * DAY)
    assert 3.0 < month.sigma < year.sigma <= SIGMA
    assert month.mu == sure.mu
    assert absent(sure, 100 * 365 * DAY).sigma == SIGMA
    # The rate is the stated one: sigma^2 grows linearly with the days away.
    assert year.sigma**2 - 3.0**2 == pytest.approx(12 * (month.sigma**2 - 3.0**2), rel=0.02)


def test_absence_is_counted_before_the_next_match() -> None:
    ann = Rating(30.0, 3.0, 40, last=0.0)
    soon = rate({"ann": ann}, solo("T/1", (1, "ann"), (2, "ben"), at=DAY)).changes[0]
    late = rate({"ann": ann}, solo("T/1", (1, "ann"), (2, "ben"), at=200 * DAY)).changes[0]
    assert late.before.sigma > soon.before.sigma
    assert late.after.mu - late.before.mu > soon.after.mu - soon.before.mu  # moves faster


def test_a_rating_is_provisional_until_enough_matches_and_certainty() -> None:
    """A newcomer against established players: provisional (shown with "?") for fewer
    than ``ESTABLISHED_MATCHES`` matches, established after them once sigma is small."""
    field = {k: Rating(MU + d, 3.0, 40) for k, d in (("a", -2.0), ("b", 0.0), ("c", 2.0))}
    ratings: dict[str, Rating] = dict(field)
    seen = []
    for n in range(ESTABLISHED_MATCHES):
        order = [(1 + (i + n) % 4, k) for i, k in enumerate(["new", "a", "b", "c"])]
        ratings = dict(rate(ratings, solo(f"T/{n}", *order)).ratings)
        seen.append(established(ratings["new"]))
    assert seen == [False] * (ESTABLISHED_MATCHES - 1) + [True]
    assert ratings["new"].sigma <= ESTABLISHED_SIGMA < SIGMA
    assert shown(ratings["new"]) == str(points(ratings["new"]))
    assert shown(Rating()) == "1500?"
    # Enough matches but not sure enough: still provisional.
    assert not established(Rating(25.0, ESTABLISHED_SIGMA + 0.5, 50))


def test_bots_take_part_at_their_fixed_rating_and_are_never_updated() -> None:
    """A bot's seat calibrates: beating a demon gains more than beating a beginner, and
    no bot rating is stored or changed however often it loses."""
    result_hi = MatchResult("T/1", "solo", 0.0, (Side(1, ("ann",)), Side(2, bots=("demon",))))
    result_lo = MatchResult("T/1", "solo", 0.0, (Side(1, ("ann",)), Side(2, bots=("beginner",))))
    hi, lo = rate({}, result_hi), rate({}, result_lo)
    assert hi.ratings["ann"].mu > lo.ratings["ann"].mu > MU
    assert set(hi.ratings) == {"ann"} and [c.key for c in hi.changes] == ["ann"]
    before = dict(BOT_RATINGS)
    ratings: dict[str, Rating] = {}
    for n in range(30):  # farming a bot: it never drops
        ratings = dict(rate(ratings, MatchResult(f"T/{n}", "solo", 0.0, result_lo.sides)).ratings)
    assert before == BOT_RATINGS and set(ratings) == {"ann"}
    assert bot_for(BOT_RATINGS["demon"][0] + 10) == "demon"
    assert bot_for(BOT_RATINGS["beginner"][0]) == "beginner"
    with pytest.raises(ValueError, match="no fixed rating for bot level 'grandmaster'"):
        rate(
            {}, MatchResult("T/1", "solo", 0.0, (Side(1, ("ann",)), Side(2, bots=("grandmaster",))))
        )


def test_partnerships_rate_two_person_teams_in_their_own_mode() -> None:
    """R40: a partnership seat is a team of two; both partners move together, and the
    partnerships mode keeps ratings apart from solo."""
    result = MatchResult("T/1", "partners", 0.0, (Side(1, ("ann", "ben")), Side(2, ("cy", "dee"))))
    ratings, changes = fold([result, solo("T/2", (2, "ann"), (1, "cy"))])
    assert ratings[("partners", "ann")] == ratings[("partners", "ben")]
    assert ratings[("partners", "ann")].mu > MU > ratings[("partners", "dee")].mu
    assert ratings[("solo", "ann")].mu < MU < ratings[("solo", "cy")].mu
    assert ratings[("solo", "ann")].matches == 1 and ratings[("partners", "ann")].matches == 1
    assert len(changes) == 6
    # A bot partner counts at its fixed rating and is not rated.
    with_bot = MatchResult(
        "T/3", "partners", 0.0, (Side(1, ("ann",), ("skilled",)), Side(2, ("cy", "dee")))
    )
    assert [c.key for c in rate({}, with_bot).changes] == ["ann", "cy", "dee"]


def test_fold_is_rate_applied_in_order() -> None:
    results = [
        solo("T/1", (1, "ann"), (2, "ben"), at=0.0),
        solo("T/2", (2, "ann"), (1, "cy"), (3, "ben"), at=DAY),
        solo("T/3", (1, "ben"), (2, "cy"), left=("ann",), at=3 * DAY),
    ]
    by_hand: dict[str, Rating] = {}
    for r in results:
        by_hand = dict(rate(by_hand, r).ratings)
    folded, changes = fold(results)
    assert {k: v for (_, k), v in folded.items()} == by_hand
    assert [c.match for c in changes] == ["T/1"] * 2 + ["T/2"] * 3 + ["T/3"] * 3


def test_nothing_to_rate_changes_nothing_and_a_bad_mode_is_refused() -> None:
    alone = rate({}, solo("T/1", (1, "ann")))
    assert alone.changes == () and dict(alone.ratings) == {}
    with pytest.raises(ValueError, match="mode must be one of solo, partners"):
        rate({}, MatchResult("T/1", "duo", 0.0, ()))
    with pytest.raises(ValueError, match="holds two places"):
        rate({}, solo("T/1", (1, "ann"), (2, "ann")))


def test_the_rated_preset_is_quick_with_partnerships_choosing_the_mode() -> None:
    rules = rated_rules()
    assert rules.match == "single" and rules.nertz_pile == 11 and not rules.partnerships
    assert rated_rules(True).partnerships


def test_every_bot_level_a_table_can_seat_plays_rated_at_a_fixed_rating() -> None:
    """Each level of ``nertz.bots.LEVELS`` (``master`` too, issue 28) has its published
    rating, so a rated table can seat it and a rated match with it can be rated."""
    assert set(BOT_RATINGS) == set(LEVELS)
    result = MatchResult("T/1", "solo", 0.0, (Side(1, ("ann",)), Side(2, bots=("master",))))
    assert rate({}, result).ratings["ann"].mu > MU
