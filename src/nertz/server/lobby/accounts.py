"""Accounts: a person who follows from browser to browser, known by a passkey (issue 26,
point 1; docs/server.md, "Accounts"). No password is ever kept.

An account holds one name in the ``names`` registry (kind ``account``, beside the
outside bots' names: ``outside.py``), so no account takes a bot's or another account's
name, and no bot or person at a table takes an account's (``Lobby.join``). Renaming
releases the old name. It has one or more passkeys (``passkeys``: the WebAuthn
credential's id, its public key and its signature counter; ``passkeys.py`` runs the
ceremonies), never none, and a one-time recovery code, shown once and kept only as its
SHA-256 (``hash_secret``): using it signs in and replaces it.

A signed-in browser carries a session cookie: 256 random bits, kept as their SHA-256
(``account_sessions``), valid ``SESSION_DAYS``, at most ``SESSIONS_PER_ACCOUNT`` per
account (the oldest goes), a new one at every sign-in (the one it replaces is deleted).
A device (``devices.py``) a signed-in browser plays on is linked to the account
(``account_devices``): the account's history is that of every device linked to it.

Blocking calls: run them in a thread.
"""

from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from nertz.server.door.requests import RequestError
from nertz.server.lobby.hashing import hash_secret
from nertz.server.store.schema import (
    account_devices_t,
    account_sessions_t,
    accounts_t,
    names_t,
    passkeys_t,
)
from nertz.server.table.names import name_key

__all__ = [
    "ACCOUNT_KIND",
    "DEVICES_PER_ACCOUNT",
    "NEW_ACCOUNT_S",
    "RECOVERY_ALPHABET",
    "SESSIONS_PER_ACCOUNT",
    "SESSION_DAYS",
    "Account",
    "Accounts",
    "NewPasskey",
    "Passkey",
    "name_held",
    "recovery_key",
]

ACCOUNT_KIND = "account"
"""The kind of a name an account holds (``names.kind``)."""
SESSION_DAYS = 30
"""A session cookie signs in for this many days after it was made."""
SESSIONS_PER_ACCOUNT = 10
"""Signed-in browsers one account may have at once: a new one ends the oldest."""
DEVICES_PER_ACCOUNT = 50
"""Devices linked to one account: a person's browsers over the years, not a script's."""
NEW_ACCOUNT_S = 86_400
"""An account younger than this (a day) is new: a rated table seats at most one new
account per address (``Lobby.join``), so a fresh account made to lose to another
person's is not a farm."""
RECOVERY_ALPHABET = "ABCDEFGHJKMNPQRSTVWXYZ23456789"
"""The recovery code's letters: no ``0/O``, ``1/I/L`` or ``U`` to misread. Twenty of
them are 98 bits."""
_RECOVERY_LENGTH = 20


def recovery_key(code: str) -> str:
    """A recovery code as it is hashed: its letters and digits, upper case (a person may
    type it with or without the dashes, in any case).

    >>> recovery_key("abcd-efgh ") == recovery_key("ABCDEFGH")
    True
    """
    return "".join(c for c in code.upper() if c.isalnum())


def _new_recovery() -> str:
    letters = "".join(secrets.choice(RECOVERY_ALPHABET) for _ in range(_RECOVERY_LENGTH))
    return "-".join(letters[i : i + 4] for i in range(0, _RECOVERY_LENGTH, 4))


def name_held(name: str) -> RequestError:
    """The answer for a name held already, by any account or bot."""
    return RequestError(
        "name_held",
        f"{name!r} is held already (by an account or a registered bot, or a name that looks "
        "the same); choose another",
        409,
    )


@dataclass(frozen=True, slots=True)
class Account:
    """An account: its id (the ratings' key), the name it holds, when it was made."""

    id: str
    name: str
    created: float

    def is_new(self, now: float) -> bool:
        """Is the account younger than ``NEW_ACCOUNT_S`` at ``now`` (a wall-clock time)?"""
        return now - self.created < NEW_ACCOUNT_S


@dataclass(frozen=True, slots=True)
class Passkey:
    """One passkey of an account as stored."""

    id: str
    account: str
    credential_id: str
    """The authenticator's credential id, base64url."""
    public_key: bytes
    """Its COSE public key, as registered."""
    sign_count: int
    created: float
    used: float | None


@dataclass(frozen=True, slots=True)
class NewPasskey:
    """A passkey a registration ceremony verified (``passkeys.py``)."""

    credential_id: str
    public_key: bytes
    sign_count: int


def _account(row: object) -> Account:
    return Account(row.id, row.name, row.created)  # type: ignore[attr-defined]


def _passkey(row: object) -> Passkey:
    r = row
    return Passkey(
        r.id,  # type: ignore[attr-defined]
        r.account,  # type: ignore[attr-defined]
        r.credential_id,  # type: ignore[attr-defined]
        bytes(r.public_key),  # type: ignore[attr-defined]
        r.sign_count,  # type: ignore[attr-defined]
        r.created,  # type: ignore[attr-defined]
        r.used,  # type: ignore[attr-defined]
    )


class Accounts:
    """The accounts, their passkeys, sessions and devices, in the server's database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ------------------------------------------------------------------ accounts

    def create(self, name: str, account_id: str, passkey: NewPasskey, address_hash: str) -> str:
        """Make account ``account_id`` holding ``name`` (a name checked as a person's:
        ``lobby.player_name``) with its first passkey; returns its recovery code, to be
        shown this once. A name held already is ``409 name_held``; a passkey already
        registered, ``409 passkey_known``."""
        code, now = _new_recovery(), time.time()
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(names_t).values(
                        key=name_key(name),
                        name=name,
                        kind=ACCOUNT_KIND,
                        owner=account_id,
                        created=now,
                    )
                )
                conn.execute(
                    insert(accounts_t).values(
                        id=account_id,
                        name=name,
                        created=now,
                        recovery_hash=hash_secret(recovery_key(code)),
                        owner_address=address_hash,
                    )
                )
                self._insert_passkey(conn, account_id, passkey, now)
        except IntegrityError:
            if self.holder(name) is not None:
                raise name_held(name) from None
            raise _passkey_known() from None
        return code

    def by_id(self, account_id: str) -> Account | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(accounts_t).where(accounts_t.c.id == account_id)).first()
        return None if row is None else _account(row)

    def holder(self, name: str) -> tuple[str, str] | None:
        """Who holds ``name`` in the registry (in any form that looks the same): its
        kind and its holder's id, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(names_t.c.kind, names_t.c.owner).where(names_t.c.key == name_key(name))
            ).first()
        return None if row is None else (row.kind, row.owner)

    def rename(self, account_id: str, name: str) -> Account:
        """The account holds ``name`` instead of its name, which is released (anyone may
        take it from then on). The same name in another case or look-alike form is
        the same name: only how it is written changes. ``409 name_held`` if another
        holds it."""
        now = time.time()
        try:
            with self.engine.begin() as conn:
                row = conn.execute(
                    select(accounts_t.c.name).where(accounts_t.c.id == account_id)
                ).first()
                if row is None:
                    raise RequestError("no_account", "that account no longer exists", 404)
                old, new = name_key(row.name), name_key(name)
                if old == new:
                    conn.execute(update(names_t).where(names_t.c.key == new).values(name=name))
                else:
                    conn.execute(
                        delete(names_t).where(
                            names_t.c.key == old,
                            names_t.c.kind == ACCOUNT_KIND,
                            names_t.c.owner == account_id,
                        )
                    )
                    conn.execute(
                        insert(names_t).values(
                            key=new, name=name, kind=ACCOUNT_KIND, owner=account_id, created=now
                        )
                    )
                conn.execute(
                    update(accounts_t).where(accounts_t.c.id == account_id).values(name=name)
                )
        except IntegrityError:
            raise name_held(name) from None
        found = self.by_id(account_id)
        assert found is not None
        return found

    # ------------------------------------------------------------------ recovery

    def recovery_account(self, name: str) -> str | None:
        """The id of the account holding ``name``, if an account does (the recovery
        quota per account counts against it before the code is looked at)."""
        held = self.holder(name)
        return held[1] if held is not None and held[0] == ACCOUNT_KIND else None

    def recover(self, account_id: str, code: str) -> str | None:
        """If ``code`` is the account's recovery code: a new one (the old one is used up),
        to be shown once; else None."""
        given = hash_secret(recovery_key(code))
        with self.engine.begin() as conn:
            row = conn.execute(
                select(accounts_t.c.recovery_hash).where(accounts_t.c.id == account_id)
            ).first()
            if row is None or not hmac.compare_digest(row.recovery_hash, given):
                return None
            fresh = _new_recovery()
            done = conn.execute(
                update(accounts_t)
                .where(accounts_t.c.id == account_id, accounts_t.c.recovery_hash == given)
                .values(recovery_hash=hash_secret(recovery_key(fresh)))
            )
            if not done.rowcount:  # used at the same moment by another request
                return None
        return fresh

    def new_recovery(self, account_id: str) -> str:
        """A new recovery code for the account (the old one stops working), shown once."""
        fresh = _new_recovery()
        with self.engine.begin() as conn:
            conn.execute(
                update(accounts_t)
                .where(accounts_t.c.id == account_id)
                .values(recovery_hash=hash_secret(recovery_key(fresh)))
            )
        return fresh

    # ------------------------------------------------------------------ passkeys

    @staticmethod
    def _insert_passkey(conn: Connection, account_id: str, passkey: NewPasskey, now: float) -> str:
        handle = secrets.token_hex(8)
        conn.execute(
            insert(passkeys_t).values(
                id=handle,
                account=account_id,
                credential_id=passkey.credential_id,
                public_key=passkey.public_key,
                sign_count=passkey.sign_count,
                created=now,
            )
        )
        return handle

    def add_passkey(self, account_id: str, passkey: NewPasskey) -> str:
        """Another passkey for the account (its handle); ``409 passkey_known`` if that
        credential is registered already."""
        try:
            with self.engine.begin() as conn:
                return self._insert_passkey(conn, account_id, passkey, time.time())
        except IntegrityError:
            raise _passkey_known() from None

    def passkeys(self, account_id: str) -> list[Passkey]:
        """The account's passkeys, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(passkeys_t)
                .where(passkeys_t.c.account == account_id)
                .order_by(passkeys_t.c.created, passkeys_t.c.id)
            )
            return [_passkey(r) for r in rows]

    def passkey(self, credential_id: str) -> Passkey | None:
        """The passkey of this credential id (base64url), whoever's it is."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(passkeys_t).where(passkeys_t.c.credential_id == credential_id)
            ).first()
        return None if row is None else _passkey(row)

    def signed_with(self, passkey: Passkey, sign_count: int) -> bool:
        """Note a sign-in with ``passkey`` whose authenticator counted ``sign_count``:
        False if another sign-in with it was noted meanwhile (the same assertion, or
        a clone's, twice: refused)."""
        with self.engine.begin() as conn:
            done = conn.execute(
                update(passkeys_t)
                .where(
                    passkeys_t.c.id == passkey.id,
                    passkeys_t.c.sign_count == passkey.sign_count,
                )
                .values(sign_count=sign_count, used=time.time())
            )
        return bool(done.rowcount)

    def remove_passkey(self, account_id: str, passkey_id: str) -> None:
        """Remove one of the account's passkeys: never its last (``409 last_passkey``:
        the account could not be signed in to but by its recovery code)."""
        with self.engine.begin() as conn:
            keys = conn.execute(
                select(passkeys_t.c.id).where(passkeys_t.c.account == account_id)
            ).all()
            if passkey_id not in {k.id for k in keys}:
                raise RequestError("unknown_passkey", "this account has no such passkey", 404)
            if len(keys) == 1:
                raise RequestError(
                    "last_passkey",
                    "this is the account's only passkey: add another before removing it",
                    409,
                )
            conn.execute(delete(passkeys_t).where(passkeys_t.c.id == passkey_id))

    # ------------------------------------------------------------------ sessions

    def start_session(self, account_id: str, replacing: str | None) -> str:
        """A new session for the account (its cookie's value): the one the browser
        carried (``replacing``), if any, ends, and so do the account's oldest past
        ``SESSIONS_PER_ACCOUNT`` and any that expired."""
        token, now = secrets.token_urlsafe(32), time.time()
        with self.engine.begin() as conn:
            if replacing is not None:
                conn.execute(
                    delete(account_sessions_t).where(
                        account_sessions_t.c.hash == hash_secret(replacing)
                    )
                )
            conn.execute(
                delete(account_sessions_t).where(
                    account_sessions_t.c.account == account_id,
                    account_sessions_t.c.expires <= now,
                )
            )
            kept = conn.execute(
                select(account_sessions_t.c.hash)
                .where(account_sessions_t.c.account == account_id)
                .order_by(account_sessions_t.c.created.desc())
            ).all()
            old = [k.hash for k in kept[SESSIONS_PER_ACCOUNT - 1 :]]
            if old:
                conn.execute(delete(account_sessions_t).where(account_sessions_t.c.hash.in_(old)))
            conn.execute(
                insert(account_sessions_t).values(
                    hash=hash_secret(token),
                    account=account_id,
                    created=now,
                    expires=now + SESSION_DAYS * 86_400,
                )
            )
        return token

    def session(self, token: str) -> Account | None:
        """The account this session cookie signs in to, if it is one and has not
        expired."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(accounts_t)
                .join(account_sessions_t, account_sessions_t.c.account == accounts_t.c.id)
                .where(
                    account_sessions_t.c.hash == hash_secret(token),
                    account_sessions_t.c.expires > time.time(),
                )
            ).first()
        return None if row is None else _account(row)

    def end_session(self, token: str) -> None:
        """Sign out: the session ends (its cookie signs in no more)."""
        with self.engine.begin() as conn:
            conn.execute(
                delete(account_sessions_t).where(account_sessions_t.c.hash == hash_secret(token))
            )

    def sessions(self, account_id: str) -> int:
        """How many sessions of the account have not expired."""
        with self.engine.connect() as conn:
            found = conn.execute(
                select(func.count()).where(
                    account_sessions_t.c.account == account_id,
                    account_sessions_t.c.expires > time.time(),
                )
            ).scalar()
        return int(found or 0)

    # ------------------------------------------------------------------ devices

    def link_device(self, device: str, account_id: str) -> bool:
        """The device (a ``devices`` hash) plays for the account from now on, and its
        history is the account's. A device linked already stays with the account it
        was linked to first (a shared computer's past games do not move between
        accounts): False then, unless that is this account. At most
        ``DEVICES_PER_ACCOUNT`` devices are linked to one account (its history reads
        them all)."""
        if len(self.devices(account_id)) >= DEVICES_PER_ACCOUNT:
            return False
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(account_devices_t).values(
                        device=device, account=account_id, linked=time.time()
                    )
                )
        except IntegrityError:
            with self.engine.connect() as conn:
                row = conn.execute(
                    select(account_devices_t.c.account).where(account_devices_t.c.device == device)
                ).first()
            return row is not None and row.account == account_id
        return True

    def devices(self, account_id: str) -> list[str]:
        """The devices linked to the account, first linked first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(account_devices_t.c.device)
                .where(account_devices_t.c.account == account_id)
                .order_by(account_devices_t.c.linked)
            )
            return [r.device for r in rows]


def _passkey_known() -> RequestError:
    return RequestError("passkey_known", "that passkey is registered already", 409)
