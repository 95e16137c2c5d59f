"""A browser's identity: the device secret, and the places it took.

The browser makes a secret once (128 random bits or more, ``crypto.getRandomValues``),
keeps it in its storage and sends it in the ``X-Nertz-Device`` header when it takes a
seat and when it asks for its own history (``GET /api/me``). A header, not the URL or
the body: it never reaches an access log or a shared link. The server keeps only the
secret's SHA-256 (``devices``), so a stolen database names no browser, with the name it
last sat down under (the home page prefills it) and each place it took
(``device_places``: which seat of which table, from which hand to which), which is what a
player's history (``history.py``) is read from.

A new identity is one row; how many one address may make is a quota
(``Limits.devices_per_hour``). A new identity's secret must also look random
(``weak_secret``): at least 128 bits by its alphabet (22 base64url characters, 32 hex
digits), at least ``MIN_SPREAD_BITS`` by how its characters spread (a secret of one
letter, ``aaaa...``, holds none), and no shorter secret repeated. The check catches a
careless client, not every weak secret; a device already stored keeps working whatever
its secret (it was taken before the check), and only new ones are checked.
"""

from __future__ import annotations

import collections
import hashlib
import math
import re
import time
from dataclasses import dataclass

from sqlalchemy import Engine, insert, select, update
from starlette.requests import Request

from nertz.server.door.requests import RequestError
from nertz.server.lobby.hashing import hash_secret
from nertz.server.store.schema import device_places_t, devices_t

__all__ = [
    "DEVICE_HEADER",
    "MIN_SPREAD_BITS",
    "DevicePlace",
    "Devices",
    "device_hash",
    "person_id",
    "weak_secret",
]

DEVICE_HEADER = "X-Nertz-Device"
_SECRET = re.compile(r"^[A-Za-z0-9_-]{22,128}$")
"""22 base64url characters are 132 bits: the shortest secret that can hold 128."""


_HEX = re.compile(r"^(?:[0-9a-f]+|[0-9A-F]+)$")
MIN_SPREAD_BITS = 64
"""The least a new secret's characters must spread over: its length times the entropy
of its characters' frequencies (bits). Random secrets are far above it: of 200,000 of
22 base64url characters the lowest had 73, of 64 hex digits (the browser's) 217; one
below 64 comes about once in 10^10 at 22 characters."""


def weak_secret(secret: str) -> str | None:
    """Why a well-formed ``secret`` is too weak to make a new device, or None. Hex
    digits (in one case) count 4 bits each, any other secret 6 (base64url); the
    characters' spread is ``MIN_SPREAD_BITS``'s estimate.

    >>> weak_secret("a" * 22)
    "a device secret must be random: this one's characters spread over 0 bits (at least 64)"
    >>> weak_secret("0123456789abcdef" * 2)
    'a device secret must be random: this one is a shorter one repeated'
    >>> weak_secret("0123456789abcdef012345")
    'a device secret must hold 128 random bits: 22 hex digits hold 88'
    """
    n = len(secret)
    spread = sum(k * math.log2(n / k) for k in collections.Counter(secret).values())
    if spread < MIN_SPREAD_BITS:
        return (
            "a device secret must be random: this one's characters spread over "
            f"{spread:.0f} bits (at least {MIN_SPREAD_BITS})"
        )
    if (secret + secret).find(secret, 1) < n:  # a rotation of itself: a repeat
        return "a device secret must be random: this one is a shorter one repeated"
    per_char = 4 if _HEX.match(secret) else 6
    if n * per_char < 128:
        return (
            f"a device secret must hold 128 random bits: {n} "
            f"{'hex digits hold' if per_char == 4 else 'characters hold'} {n * per_char}"
        )
    return None


def device_hash(request: Request, *, required: bool) -> str | None:
    """The SHA-256 of the request's device secret; None when it sends none and none is
    ``required``. A missing (when required) or malformed secret is a ``RequestError``
    with a code and a sentence (401 ``no_device``, 400 ``bad_device``)."""
    secret = request.headers.get(DEVICE_HEADER)
    if secret is None:
        if required:
            raise RequestError(
                "no_device",
                f"send this browser's device secret in the {DEVICE_HEADER} header",
                401,
            )
        return None
    if not _SECRET.match(secret):
        raise RequestError(
            "bad_device",
            "a device secret is 22 to 128 letters, digits, '-' and '_' (128 random bits or more)",
        )
    return hash_secret(secret)


def person_id(table_id: str, device: str) -> str:
    """A person's handle at one table: 64 bits of SHA-256 over the table's id and the
    device's hash. The same device is the same person at that table whatever name it
    sits down under (a page mutes it: chat.js); it tells nothing of the device's hash
    or secret, and differs from table to table, so it follows nobody between tables."""
    return hashlib.sha256(f"nertz person|{table_id}|{device}".encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class DevicePlace:
    """A place a device took: seat (and partner, R40) of a table, from hand ``since_hand``
    of the table's hands (numbered across its series) until another device took it."""

    device: str
    table_id: str
    seat: int
    partner: int
    since_hand: int
    name: str
    """The name it sat down under."""
    until_hand: int | None = None
    """The last hand it held, once it lost the place (left, released, removed)."""
    account: str | None = None
    """The account its person was signed in to (``accounts.py``; None: none): whose
    rating the place counts for at a rated table (``ratings.player_key``)."""


class Devices:
    """The identities and their places, in the server's database (blocking calls: run
    them in a thread)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def known(self, device: str) -> bool:
        with self.engine.connect() as conn:
            found = conn.execute(select(devices_t.c.hash).where(devices_t.c.hash == device))
            return found.first() is not None

    def name(self, device: str) -> str | None:
        """The name this device last sat down under, if it ever did."""
        with self.engine.connect() as conn:
            row = conn.execute(select(devices_t.c.name).where(devices_t.c.hash == device)).first()
            return None if row is None else row.name

    def took(self, place: DevicePlace) -> None:
        """The device took ``place`` (its identity is made with its first place)."""
        now = time.time()
        with self.engine.begin() as conn:
            changed = conn.execute(
                update(devices_t)
                .where(devices_t.c.hash == place.device)
                .values(name=place.name, seen=now)
            )
            if not changed.rowcount:
                conn.execute(
                    insert(devices_t).values(
                        hash=place.device, name=place.name, created=now, seen=now
                    )
                )
            conn.execute(
                insert(device_places_t).values(
                    device=place.device,
                    table_id=place.table_id,
                    seat=place.seat,
                    partner=place.partner,
                    since_hand=place.since_hand,
                    name=place.name,
                    joined=now,
                    account=place.account,
                )
            )

    def places_of(self, device: str) -> list[DevicePlace]:
        """Every place ``device`` took, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(device_places_t)
                .where(device_places_t.c.device == device)
                .order_by(device_places_t.c.id)
            )
            return [_place(r) for r in rows]

    def places_at(self, table_ids: list[str]) -> list[DevicePlace]:
        """Every place any device took at these tables, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(device_places_t)
                .where(device_places_t.c.table_id.in_(table_ids))
                .order_by(device_places_t.c.id)
            )
            return [_place(r) for r in rows]


def _place(row: object) -> DevicePlace:
    return DevicePlace(
        row.device,  # type: ignore[attr-defined]
        row.table_id,  # type: ignore[attr-defined]
        row.seat,  # type: ignore[attr-defined]
        row.partner,  # type: ignore[attr-defined]
        row.since_hand,  # type: ignore[attr-defined]
        row.name,  # type: ignore[attr-defined]
        row.until_hand,  # type: ignore[attr-defined]
        row.account,  # type: ignore[attr-defined]
    )
