"""The host: the person who made the table runs it.

Creating a table over HTTP gives its creator a host token (``Lobby.keep_for_creator``)
and the table keeps a place for it: nobody else takes that place, and the creator is
the host whatever the order of joins (a stranger watching the list of public tables
may join first, but is host of nothing). The place is kept until the creator sits, or
for ``reconnect_s`` (as a place joined and never connected is held); then the first
person to join is host, as at a table made without a creator (``make play``, tests).

The host may change options between matches (everyone is told what changed), start now
with every empty place given to a bot, put a bot in the place of a person who is away
(a stand-in: the place stays theirs, in their name, until they come back or the host
takes the bot out), remove a person (their token stops working), and pass the role on.
When the host leaves (on purpose, or by losing the place) the role passes by itself to
the next person there. Every host action asked by anyone else is refused ``not_host``
with a sentence.

``Host`` is the ``Table``'s collaborator that does this. Who is host is an event
(``HostEvent``); a restored table reads it back from its event log (``restore``).
Options changed between matches are an event too (``OptionsEvent``): a restored table
replays each match under the rules it was played with (``rules_from``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from nertz.bots import CHOICES, bot_name, parse_seat
from nertz.engine import Match, Rules, RulesError, duplicate_refusal, view
from nertz.server.protocol import (
    ConnectedEvent,
    ErrorMsg,
    HostEvent,
    InvitedEvent,
    OptionsEvent,
    SeatEvent,
    TakeoverEvent,
    encode,
)
from nertz.server.protocol import Host as HostMessage
from nertz.server.table.bots import Bots
from nertz.server.table.commands import Join, Stage
from nertz.server.table.context import Actions, Place, TableContext
from nertz.server.table.lifetimes import Lifetimes
from nertz.server.table.names import name_key
from nertz.server.table.partners import Partners
from nertz.server.table.records import SeatRecord
from nertz.server.table.seats import Seats
from nertz.server.table.series import Series

__all__ = ["FIXED_OPTIONS", "Host", "rules_from"]

FIXED_OPTIONS = frozenset({"partnerships"})
"""Options a table keeps for good: a partnership table's seats have two places (R40)."""


def bot_specs(bot: str) -> tuple[str, ...] | str:
    """The seat specs a host's ``bot`` names: a plain choice's (``relaxed``, ``even``,
    ``fierce``, as the home page offers them; ``bots/choices.py``) or one seat spec
    (``skilled``); a sentence if it names neither."""
    picked = CHOICES.get(bot.strip().lower())
    if picked is not None:
        return picked.specs
    try:
        parse_seat(bot)
    except ValueError as error:
        return str(error)
    return (bot,)


_REMOVED = ErrorMsg("removed", "the host removed you from this table")
"""What a person the host removed is told."""

INVITED_NAME_MAX = 24
"""The longest name a person or a registered bot may have (the lobby's ``NAME_MAX``)."""


class Host:
    """The ``Table``'s host. State: ``host`` (the host's place index, or None) and the
    place kept for the creator (``kept``, until ``kept_until``)."""

    def __init__(
        self,
        ctx: TableContext,
        actions: Actions,
        seats: Seats,
        bots: Bots,
        partners: Partners,
        series: Series,
        lifetimes: Lifetimes,
    ) -> None:
        self.ctx = ctx
        self.actions = actions
        self.seats = seats
        self.bots = bots
        self.partners = partners
        self.series = series
        self.lifetimes = lifetimes
        self.host: int | None = None
        """The host's place index: the creator, else the first person to join
        (``claim``)."""
        self.kept: int | None = None
        """The place index kept for the creator until they sit (``keep_for_creator``)."""
        self.kept_until = 0
        """When the kept place is kept no longer (table time)."""

    # ------------------------------------------------------------------ who is host

    def keep_for_creator(self, now: int) -> None:
        """The table was just made by someone who holds its host token: keep the first
        empty place (seat 0's if a person's) for them, for ``reconnect_s``."""
        free = [i for i, p in enumerate(self.ctx.places) if p.bot is None and p.token_hash is None]
        if free:
            self.kept, self.kept_until = free[0], now + self.ctx.settings.reconnect_s * 1000

    def kept_place(self, now: int) -> Place | None:
        """The place kept for the creator, if it still is (``kept_until``)."""
        if self.kept is not None and now >= self.kept_until:
            self.kept = None  # the creator never came: the next to join is host
        return None if self.kept is None else self.ctx.places[self.kept]

    def claim(self, joined: Any, command: Join) -> Any:
        """The creator is the host as they sit, whatever the order of joins; at a table
        with no creator waiting (none, or their place no longer kept) the first person
        to take a place is. Passes the join's reply on."""
        if joined[0] is None:
            return joined
        index = self.ctx.places.index(self.ctx.place(*joined[0]))
        if command.outside:  # a program is never the host: it cannot read the host's dialog
            if command.creator:
                self.kept = None  # the program that made the table sat its own bot
            return joined
        if command.creator:
            self.kept = None
            if self.host != index:
                self._set_host(index)
        elif self.host is None and self.kept is None:
            self._set_host(index)
        return joined

    def _set_host(self, index: int | None) -> None:
        self.host = index
        place = None if index is None else self.ctx.places[index]
        self.ctx.emit(
            HostEvent(
                seat=None if place is None else place.number,
                partner=None if place is None else self.ctx.partner_no(place),
            )
        )

    def gone(self, place: Place) -> None:
        """The host left (or lost the place): the role passes to the next person
        connected, else to the next person holding a place, else to nobody."""
        if self.host is None or self.ctx.places[self.host] is not place:
            return
        people = [
            i
            for i, p in enumerate(self.ctx.places)
            if p is not place and p.bot is None and p.token_hash is not None and not p.outside
        ]
        here = [i for i in people if self.ctx.places[i].conn is not None]
        chosen: list[int | None] = [*here, *people, None]
        self._set_host(chosen[0])

    def restore(self, events: Sequence[bytes], rules: Rules) -> None:
        """Restoring: the rules in force now (options the host changed before the first
        deal hold for its match) and the host, the one the last ``host`` event named."""
        self.ctx.rules = rules
        if self.ctx.hand is None:
            self.ctx.match = Match(self.ctx.settings.seats, rules)
        for body in events:
            if b'"k":"host"' not in body:
                continue
            e = json.loads(body)["e"]
            if e["seat"] is None:
                self.host = None
            else:
                self.host = self.ctx.places.index(self.ctx.place(e["seat"], e.get("partner") or 0))

    def restore_stand_ins(self, events: Sequence[bytes]) -> None:
        """Restoring: the bots the host put in for people away, as the last ``takeover``
        event of each place left them (a ``seat`` event after it: the place changed
        hands, the stand-in went with it). The caller gives them their drivers."""
        kept: dict[tuple[int, int], str | None] = {}
        for body in events:
            if b'"k":"takeover"' in body or b'"k":"seat"' in body:
                e = json.loads(body)["e"]
                where = (e["seat"], e.get("partner") or 0)
                kept[where] = e.get("stand_in") if e["k"] == "takeover" and e["bot"] else None
        for (seat, partner), spec in kept.items():
            place = self.ctx.place(seat, partner)
            if spec is not None and place.bot is None and place.token_hash is not None:
                place.stand_in = spec

    def public(self) -> dict[str, int | None] | None:
        if self.host is None:
            return None
        place = self.ctx.places[self.host]
        return {"seat": place.number, "partner": self.ctx.partner_no(place)}

    # ------------------------------------------------------------------ actions

    def action(self, conn: int, index: int | None, action: HostMessage, now: int) -> None:
        if index is None or index != self.host:
            self.ctx.error(
                conn,
                "not_host",
                "only the host may do that; the host is the person who made the table",
            )
            return
        refusal = None
        if action.do == "start":
            refusal = self._start_now(action.bot or "skilled", now)
        elif action.do == "pass":
            target = self._person_at(action.seat, action.partner)
            if isinstance(target, str):
                refusal = target
            elif target.outside:
                refusal = f"{target.name} is a bot: the host role goes to a person"
            elif target.conn is None:
                refusal = "the host role goes to someone who is here"
            else:
                self._set_host(self.ctx.places.index(target))
        elif action.do == "bot":
            target = self._person_at(action.seat, action.partner)
            if isinstance(target, str):
                refusal = target
            elif target.conn is not None:
                refusal = f"{target.name} is here: only someone away can be replaced by a bot"
            else:
                refusal = self._bot_for(target, action.bot or "skilled", now)
        elif action.do == "bot_off":
            target = self._person_at(action.seat, action.partner)
            if isinstance(target, str):
                refusal = target
            elif target.stand_in is None:
                refusal = f"no bot you put in plays for {target.name}"
            else:
                self._bot_off(target, now)
        elif action.do == "remove":
            target = self._person_at(action.seat, action.partner)
            if isinstance(target, str):
                refusal = target
            else:
                self._remove(target, now)
        elif action.do == "invite":
            refusal = self._invite(action.seat, action.partner, action.bot)
        elif action.do == "options":
            if not self.lifetimes.may_change(conn, index, now):  # lifetimes.py: stored, so bounded
                return
            refusal = self._change_options(action.options or {})
        if refusal is not None:
            self.ctx.error(conn, "host_refused", refusal)

    def _invite(self, seat: int | None, partner: int | None, name: str | None) -> str | None:
        """Keep the free place at ``seat`` (``partner``) for the outside bot ``name``
        (None: keep it no longer). Only a registered bot can take it (its join brings
        its token, ``http/bots_api.py``), whatever the table's ``outside_bots``."""
        if seat is None or not 0 <= seat < self.ctx.settings.seats:
            return f"there is no seat {seat} at this table"
        if not 0 <= (partner or 0) < self.ctx.per_seat:
            return f"seat {seat} has no place {partner}"
        place = self.ctx.place(seat, partner or 0)
        if place.taken:
            return f"seat {seat} is taken: invite a bot to a free place"
        if self.kept is not None and self.ctx.places[self.kept] is place:
            return f"seat {seat} is kept for the person who made the table"
        if name is not None:
            name = " ".join(name.split())
            if not 1 <= len(name) <= INVITED_NAME_MAX:
                return f"a bot's name is 1 to {INVITED_NAME_MAX} characters"
        if name == place.invited:
            return f"seat {seat} is kept for {name} already" if name else "nobody is invited there"
        place.invited = name
        self.ctx.emit(InvitedEvent(seat=seat, partner=self.ctx.partner_no(place), name=name))
        return None

    def _person_at(self, seat: int | None, partner: int | None) -> Place | str:
        if seat is None or not 0 <= seat < self.ctx.settings.seats:
            return f"there is no seat {seat} at this table"
        per_seat = len(self.ctx.places) // self.ctx.settings.seats
        if not 0 <= (partner or 0) < per_seat:
            return f"seat {seat} has no place {partner}"
        target = self.ctx.place(seat, partner or 0)
        if target.bot is not None or target.token_hash is None:
            return f"nobody sits at seat {seat}"
        if self.host is not None and target is self.ctx.places[self.host]:
            return "that is you, the host"
        return target

    def _start_now(self, bot: str, now: int) -> str | None:
        """Deal now: every empty place goes to a bot (``bot``: a plain choice such as
        ``relaxed``, whose specs the empty places take in turn, or a seat spec such as
        ``skilled``); a person who joined but is not here has a bot play for them until
        they come."""
        if self.ctx.stage not in (Stage.SEATING, Stage.OVER):
            return f"the match is under way ({self.ctx.stage.value})"
        start_at = self.series.host_start_ms()
        if start_at is not None and now < start_at:
            wait = self.ctx.settings.host_start_s
            return (
                f"the next match deals when everyone here has said Play again, or from "
                f"{wait} s after the last one ended: {-(-(start_at - now) // 1000)} s to go"
            )
        specs = bot_specs(bot)
        if isinstance(specs, str):
            return specs
        empty = [p for p in self.ctx.places if p.bot is None and p.token_hash is None]
        for i, place in enumerate(empty):
            self._make_bot(place, specs[i % len(specs)], now)
        if self.ctx.stage is Stage.OVER:
            self.series.next_match(now)
        else:
            self.actions.deal(now)
        for place in self.ctx.places:
            if place.bot is None and place.conn is None and place.driver is None:
                self.seats.takeover(place, now)
        return None

    def _bot_for(self, place: Place, bot: str, now: int) -> str | None:
        """A bot stands in for a person who is away, like the one ``bot_takeover_s``
        brings but of the host's choosing and at once: the place stays the person's
        (their name, their token, their results); they take it back by coming back
        (``Seats.connect``), and it is kept for them meanwhile (never released)."""
        specs = bot_specs(bot)
        if isinstance(specs, str):
            return specs
        spec = specs[0]
        if place.driver is not None:
            place.driver.stop()
            place.driver = None
        place.stand_in = spec
        place.driver = self.bots.driver(place, spec)
        self.ctx.emit(
            TakeoverEvent(
                seat=place.number, partner=self.ctx.partner_no(place), bot=True, stand_in=spec
            )
        )
        hand = self.ctx.hand
        if hand is not None and self.ctx.stage in (Stage.COUNTDOWN, Stage.PLAYING):
            place.driver.begin(view(hand, place.number), self.ctx.match.totals)
            if self.ctx.stage is Stage.PLAYING:
                self.bots.plan(place, now)
                self.bots.replan_partner(place, now)
        return None

    def _bot_off(self, place: Place, now: int) -> None:
        """The host takes out the bot they put in: the place is the person's, away, as
        if they had just left (``reconnect_s`` and ``bot_takeover_s`` count from now)."""
        assert place.driver is not None
        place.driver.stop()
        place.driver, place.stand_in, place.left_ms = None, None, now
        self.partners.let_go(place)
        partner = self.ctx.partner_no(place)
        self.ctx.emit(TakeoverEvent(seat=place.number, partner=partner, bot=False))
        kept, bot = self.seats.kept(place)  # everyone sees how long it is kept now
        self.ctx.emit(
            ConnectedEvent(
                seat=place.number,
                partner=partner,
                connected=False,
                kept_until_ms=kept,
                bot_from_ms=bot,
            )
        )
        self.bots.replan_partner(place, now)

    def _make_bot(self, place: Place, spec: str, now: int) -> None:
        """An empty place is a bot's from now on (``start``; a person's place gets a
        stand-in instead, ``_bot_for``)."""
        place.token_hash, place.left_ms, place.ready = None, None, False
        place.bot, place.name = spec, bot_name(place.number, place.partner)  # not a spec
        place.invited = None  # the host started without the invited bot
        self.ctx.store(SeatRecord(place.number, place.name, None, spec, place.partner))
        self.ctx.emit(
            SeatEvent(
                seat=place.number, partner=self.ctx.partner_no(place), name=place.name, bot=spec
            )
        )
        place.driver = self.bots.driver(place, spec)
        hand = self.ctx.hand
        if hand is not None and self.ctx.stage in (Stage.COUNTDOWN, Stage.PLAYING):
            place.driver.begin(view(hand, place.number), self.ctx.match.totals)
            if self.ctx.stage is Stage.PLAYING:
                self.bots.plan(place, now)

    def revoked(self, name: str, now: int) -> None:
        """The outside bot ``name`` was revoked: every place it holds here is given up
        as if the host removed it (its connection is told why and closed, the seat
        token stops working), and a place kept for it is kept no more."""
        key = name_key(name)
        for place in self.ctx.places:
            if place.outside and name_key(place.name) == key:
                why = f"the bot {place.name} was revoked by its owner; its token is refused"
                self._remove(place, now, ErrorMsg("bot_revoked", why))
            elif place.invited is not None and name_key(place.invited) == key:
                place.invited = None
                self.ctx.emit(
                    InvitedEvent(seat=place.number, partner=self.ctx.partner_no(place), name=None)
                )

    def _remove(self, place: Place, now: int, told: ErrorMsg = _REMOVED) -> None:
        """The person loses the place: their connection is told (``told``) and closed,
        their token stops working, and the place is free (a bot plays it meanwhile)."""
        conn = place.conn
        if conn is not None:
            self.ctx.send(conn, encode(told))
            self.ctx.close(conn, told.code)
            self.ctx.conns.pop(conn, None)
            place.conn = None
        self.actions.release(place, now)

    def _change_options(self, given: dict[str, Any]) -> str | None:
        if self.ctx.stage not in (Stage.SEATING, Stage.OVER):
            return "options change between matches, not during one"
        fixed = sorted(FIXED_OPTIONS & set(given))
        if fixed:
            return f"{fixed[0]} stays as the table was made (its seats depend on it)"
        try:
            rules = self.ctx.rules.with_text({k: str(v) for k, v in given.items()})
        except RulesError as error:
            return str(error)
        settings = self.ctx.settings
        refused = duplicate_refusal(rules, settings.seats, settings.practice)
        if refused is not None:
            return refused
        before = self.ctx.rules.as_dict()
        changed = {k: v for k, v in rules.as_dict().items() if before[k] != v}
        if not changed:
            return "those are the options in force already"
        self.ctx.rules = rules
        if self.ctx.stage is Stage.SEATING:
            self.ctx.match = Match(self.ctx.settings.seats, rules)
        self.ctx.emit(OptionsEvent(changed=changed, rules=rules.as_dict()))
        return None


def rules_from(rules: Rules, events: Sequence[bytes]) -> tuple[dict[int, Rules], Rules]:
    """Restoring: the rules each hand was dealt under (hand number -> rules) and the
    rules in force now, from the event log: an ``options`` event changes the rules from
    the next deal on."""
    out: dict[int, Rules] = {}
    current = rules
    for body in events:
        if b'"k":"options"' in body:
            current = Rules(**json.loads(body)["e"]["rules"])
        elif b'"k":"dealt"' in body:
            out[json.loads(body)["e"]["hand"]] = current
    return out, current
