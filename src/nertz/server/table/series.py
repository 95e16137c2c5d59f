"""A table plays a series: one match after another at the same link, the same seats.

When a match ends (R32) the table does not close: every person sees "Play again"
(the ``again`` message; the place's ``ready`` shows who said it). The next match deals as
soon as every connected person has said it (bots always agree; a person who is away is
not waited for, and a bot keeps their place until they return). Matches won per seat
are the series (``series_public``); a match won jointly counts for each winner.
Each finished match keeps who played each seat in it (``names``; a person a bot stood
in for is named, not the bot): its end panel, the series and the stored records name
them whatever happens to the seats afterwards.

``Series`` is the ``Table``'s collaborator that starts the next match (``next_match``)
and rolls a restored table's hands into the matches they belonged to (``roll_match``);
the match and its number are the table's (``TableContext.match``, ``match_no``).
What the store keeps of a series: a ``MatchBegunRecord`` when a match after the first
begins (the table is unfinished again), and each finished match's ``MatchRecord``
with its number and first hand. Hands are numbered across the whole series, so a
hand's records stay unique at the table.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from nertz.engine import Match
from nertz.server.protocol import MatchEndEvent, NextMatchEvent, ReadyEvent
from nertz.server.table.commands import Stage
from nertz.server.table.context import Actions, TableContext
from nertz.server.table.duplicate import points
from nertz.server.table.records import MatchBegunRecord, MatchRecord

__all__ = ["Series"]


class Series:
    """The ``Table``'s series of matches. State: ``past_winners`` (each finished
    earlier match's winning seats), ``past_names``, ``over_names`` and ``over_at``."""

    def __init__(self, ctx: TableContext, actions: Actions) -> None:
        self.ctx = ctx
        self.actions = actions
        # A lesson's hand comes before the match: the practice hands after it are the
        # match (``Practice.counts``).
        ctx.first_hand = 2 if ctx.settings.lesson else 1
        self.past_winners: list[tuple[int, ...]] = []
        self.past_names: list[list[str | None]] = []
        """Who played each seat in each finished earlier match (``played_names``)."""
        self.over_names: list[str | None] | None = None
        """Who played each seat in the current match, once it is over."""
        self.over_at: int | None = None
        """When the current match ended (table time), once it has."""
        self._told_names: list[list[str | None] | None] = []
        """Restoring: the names each stored ``match_end`` event told (``restore_names``)."""

    def played_names(self) -> list[str | None]:
        """Each seat's name now: its person (a bot standing in for them keeps their
        name), its bot, at a partnership seat both joined ("Ann & Bob", R40); None for
        a seat nobody holds."""
        per_seat = len(self.ctx.places) // self.ctx.settings.seats
        out: list[str | None] = []
        for seat in range(self.ctx.settings.seats):
            both = self.ctx.places[seat * per_seat : (seat + 1) * per_seat]
            names = [p.name for p in both if p.name]
            out.append(" & ".join(names) if names else None)
        return out

    def series_names(self) -> list[list[str | None]]:
        """Who played each seat in each finished match, the current one once over."""
        over = [self.over_names] if self.ctx.match.over and self.over_names is not None else []
        return [*self.past_names, *over]

    def series_wins(self) -> list[int]:
        """Matches won per seat so far, the current one included once it is over."""
        wins = [0] * self.ctx.settings.seats
        finished = list(self.past_winners)
        if self.ctx.match.over:
            finished.append(tuple(self.ctx.match.winners))
        for winners in finished:
            for seat in winners:
                wins[seat] += 1
        return wins

    def history(self) -> list[list[int]]:
        """Each seat's running total after each finished hand of the current match (the
        client's chart)."""
        running = [0] * self.ctx.settings.seats
        out: list[list[int]] = []
        for record in self.ctx.match.hands:
            running = [t + s.score for t, s in zip(running, record.scores, strict=True)]
            out.append(running)
        return out

    def series_public(self) -> dict[str, Any]:
        """The series as everyone sees it: which match this is, matches won per seat,
        the current match's first hand (hands are numbered across the series) and, once
        a match is over, who played each seat of each finished match (``names``) and
        who won it (``winners``): the standings name the people who won."""
        names = self.series_names()
        series = {
            "match": self.ctx.match_no,
            "wins": self.series_wins(),
            "first_hand": self.ctx.first_hand,
        }
        if not names:
            return series
        won = [list(w) for w in self.past_winners]
        if self.ctx.match.over:
            won.append(list(self.ctx.match.winners))
        return {**series, "names": names, "winners": won}

    def ready(self, conn: int, index: int | None) -> None:
        """Ready for the first deal or the next one (``again`` is for the next match)."""
        if index is None:
            self.ctx.error(conn, "not_seated", "spectators have no seat to get ready")
        elif self.ctx.stage in (Stage.SEATING, Stage.BETWEEN):
            place = self.ctx.places[index]
            if place.ready:
                self.ctx.error(conn, "already_ready", "this seat is already ready")
            else:
                place.ready = True
                self.ctx.emit(ReadyEvent(seat=place.number, partner=self.ctx.partner_no(place)))
        else:
            self.ctx.error(
                conn, "not_now", f"nothing to get ready for while {self.ctx.stage.value}"
            )

    def again(self, conn: int, index: int | None) -> None:
        """Play again: the place is ready for the next match (its ``ready`` shows it)."""
        if index is None:
            self.ctx.error(conn, "not_seated", "spectators have no seat to play again")
        elif self.ctx.stage is not Stage.OVER:
            self.ctx.error(conn, "not_now", "play again once the match is over (R32)")
        elif self.ctx.places[index].ready:
            self.ctx.error(conn, "already_ready", "this seat already said play again")
        else:
            place = self.ctx.places[index]
            place.ready = True
            self.ctx.emit(ReadyEvent(seat=place.number, partner=self.ctx.partner_no(place)))

    def maybe_again(self, now: int) -> None:
        """The next match once every connected person said "Play again" (bots always
        agree; people who are away are not waited for), and at least one person did."""
        people = [p for p in self.ctx.places if p.bot is None and p.conn is not None]
        if people and all(p.ready for p in people):
            self.next_match(now)

    def match_over(self, now: int) -> None:
        """The match is over (R32): everyone is told, with how long until the host may
        start the next; its record, with its place in the series."""
        self.ctx.stage = Stage.OVER
        self.over_at = now
        totals, winners = self.ctx.match.totals, self.ctx.match.winners
        wait = self.ctx.settings.host_start_s * 1000
        self.over_names = names = self.played_names()
        self.ctx.emit(
            MatchEndEvent(
                totals=list(totals),
                winners=list(winners),
                host_wait_ms=wait,
                names=names,
                duplicate_totals=(
                    [points(t) for t in self.ctx.match.duplicate_totals]
                    if self.ctx.match.rules.duplicate
                    else None
                ),
            )
        )
        players = tuple((p.number, p.partner, p.name or None, p.shown_bot) for p in self.ctx.places)
        away = tuple(
            (p.number, p.partner)
            for p in self.ctx.places
            if p.bot is None and p.token_hash is not None and p.driver is not None
        )
        self.ctx.store(
            MatchRecord(
                tuple(totals),
                tuple(winners),
                self.ctx.match_no,
                self.ctx.first_hand,
                players,
                away,
            )
        )

    def host_start_ms(self) -> int | None:
        """Once the match is over: when (table time) the host may start the next without
        waiting for everyone's "Play again" (``Settings.host_start_s``)."""
        if self.ctx.stage is not Stage.OVER or self.over_at is None:
            return None
        return self.over_at + self.ctx.settings.host_start_s * 1000

    def next_match(self, now: int) -> None:
        """The next match of the series at the same seats: totals from zero (R32)."""
        self.past_winners.append(tuple(self.ctx.match.winners))
        self.past_names.append(self.over_names or self.played_names())
        self.over_names = None
        self.ctx.match = Match(self.ctx.settings.seats, self.ctx.rules)
        self.ctx.match_no += 1
        self.ctx.first_hand = self.ctx.hand_no + 1
        self.over_at = None
        self.ctx.store(MatchBegunRecord(self.ctx.match_no, self.ctx.first_hand))
        self.ctx.emit(NextMatchEvent(match=self.ctx.match_no, wins=self.series_wins()))
        self.actions.deal(now)

    def roll_match(self, hand_no: int) -> None:
        """Restoring: hand ``hand_no`` follows a finished match, so it opened the next
        (under the rules in force then; a first hand, under the rules it was dealt by)."""
        if not self.ctx.match.hands:
            self.ctx.match = Match(self.ctx.settings.seats, self.ctx.rules)
        elif self.ctx.match.over:
            self.past_winners.append(tuple(self.ctx.match.winners))
            self.past_names.append(self.names_told(len(self.past_names)))
            self.ctx.match = Match(self.ctx.settings.seats, self.ctx.rules)
            self.ctx.match_no += 1
            self.ctx.first_hand = hand_no

    def resumed(self, now: int) -> None:
        """Restoring, once the hands are replayed: who played a match that is over, and
        the host's wait for the next counted anew from ``now``."""
        over = self.ctx.match.over
        if over:
            self.over_names = self.names_told(len(self.past_names))
        self.over_at = now if over else None

    def restore_names(self, events: Sequence[bytes]) -> None:
        """Restoring, before the hands are replayed: who played each finished match, as
        its ``match_end`` event told everyone (``names_told``)."""
        self._told_names = [
            json.loads(body)["e"].get("names") for body in events if b'"k":"match_end"' in body
        ]

    def names_told(self, number: int) -> list[str | None]:
        """The names the ``number``-th (from 0) ``match_end`` event told; for a match
        that ended before events carried them, the seats' names now (the best there is)."""
        told = self._told_names
        names = told[number] if number < len(told) else None
        return list(names) if names else self.played_names()
