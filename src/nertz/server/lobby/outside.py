"""Outside bots: programs a person registers and runs anywhere, which sit at tables
over the documented protocol and are marked as bots on every page (docs/bots.md,
"Outside bots").

A bot is registered under a name (``POST /api/bots``, ``http/bots_api.py``): the server
answers a token of 192 random bits once and keeps only its SHA-256 (``bots``), so a
stolen database seats no bot. The name goes into the ``names`` registry, keyed by what
it looks like (``names.name_key``: case, compatibility forms and look-alike letters
folded), with its kind and its holder's id: no two holders share a name, and nobody sits
at a table under a name held there (``Lobby.join``) but its holder. Accounts
(``accounts.py``, kind ``account``) hold theirs beside the bots'.

Revoking a bot (``DELETE /api/bots/{name}`` with its token) marks it revoked: its token
is refused from then on (``bad_bot_token``), and its name stays held, so nobody else
takes it and passes for the bot that played under it.
"""

from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from nertz.server.door.requests import RequestError
from nertz.server.lobby.hashing import hash_secret
from nertz.server.store.schema import bots_t, names_t
from nertz.server.table.names import name_key

__all__ = ["BOT_KIND", "OutsideBot", "OutsideBots", "bad_bot_token"]

BOT_KIND = "bot"
"""The kind of a name a registered bot holds (``names.kind``)."""


@dataclass(frozen=True, slots=True)
class OutsideBot:
    """A registered bot that is not revoked: its id and the name it plays under."""

    id: str
    name: str


def bad_bot_token() -> RequestError:
    """The one answer for a token that is no bot's and for a revoked bot's: a token
    tells nothing about which bots exist."""
    return RequestError(
        "bad_bot_token", "that is not the token of a registered bot (or the bot was revoked)", 401
    )


class OutsideBots:
    """The registered bots and the names registry, in the server's database (blocking
    calls: run them in a thread)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def register(self, clean: str, address_hash: str, device: str | None) -> str:
        """Register a bot under ``clean``, a name checked as a person's is
        (``lobby.player_name``: length, characters, not a bot's spec or given name),
        held for it for good; returns the token. A name held already, in any form that
        looks the same, is ``409 name_held``."""
        token = secrets.token_urlsafe(24)
        bot_id, now = secrets.token_hex(8), time.time()
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(names_t).values(
                        key=name_key(clean), name=clean, kind=BOT_KIND, owner=bot_id, created=now
                    )
                )
                conn.execute(
                    insert(bots_t).values(
                        id=bot_id,
                        name=clean,
                        token_hash=hash_secret(token),
                        created=now,
                        owner_address=address_hash,
                        owner_device=device,
                    )
                )
        except IntegrityError:
            raise RequestError(
                "name_held",
                f"{clean!r} is held already (by a registered bot, or a name that looks the "
                "same); choose another",
                409,
            ) from None
        return token

    def holder(self, name: str) -> tuple[str, str, str] | None:
        """Who holds ``name`` (in any form that looks the same): (its kind, the name as
        held, its holder's id), or None."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(names_t.c.kind, names_t.c.name, names_t.c.owner).where(
                    names_t.c.key == name_key(name)
                )
            ).first()
        return None if row is None else (row.kind, row.name, row.owner)

    def by_token(self, token: str) -> OutsideBot:
        """The bot this token is (not revoked), else ``bad_bot_token``."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(bots_t.c.id, bots_t.c.name, bots_t.c.token_hash).where(
                    bots_t.c.token_hash == hash_secret(token), bots_t.c.revoked.is_(None)
                )
            ).first()
        if row is None or not hmac.compare_digest(row.token_hash, hash_secret(token)):
            raise bad_bot_token()
        return OutsideBot(row.id, row.name)

    def revoke(self, name: str, token: str) -> str:
        """Revoke the bot called ``name`` whose token this is: the name as held. A token
        that is not that bot's is ``bad_bot_token``, as any wrong token."""
        bot = self.by_token(token)
        if name_key(bot.name) != name_key(name):
            raise bad_bot_token()
        with self.engine.begin() as conn:
            conn.execute(update(bots_t).where(bots_t.c.id == bot.id).values(revoked=time.time()))
        return bot.name
