"""The lobby: creating, listing and joining tables; codes, links and seat tokens.

Every table has a short code to read aloud (six letters and digits with no look-alikes
such as 0/O or 1/I). A private table is joined by its invite (``invites.py``: ten such
characters, 49 random bits, typed on the home page or carried by the link as its key);
only the key's hash is stored, and the hash of the watch link's secret beside it.
Joining a seat returns a seat token of 192
random bits (``secrets``); the server keeps only its SHA-256 hash, so a stolen database
does not hand out seats.
"""

from __future__ import annotations

import asyncio
import collections
import hmac
import logging
import re
import secrets
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from nertz.bots import parse_places
from nertz.engine import Deal, Rules, RulesError, duplicate_refusal, preset
from nertz.rating import RATED_PRESET, rated_rules
from nertz.server.door.requests import RequestError
from nertz.server.lobby.accounts import ACCOUNT_KIND
from nertz.server.lobby.actor import Clock, TableActor, restored_actor
from nertz.server.lobby.archive import Archived, finished_table
from nertz.server.lobby.devices import Devices
from nertz.server.lobby.hashing import hash_secret
from nertz.server.lobby.invites import (
    CODE_ALPHABET,
    Invite,
    invite_form,
    invite_of,
    new_invite,
)
from nertz.server.lobby.outside import OutsideBots
from nertz.server.lobby.ratings import install as install_ratings
from nertz.server.store.store import Store, StoredTable, TableCreated
from nertz.server.table.commands import Join, Revoked, Stage
from nertz.server.table.names import bot_given_name, is_bot_name
from nertz.server.table.records import DealRecord, DiscardRecord
from nertz.server.table.settings import Settings
from nertz.server.table.table import Table
from nertz.server.table.visible import codepoint, invisible

__all__ = [
    "CODE_ALPHABET",
    "CreateTable",
    "Lobby",
    "LobbyError",
    "check_name",
    "new_table_id",
    "player_name",
    "table_request",
    "unknown_table",
]

CODE_LENGTH = 6
NAME_MAX = 24
SERIES_KEPT_S = 24 * 3600
"""A table whose match ended this recently comes back after a restart, between its
matches: its people may still play again (``series.py``). Older ones stay over."""
ARCHIVE_CACHE = 256
"""Finished tables' pictures kept in memory (rebuilt from the store on a miss)."""
log = logging.getLogger("nertz.lobby")
_NAME = re.compile(r"^[\w][\w .'\-]*$")


class LobbyError(RequestError):
    """A lobby request that cannot be done: a code and a sentence."""


class CreateTable(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/tables``. Seats are numbered from 0; ``bots`` maps a seat to a bot
    spec (``expert``, ``demon:racer`` ...; docs/bots.md), at a partnership table to
    both partners' (``expert+casual``, or ``+expert`` for a person with a bot partner).
    ``people`` (partnership tables only) sets the seats from a head count (R40). A
    setting left out (None) takes its default, declared once in ``Settings``."""

    preset: str = "standard"
    options: dict[str, str | int | bool] = {}
    seats: int | None = None
    people: int | None = None
    bots: dict[int, str] = {}
    public: bool | None = None
    bot_takeover_s: int | None = None
    reconnect_s: int | None = None
    ready_s: int | None = None
    countdown_ms: int | None = None
    next_hand_s: int | None = None
    host_start_s: int | None = None
    outside_bots: bool | None = None


_SETTINGS = (
    "public",
    "countdown_ms",
    "next_hand_s",
    "bot_takeover_s",
    "reconnect_s",
    "host_start_s",
    "ready_s",
    "outside_bots",
)
"""The settings a request passes on as it gives them (``seats`` and ``bots`` are read)."""


def table_request(body: CreateTable) -> tuple[Rules, Settings]:
    """The rules and settings a request asks for, each value checked (``LobbyError``)."""
    try:
        rules = preset(body.preset).with_text({k: str(v) for k, v in body.options.items()})
    except RulesError as error:
        raise LobbyError("bad_rules", str(error)) from None
    given: dict[str, Any] = {"bots": dict(body.bots)}
    seats = _seats(body, rules)
    if seats is not None:
        given["seats"] = seats
    for name in _SETTINGS:
        value = getattr(body, name)
        if value is not None:
            given[name] = value
    try:
        settings = Settings(**given).check()
    except ValueError as error:
        raise LobbyError("bad_field", str(error)) from None
    refused = duplicate_refusal(rules, settings.seats, settings.practice)
    if refused is not None:
        raise LobbyError("bad_rules", refused)
    return rules, settings


def _seats(body: CreateTable, rules: Rules) -> int | None:
    """How many seats: ``seats`` (None: the default), or at a partnership table half of
    the players, ``people`` and the bots of ``bots`` together (R40: two to a seat)."""
    if body.people is None:
        return body.seats
    if not rules.partnerships:
        raise LobbyError(
            "bad_field", "people is for partnership tables (partnerships on, R40); give seats"
        )
    bots = 0
    for spec in body.bots.values():
        try:
            bots += sum(b is not None for b in parse_places(spec, True))
        except ValueError as error:
            raise LobbyError("bad_bots", str(error)) from None
    players = body.people + bots
    if body.people < 1 or players % 2:
        raise LobbyError(
            "odd_people",
            f"partnerships need an even number of players (R40): {body.people} "
            f"{'person' if body.people == 1 else 'people'} and {bots} bot"
            f"{'' if bots == 1 else 's'} leave one without a partner; invite one more "
            'person or give someone a bot partner (bots: {"0": "+skilled"})',
        )
    if not 1 <= players // 2 <= 8:
        raise LobbyError(
            "bad_field",
            f"a partnership table seats 2 to 16 players (1 to 8 seats), not {players}",
        )
    if body.seats is not None and body.seats != players // 2:
        raise LobbyError(
            "bad_field",
            f"{players} players make {players // 2} partnership seats, not {body.seats}",
        )
    return players // 2


def new_table_id() -> str:
    """A table's id in the database: 64 random bits."""
    return secrets.token_hex(8)


def check_name(name: object) -> str:
    """A display name: 1 to 24 letters, digits, spaces and ``.'-_``, no control chars,
    in its NFKC form (fullwidth ``Ａｎｎ`` is shown as ``Ann``). A name holding a
    character that draws nothing (``visible.invisible``: the Hangul fillers, which are
    letters, zero-width spaces...) is refused with the character named; a name that
    reads as a bot's (``bot expert``, ``names.is_bot_name``) is the bots'. At a table
    a name is also ``player_name``'s."""
    if not isinstance(name, str):
        raise LobbyError("bad_name", "name must be a string")
    text = unicodedata.normalize("NFKC", name).strip()
    hidden = next((c for c in text if invisible(c)), None)
    if hidden is not None:
        raise LobbyError(
            "bad_name",
            f"name holds an invisible character ({codepoint(hidden)}); "
            "a name is made of characters the others can see",
        )
    if not 1 <= len(text) <= NAME_MAX:
        raise LobbyError("bad_name", f"name must be 1 to {NAME_MAX} characters, not {len(text)}")
    if not _NAME.match(text):
        raise LobbyError(
            "bad_name",
            "name may hold letters, digits, spaces and . ' - _ only, starting with a letter "
            "or digit",
        )
    if is_bot_name(text):
        raise LobbyError(
            "bot_name", f"{text!r} reads as a bot's name; names starting with 'bot' are the bots'"
        )
    return text


def player_name(name: object) -> str:
    """A person's name at a table: a ``check_name`` that is not a bot's given name
    either (``Ben``, ``names.bot_given_name``): any seat may get a bot, and a person
    called like one could pass for it. (A score sheet's names are ``check_name``'s
    alone: no bot sits at a game of real cards.)"""
    text = check_name(name)
    given = bot_given_name(text)
    if given is not None:
        raise LobbyError(
            "bot_name",
            f"{text!r} looks like {given!r}, a name the bots go by; choose another so "
            "everyone can tell people from bots",
        )
    return text


def unknown_table(code: str) -> LobbyError:
    """The answer for a code with no table — and for a private table asked for
    without its key, so private codes cannot be told from unused ones."""
    return LobbyError("unknown_table", f"there is no table {code!r}", 404)


@dataclass(slots=True)
class Entry:
    """One table in the lobby."""

    id: str
    code: str
    key_hash: str | None
    actor: TableActor
    watch_hash: str | None = None
    """The watch link's secret, hashed (None: public, or made before watch links)."""
    creator_hash: str | None = None
    """The creator's host token, hashed (``Lobby.keep_for_creator``; None: none)."""
    creator_address: str | None = None
    """The address the table was made from, until the creator sits: a program that
    joins from there without the token is taken for the creator."""
    creator_sat: bool = False
    """The creator has sat (their token has served)."""
    newcomers: dict[str, str] = field(default_factory=dict)
    """At a rated table: each address a new account (``accounts.NEW_ACCOUNT_S``) sat
    down from, with that account: one new account per address (``Lobby.join``)."""

    @property
    def table(self) -> Table:
        return self.actor.table

    def key_ok(self, key: str | None) -> bool:
        """Does ``key`` let a person in (``may_join``)?"""
        return may_join(self.key_hash, key)

    def watch_ok(self, key: str | None) -> bool:
        """May someone holding ``key`` watch (``may_watch``)?"""
        return may_watch(self.key_hash, self.watch_hash, key)

    def holds_token(self, token: str) -> bool:
        """Is ``token`` a place's at this table (its hash is)?"""
        digest = hash_secret(token)
        return any(p.token_hash == digest for p in self.table.places)


def may_join(key_hash: str | None, key: str | None) -> bool:
    """Does ``key`` let a person in: the table is public, or ``key`` is its invite (in
    any case, with or without its dashes), or a link's key from before invites?"""
    if key_hash is None:
        return True
    if key is None:
        return False
    invite = invite_form(key)
    return hmac.compare_digest(hash_secret(key), key_hash) or (
        invite is not None and hmac.compare_digest(hash_secret(invite), key_hash)
    )


def may_watch(key_hash: str | None, watch_hash: str | None, key: str | None) -> bool:
    """May someone holding ``key`` watch: the table is public, or the key is its
    invite or its watch link's secret."""
    if may_join(key_hash, key):
        return True
    return (
        key is not None
        and watch_hash is not None
        and hmac.compare_digest(hash_secret(key), watch_hash)
    )


class Lobby:
    """Every table this server runs, by code."""

    def __init__(self, store: Store | None, *, max_tables: int = 2000, speed: float = 1.0):
        self.store = store
        self.max_tables = max_tables
        self.speed = speed
        self.tables: dict[str, Entry] = {}
        self._invites: dict[str, Entry] = {}
        """Private tables by their key's hash: where a typed invite leads."""
        self._used_codes: set[str] = set(store.finished_codes()) if store else set()
        self._archive: collections.OrderedDict[str, Archived] = collections.OrderedDict()
        """Code -> a finished table that left memory, as its link shows it; newest last."""
        self._changed: dict[str, tuple[Rules, dict[str, Any]]] = {}
        """Code to its table's rules and what they change, as ``open_tables`` last saw."""
        self._retiring: set[asyncio.Task[None]] = set()
        """Retirements under way (kept so the loop does not drop them half done)."""
        self.outside = OutsideBots(store.engine) if store else None
        """The registered outside bots and the names they hold (``outside.py``)."""
        self.dealers: Callable[[Settings], Callable[[int, Rules, int], Deal] | None] | None = None
        """The dealer of a table with these settings, if not the usual (``Table.dealer``):
        a daily deal's table deals the day's deal (``daily.py``), made or resumed."""
        if store is not None:  # a rated match's ratings change as its result is stored
            install_ratings(store)

    def restore(self) -> int:
        """Resume every unfinished match from the store (call inside the event loop)."""
        if self.store is None:
            return 0
        kept = self.store.unfinished(over_s=SERIES_KEPT_S)
        return sum(self.adopt(stored) is not None for stored in kept if not self._forget(stored))

    def _forget(self, stored: StoredTable) -> bool:
        """Forget a stored table never dealt that was made longer than its ``start_s``
        ago (``lifetimes.py``) rather than bring it back."""
        if not _expired(stored):
            return False
        assert self.store is not None
        self.store.submit(stored.id, [DiscardRecord()])
        return True

    def adopt(self, stored: StoredTable) -> Entry | None:
        """Resume one stored table here (a restart, or a cluster node taking it over);
        None if its log no longer replays."""
        try:
            rules = Rules(**stored.rules)
            settings = Settings.from_dict(stored.settings)
            actor = restored_actor(
                stored.id, stored.code, rules, settings, stored.records, self.store, self.speed
            )
        except (ValueError, TypeError, KeyError):
            # A log that no longer replays: better a table left out than one wrong.
            log.exception("table %s could not be resumed; it is left as stored", stored.code)
            self._used_codes.add(stored.code)
            return None
        self._deal_as(actor.table)
        if settings.rated:
            self._held_accounts(actor.table, stored.id)
        entry = Entry(stored.id, stored.code, stored.key_hash, actor, stored.watch_hash)
        self._add(entry)
        actor.start()
        return entry

    def _held_accounts(self, table: Table, table_id: str) -> None:
        """A resumed rated table's places get back the accounts that hold them (stored
        with the places the devices took), so one account still holds one place
        (``seats.py``) after a restart."""
        assert self.store is not None
        for held in Devices(self.store.engine).places_at([table_id]):  # the last one wins
            place = table.place(held.seat, held.partner)
            if held.until_hand is None and held.account is not None and place.token_hash:
                place.account = held.account

    def _deal_as(self, table: Table) -> None:
        """Give ``table`` the dealer its settings ask for (``dealers``), if any."""
        dealer = self.dealers(table.settings) if self.dealers is not None else None
        if dealer is not None:
            table.dealer = dealer

    async def drop(self, code: str, reason: str) -> None:
        """Stop running a table here without a word to the store (a cluster node that
        lost it): its connections are closed with ``reason`` and come back elsewhere."""
        entry = self.tables.pop(code, None)
        if entry is None:
            return
        if entry.key_hash is not None:
            self._invites.pop(entry.key_hash, None)
        for box in list(entry.actor.outboxes.values()):
            box.close(reason)
        entry.actor.outboxes.clear()
        await entry.actor.stop()

    def check_create(self, rules: Rules, settings: Settings) -> None:
        """Refuse a table this server cannot make (``LobbyError``): over the cap, a rated
        table not playing the rated preset, or bots on no seat or of no kind."""
        # Tables in memory bound those not over: only near the cap are they counted
        # (every table looked at, for each table made: most of a creation's time).
        if len(self.tables) >= self.max_tables and self.live_count() >= self.max_tables:
            raise LobbyError(
                "too_many_tables",
                f"this server runs at most {self.max_tables} tables; try again later",
                503,
            )
        if settings.rated and rules != rated_rules(rules.partnerships):
            raise LobbyError(
                "bad_rules",
                f"a rated table plays the {RATED_PRESET} preset (partnerships on or off),"
                f" not {rules.changed()}",
            )
        for seat, spec in settings.bots.items():
            if not 0 <= seat < settings.seats:
                raise LobbyError(
                    "bad_bots", f"bot seat {seat} is not a seat (0 to {settings.seats - 1})"
                )
            try:
                parse_places(spec, rules.partnerships)
            except ValueError as error:
                raise LobbyError("bad_bots", str(error)) from None

    def live_count(self) -> int:
        """Tables here not yet over."""
        return sum(1 for e in self.tables.values() if e.table.stage.value != "over")

    async def invited(self, settings: Settings) -> Invite | None:
        """A new private table's invite, its slow watch secret made on a worker thread
        (``invites.invite_of``); None for a public table. Given to ``create``."""
        if settings.public:
            return None
        return await asyncio.to_thread(invite_of, self._new_invite())

    def create(
        self,
        rules: Rules,
        settings: Settings,
        table_id: str | None = None,
        code: str | None = None,
        invite: Invite | None = None,
    ) -> tuple[Entry, str | None]:
        """A new table; returns it and the private key (None for a public table). A
        cluster node passes the id and code it reserved (``cluster/node.py``). A private
        table's ``invite`` comes from ``invited`` (made here, on the event loop, if not
        given: at startup and in tests)."""
        self.check_create(rules, settings)
        code = code or self.new_code()
        if settings.public:
            invite = None
        elif invite is None:
            invite = invite_of(self._new_invite())
        key = None if invite is None else invite.key
        key_hash = None if invite is None else invite.key_hash
        watch_hash = None if invite is None else invite.watch_hash
        table_id = table_id or new_table_id()
        table = Table(code, rules, settings)
        self._deal_as(table)
        actor = TableActor(table_id, table, self.store, Clock(self.speed))
        if self.store is not None:
            self.store.submit(
                table_id,
                [
                    TableCreated(
                        code,
                        key_hash,
                        settings.public,
                        rules.as_dict(),
                        settings.as_dict(),
                        time.time(),
                        watch_hash,
                    )
                ],
            )
        entry = Entry(table_id, code, key_hash, actor, watch_hash)
        self._add(entry)
        actor.start()
        return entry, key

    def _add(self, entry: Entry) -> None:
        self.tables[entry.code] = entry
        if entry.key_hash is not None:
            self._invites[entry.key_hash] = entry

        def done() -> None:
            self._retiring.add(asyncio.get_running_loop().create_task(self.retire(entry.code)))

        entry.actor.on_done = done

    async def retire(self, code: str) -> None:
        """Take a table that is ``done`` (``lifetimes.py``) out of memory: any connection
        left closes ("match over"), its actor stops; its link and ``/api/matches/{id}``
        answer from the store (``archived``), and its code is never given again."""
        self._retiring = {task for task in self._retiring if not task.done()}
        self._used_codes.add(code)
        await self.drop(code, "match over")

    async def archived(self, code: str, key: str | None) -> Archived:
        """A finished table that has left memory, as its link shows it, rebuilt from the
        store. Raises ``LobbyError`` as ``find`` does for a code with no finished table
        (a table never dealt is forgotten) or a private one asked for without its key."""
        code = code.strip().upper()
        found = self._archive.get(code)
        if found is None:
            if self.store is None:
                raise unknown_table(code)
            found = await asyncio.to_thread(finished_table, self.store, code)
            if found is None:
                raise unknown_table(code)
            self._archive[code] = found
            while len(self._archive) > ARCHIVE_CACHE:
                self._archive.popitem(last=False)
        else:
            self._archive.move_to_end(code)
        if not may_watch(found.key_hash, found.watch_hash, key):
            raise unknown_table(code)  # the same answer as a code never used
        return found

    def find(self, code: str) -> Entry:
        entry = self.tables.get(code.strip().upper())
        if entry is None:
            raise unknown_table(code)
        return entry

    def plays(self, table_id: str) -> bool:
        """Whether a table of this id is in memory here, its match not over: a store
        that has not written a new table yet (its row follows the answer that made it)
        must not make it look unknown. A scan, on refusals' paths only: the tables in
        memory are bounded (``Limits.max_tables``)."""
        return any(
            e.id == table_id and e.table.stage is not Stage.OVER for e in self.tables.values()
        )

    def by_invite(self, invite: str) -> Entry:
        """The private table whose invite is ``invite`` (``invites.invite_form``)."""
        entry = self._invites.get(hash_secret(invite))
        if entry is None:
            raise unknown_table(invite)
        return entry

    def keep_for_creator(self, entry: Entry, address: str) -> str:
        """The host token of a table just made from ``address``: whoever joins with it
        (or, without it, first from ``address``) is the host and takes the place the
        table keeps for them (``host.py``). Only its hash is kept."""
        token = secrets.token_urlsafe(24)
        entry.creator_hash, entry.creator_address = hash_secret(token), address
        entry.table.keep_for_creator(entry.table.now)
        return token

    def _creator(self, entry: Entry, host_token: str | None, address: str | None) -> bool:
        """Is this join the creator's (``keep_for_creator``)? A host token that is not
        the table's, or that has sat already, is refused (``LobbyError``)."""
        if host_token is not None:
            if entry.creator_hash is None or not hmac.compare_digest(
                hash_secret(host_token), entry.creator_hash
            ):
                raise LobbyError("bad_host_token", "that is not this table's host token", 403)
            if entry.creator_sat:
                raise LobbyError(
                    "creator_seated", "the person who made this table has sat down already", 409
                )
            return True
        return address is not None and not entry.creator_sat and address == entry.creator_address

    async def join(
        self,
        code: str,
        name: object,
        seat: int | None = None,
        key: str | None = None,
        partner: int | None = None,
        host_token: str | None = None,
        address: str | None = None,
        person: str | None = None,
        outside: bool = False,
        account: str | None = None,
        new_account: bool = False,
    ) -> tuple[Entry, int, int, str]:
        """Take a seat: returns the table, the seat number, the place in it (the
        partner, R40; 0 without partnerships) and the seat token. ``host_token`` (or a
        join from the creator's ``address``) seats the creator (``keep_for_creator``).
        ``person`` is who sits down (``devices.person_id``), for muting. ``outside``: a
        registered outside bot sits down under its name (``http/bots_api.py``); anyone
        else may not sit under a name a bot or an account holds (``outside.py``), but
        the signed-in ``account`` (its id, ``accounts.py``) under its own.

        A rated table (issue 26, point 5) seats only a signed-in ``account`` (``401
        account_required``: the rating is the account's), one place per account
        (``seats.py``, ``409 one_place``), and at most one ``new_account`` (younger
        than ``accounts.NEW_ACCOUNT_S``) per ``address`` (``409 new_account``)."""
        entry = self.find(code)
        if not entry.key_ok(key):
            if entry.watch_ok(key):
                raise LobbyError(
                    "watch_only",
                    "this is a watch link: it shows the table but takes no seat; "
                    "ask for the invite to play",
                    403,
                )
            raise LobbyError("private_table", "this table is private: use its link", 403)
        rated = entry.table.settings.rated and not outside
        if rated and account is None:  # after the key: a private code is not probed here
            raise LobbyError(
                "account_required",
                "rated tables are for accounts: sign in (or make an account with a passkey "
                "on the account page) to play rated; the rating is your account's",
                401,
            )
        clean = player_name(name)
        if not outside and self.outside is not None:
            held = await asyncio.to_thread(self.outside.holder, clean)
            mine = held is not None and held[0] == ACCOUNT_KIND and held[2] == account
            if held is not None and held[0] == ACCOUNT_KIND and not mine:
                raise LobbyError(
                    "name_held",
                    f"{clean!r} looks like {held[1]!r}, the name of someone's account: sign "
                    "in to it, or choose another",
                    409,
                )
            if held is not None and not mine:
                raise LobbyError(
                    "bot_name",
                    f"{clean!r} looks like {held[1]!r}, the name of a registered {held[0]}; "
                    "choose another so everyone can tell people from bots",
                )
        # A bot from the address that made the table is that program's own (it created
        # and joins): it takes the place kept for the creator, but is never host.
        creator = self._creator(entry, host_token, address)
        # Checked and kept with no wait between (no await): two joins at once from one
        # address cannot both pass.
        newcomer = rated and new_account and address is not None and account is not None
        if newcomer:
            assert address is not None and account is not None
            other = entry.newcomers.get(address)
            if other is not None and other != account:
                raise LobbyError(
                    "new_account",
                    "a rated table seats one account younger than a day from each "
                    "address, and one from yours sits here already: play rated with an "
                    "older account, or at another table",
                    409,
                )
            newcomer = other is None
            if newcomer:
                entry.newcomers[address] = account
        entry.creator_sat |= creator  # at once: a second join meanwhile is not the creator
        token = secrets.token_urlsafe(24)
        joining = Join(
            clean,
            hash_secret(token),
            seat,
            partner,
            person=person,
            creator=creator,
            outside=outside,
            account=account,
        )
        place, error = await entry.actor.request(joining)
        if error is not None:
            entry.creator_sat &= not creator
            if newcomer:
                assert address is not None
                del entry.newcomers[address]
            raise LobbyError(error[0], error[1], 409)
        return entry, place[0], place[1], token

    def revoked(self, name: str) -> None:
        """The outside bot ``name`` was revoked: every table where it holds a place (or
        is invited to one) gives it up (``Revoked``)."""
        for entry in self.tables.values():
            if entry.table.knows_outside(name):
                entry.actor.submit(Revoked(name))

    def open_tables(self) -> list[dict[str, Any]]:
        """Public tables with a free seat, or still waiting to start."""
        out = []
        changed, self._changed = self._changed, {}
        for entry in self.tables.values():
            table = entry.table
            if not table.settings.public or table.stage.value == "over":
                continue
            mine = table.kept  # the creator's place (host.py): not free to anyone else
            free = sorted(
                {p.number for i, p in enumerate(table.places) if not p.taken and i != mine}
            )
            kept = changed.get(entry.code)
            if kept is None or kept[0] is not table.rules:  # a cluster node asks every second
                kept = (table.rules, table.rules.changed())
            self._changed[entry.code] = kept
            out.append(
                {
                    "code": entry.code,
                    "stage": table.stage.value,
                    "seats": len(table.seats),
                    "free": free,
                    "rules": kept[1],
                }
            )
        return out

    async def stop(self) -> None:
        for entry in list(self.tables.values()):
            await entry.actor.stop()

    def _new_invite(self) -> str:
        while True:  # two tables never share an invite (a clash is one in 2^49)
            invite = new_invite()
            if hash_secret(invite) not in self._invites:
                return invite

    def new_code(self) -> str:
        """A code no table here has or had."""
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.tables and code not in self._used_codes:
                self._used_codes.add(code)
                return code


def _expired(stored: StoredTable) -> bool:
    """A stored table never dealt, made longer than its ``start_s`` ago."""
    if any(type(r) is DealRecord for r in stored.records):
        return False
    return time.time() - stored.created > Settings.from_dict(stored.settings).start_s
