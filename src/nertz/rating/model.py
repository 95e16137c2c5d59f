"""The rating: OpenSkill's Plackett-Luce model over rated matches (issue 26, point 2).

A rating is a belief about a person's skill in one mode (``solo``, or ``partners``:
partnerships as two-person teams, R40): a mean ``mu`` and an uncertainty ``sigma``.
Each rated match is an order of finish (``MatchResult``): its places come from the
match's totals and winners (R32; ``places``), and shared places are ties. The model
(Weng and Lin's Plackett-Luce update, as the ``openskill`` package implements it) moves
each person's ``mu`` toward what the order says and shrinks ``sigma``.

Everything here is a pure function of its arguments: ``rate`` takes the ratings before
a match and its result and gives the ratings after and each change, so the ratings of
everyone are the fold of ``rate`` over the stored results in the order they finished
(``fold``), and a change is always explained by a stored match.

* **Leavers rank last.** A person who left the match for good, or whose place a bot
  played at its end (a takeover or a stand-in, ``MatchResult.left``), ranks below every
  seat that finished it, tied with other leavers. The seat's place is not theirs: it
  stays with whoever of its people played it to the end, or, played out by a bot, is
  left out of the order.
* **Absence.** ``sigma`` grows with the days since a person's last rated match
  (``absent``): its square gains ``ABSENCE_VARIANCE_PER_DAY`` a day, up to the new
  player's ``SIGMA``. A player back after months is provisional again and moves fast.
* **Provisional.** A rating is established once ``sigma`` is at most
  ``ESTABLISHED_SIGMA`` after at least ``ESTABLISHED_MATCHES`` rated matches; before,
  it is shown with a "?" and leaderboards leave it out (``established``, ``shown``).
* **Bots** sit at rated tables with fixed ratings by level (``bots.BOT_RATINGS``):
  they take part in every update as the players they are, and are never updated.
* **Shown as** ``1500 + 60 × (mu − 25)``: a new player is 1500 with an uncertainty of
  500 points, the scale and start people know from lichess (``points``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from openskill.models import PlackettLuce, PlackettLuceRating

from nertz.rating.bots import BOT_RATINGS

__all__ = [
    "ABSENCE_VARIANCE_PER_DAY",
    "BETA",
    "ESTABLISHED_MATCHES",
    "ESTABLISHED_SIGMA",
    "MODES",
    "MU",
    "SIGMA",
    "TAU",
    "Change",
    "MatchResult",
    "Rated",
    "Rating",
    "Side",
    "absent",
    "established",
    "fold",
    "mode_of",
    "places",
    "points",
    "rate",
    "shown",
]

MU = 25.0
"""A new player's mean (OpenSkill's default)."""
SIGMA = MU / 3
"""A new player's uncertainty (OpenSkill's default): also the most absence gives back."""
BETA = MU / 6
"""The spread of one match's performance around a player's skill (OpenSkill's default)."""
TAU = MU / 300
"""Added to sigma before each match (OpenSkill's default): a rating never freezes."""

ABSENCE_VARIANCE_PER_DAY = 0.05
"""How much ``sigma ** 2`` grows per day without a rated match (Glicko's ``c ** 2``): an
established 3.0 becomes about 4.8 after 100 days away and 6.0 after a year (points:
180 -> 290 -> 360), so a long absence makes the rating provisional again."""

ESTABLISHED_SIGMA = 7.5
"""A rating is established once sigma is at most this (450 points, 90% of a new
player's) ... OpenSkill's Plackett-Luce narrows sigma slowly: a newcomer's goes from
8.3 to about 7.2 in five four-seat matches against an established field (7.8 at most;
bench/rating.py, docs/rating.md). The bound is set where five such matches bring most
newcomers; sigma keeps narrowing after (about 6 after 20 matches)."""
ESTABLISHED_MATCHES = 5
"""... after at least this many rated matches in the mode (lichess: a provisional
rating until its deviation is small enough)."""

MODES = ("solo", "partners")
"""Each mode has its own ratings: alone at a seat, or two people sharing one (R40)."""

SCALE = 60.0
"""Points per unit of ``mu`` on the shown scale."""
SHOWN_AT = 1500.0
"""The shown rating of ``mu == MU``."""

_DAY_S = 86_400.0

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)


@dataclass(frozen=True, slots=True)
class Rating:
    """One person's rating in one mode, as of their last rated match."""

    mu: float = MU
    sigma: float = SIGMA
    matches: int = 0
    """Rated matches played in this mode."""
    last: float | None = None
    """When their last rated match finished (seconds since the epoch), None before one."""


@dataclass(frozen=True, slots=True)
class Side:
    """One seat of a rated match: who played it to the end and its place (1 first).

    ``people``: the keys of the people who played the seat to its end (one, or two
    partners, R40); ``bots``: the levels of the bots that sat there from the start
    (their fixed ratings count; they are never updated). A seat whose person left and
    which a bot played out has neither: it is left out of the order."""

    place: int
    people: tuple[str, ...] = ()
    bots: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A rated match's result, as the store keeps it: everything ``rate`` needs."""

    match: str
    """Which match (``table/number``): what a change is explained by."""
    mode: str
    """``solo`` or ``partners`` (``MODES``)."""
    finished: float
    """When it finished (seconds since the epoch): absences are measured to it."""
    sides: tuple[Side, ...]
    left: tuple[str, ...] = ()
    """People who left for good, or whose place a bot played at the end: they rank last."""


@dataclass(frozen=True, slots=True)
class Change:
    """One person's rating change in one match."""

    key: str
    match: str
    mode: str
    place: int
    """Their place in the order rated (leavers: after every seat)."""
    before: Rating
    """As it stood before the match, absence counted."""
    after: Rating

    @property
    def points(self) -> int:
        """The change on the shown scale (+/-)."""
        return points(self.after) - points(self.before)


@dataclass(frozen=True, slots=True)
class Rated:
    """What ``rate`` gives: every rating of the mode after the match, and the changes."""

    ratings: Mapping[str, Rating]
    changes: tuple[Change, ...]


def mode_of(partnerships: bool) -> str:
    """The mode of a table: ``partners`` at a partnership table (R40), else ``solo``."""
    return "partners" if partnerships else "solo"


def places(totals: Sequence[int], winners: Sequence[int]) -> tuple[int, ...]:
    """Each seat's place (1 first) from a finished match's totals and winners (R32).

    The winners share first place (a shared win, ``tie_break`` share; with ``caller``
    there is one). The others follow by total, highest first; equal totals share a
    place (a tie) and the next place skips, as in "1, 2, 2, 4".

    >>> places([40, 100, 100, 12], [1, 2])
    (3, 1, 1, 4)
    >>> places([104, 104, 90], [0])
    (1, 2, 3)
    >>> places([50, 70, 70, 10], [1])
    (3, 1, 2, 4)
    """
    out = [0] * len(totals)
    for seat in winners:
        out[seat] = 1
    rest = sorted((s for s in range(len(totals)) if s not in winners), key=lambda s: -totals[s])
    taken = len(set(winners))
    for i, seat in enumerate(rest):
        if i and totals[seat] == totals[rest[i - 1]]:
            out[seat] = out[rest[i - 1]]
        else:
            out[seat] = taken + i + 1
    return tuple(out)


def absent(rating: Rating, now: float) -> Rating:
    """``rating`` as it stands at ``now``: sigma grown by the days since its last match
    (``ABSENCE_VARIANCE_PER_DAY``), never above a new player's ``SIGMA``."""
    if rating.last is None or now <= rating.last:
        return rating
    days = (now - rating.last) / _DAY_S
    sigma = math.sqrt(rating.sigma**2 + ABSENCE_VARIANCE_PER_DAY * days)
    return replace(rating, sigma=min(SIGMA, max(rating.sigma, sigma)))


def established(rating: Rating) -> bool:
    """Whether a rating is established (leaderboards list only those); else provisional."""
    return rating.matches >= ESTABLISHED_MATCHES and rating.sigma <= ESTABLISHED_SIGMA


def points(rating: Rating) -> int:
    """The rating on the shown scale: ``1500 + 60 × (mu − 25)``, rounded."""
    return round(SHOWN_AT + SCALE * (rating.mu - MU))


def shown(rating: Rating) -> str:
    """The rating as a person reads it: ``1612``, or ``1540?`` while provisional."""
    return f"{points(rating)}{'' if established(rating) else '?'}"


def _bot_rating(level: str) -> PlackettLuceRating:
    if level not in BOT_RATINGS:
        raise ValueError(f"no fixed rating for bot level {level!r}: {', '.join(BOT_RATINGS)}")
    mu, sigma = BOT_RATINGS[level]
    return _MODEL.rating(mu=mu, sigma=sigma)


def rate(ratings: Mapping[str, Rating], result: MatchResult) -> Rated:
    """The ratings of ``result.mode`` after ``result``: ``ratings`` (every person's, by
    key; a person not in it is new) with the match's people updated, and one ``Change``
    per person rated. Pure: the same arguments give the same numbers.

    The order rated: each seat at its place (ties shared), bots' seats too; then every
    leaver, tied last. A match with fewer than two sides in that order, or nobody to
    rate, changes nothing."""
    if result.mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {result.mode!r}")
    sides = [s for s in result.sides if s.people or s.bots]
    last = max((s.place for s in result.sides), default=0) + 1
    order: list[tuple[int, tuple[str, ...], tuple[str, ...]]] = [
        (s.place, s.people, s.bots) for s in sides
    ]
    order += [(last, (key,), ()) for key in result.left]
    people = [key for _, keys, _ in order for key in keys]
    if len(order) < 2 or not people:
        return Rated(ratings, ())
    if len(set(people)) != len(people):
        raise ValueError(f"match {result.match}: a person holds two places in one order")
    before = {key: absent(ratings.get(key, Rating()), result.finished) for key in people}
    teams = [
        [_MODEL.rating(mu=before[k].mu, sigma=before[k].sigma) for k in keys]
        + [_bot_rating(level) for level in bots]
        for _, keys, bots in order
    ]
    new = _MODEL.rate(teams, ranks=[float(place) for place, _, _ in order])
    after = dict(ratings)
    changes = []
    for (place, keys, _), team in zip(order, new):
        for key, rated in zip(keys, team):  # the people first; bots' new values dropped
            was = before[key]
            now = Rating(rated.mu, rated.sigma, was.matches + 1, result.finished)
            after[key] = now
            changes.append(Change(key, result.match, result.mode, place, was, now))
    return Rated(after, tuple(changes))


def fold(
    results: Iterable[MatchResult],
    start: Mapping[tuple[str, str], Rating] | None = None,
) -> tuple[dict[tuple[str, str], Rating], list[Change]]:
    """Every rating, by ``(mode, key)``, after ``results`` in the order given (the order
    they finished), from ``start`` (nobody rated); and every change on the way."""
    by_mode: dict[str, dict[str, Rating]] = {m: {} for m in MODES}
    for (mode, key), rating in (start or {}).items():
        by_mode[mode][key] = rating
    changes: list[Change] = []
    for result in results:
        rated = rate(by_mode[result.mode], result)
        by_mode[result.mode] = dict(rated.ratings)
        changes.extend(rated.changes)
    out = {(mode, key): r for mode, ratings in by_mode.items() for key, r in ratings.items()}
    return out, changes
