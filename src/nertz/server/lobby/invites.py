"""Invites: the short code a person types on the home page, the link it stands for, a
watch link, and the link drawn as a QR code.

A public table's invite is its code (``3DNQZD``). A private table's is its key: ten
characters from the codes' alphabet (no 0/O, 1/I/L), 49 random bits, shown in groups
to read aloud (``KQ7M-X2PD-4R``) and typed in any case, with or without the dashes.
The code alone (six characters, 30 bits) never opens a private table: the invite
does, and guessing one is a 2^49 search that the per-address limit on misses
(``Limits.misses_per_minute``: unknown codes and wrong keys) turns into centuries. The
server stores only the invite's SHA-256 (``key_hash``), as for every secret.

The watch link (``/t/{code}?watch={watch}``) shows the table to a spectator and never
takes a seat. Its secret is derived from the invite by a slow one-way function
(PBKDF2, ``WATCH_ROUNDS``): whoever holds the invite can be given the watch link, and
the watch link does not give away the invite, not even to a search over all 2^49
(each guess costs the rounds). Only its hash is stored (``watch_hash``).

The routes that hand these out are ``sharing.py``'s.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import secrets
from dataclasses import dataclass

import segno

from nertz.server.lobby.hashing import hash_secret

__all__ = [
    "CODE_ALPHABET",
    "INVITE_LENGTH",
    "Invite",
    "grouped",
    "invite_form",
    "invite_of",
    "new_invite",
    "qr_svg",
    "watch_key",
]

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Table codes and invites: letters and digits with no look-alikes (0/O, 1/I/L)."""

INVITE_LENGTH = 10
"""Characters of a private table's invite: 10 of 31 is 49.5 bits (at least 40 asked)."""
WATCH_ROUNDS = 10_000
"""PBKDF2 rounds from an invite to its watch secret: 8 to 17 ms on this VM under a load
of 20 to 22 (a table's creation, an invite dialog; 100 000 rounds took 265-417 ms), and
as much for each guess of a search: 2^49 guesses are some 5e18 hashes, years on a GPU
for one table."""


def new_invite() -> str:
    """A fresh invite: ``INVITE_LENGTH`` characters of ``CODE_ALPHABET``."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(INVITE_LENGTH))


def invite_form(text: str) -> str | None:
    """The invite ``text`` spells, as stored: upper case, no dashes or spaces; None if
    it is not one.

    >>> invite_form(" kq7m-x2pd-4r ")
    'KQ7MX2PD4R'
    >>> invite_form("KQ7M-X2PD") is None
    True
    """
    clean = "".join(ch for ch in text.upper() if ch.isalnum())
    if len(clean) != INVITE_LENGTH or not set(clean) <= set(CODE_ALPHABET):
        return None
    return clean


def grouped(invite: str) -> str:
    """An invite as it is read aloud: groups of four.

    >>> grouped("KQ7MX2PD4R")
    'KQ7M-X2PD-4R'
    """
    return "-".join(invite[i : i + 4] for i in range(0, len(invite), 4))


@functools.lru_cache(maxsize=1024)  # the rounds once per table, not per invite dialog
def watch_key(key: str) -> str:
    """The watch link's secret for a table whose key (invite) is ``key``: 96 bits,
    url-safe, one-way from the key."""
    raw = hashlib.pbkdf2_hmac("sha256", key.encode(), b"nertz watch link", WATCH_ROUNDS)
    return base64.urlsafe_b64encode(raw[:12]).decode()


@dataclass(frozen=True, slots=True)
class Invite:
    """A private table's secrets as the server keeps them: the invite (its key, given
    once to the creator), its hash, and the hash of its watch link's secret."""

    key: str
    key_hash: str
    watch_hash: str


def invite_of(key: str) -> Invite:
    """``key``'s ``Invite``. The watch secret's rounds are milliseconds of CPU: made on a
    worker thread when a table is made (``Lobby.invited``), never on the event loop,
    where 16 practice tables made at once stopped every table for 200 ms."""
    return Invite(key, hash_secret(key), hash_secret(watch_key(key)))


@functools.lru_cache(maxsize=256)  # 6-17 ms to draw; a dialog asks for it each time
def qr_svg(text: str) -> bytes:
    """``text`` as a QR code in SVG: medium error correction (survives a smudged phone
    screen), black on white whatever the page's colours (a camera needs the contrast)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(
        out,
        kind="svg",
        scale=4,
        border=2,
        xmldecl=False,
        dark="black",
        light="white",
        title="QR code of the invite link",
        svgclass="qr",
        omitsize=True,  # a viewBox: the page sizes it
    )
    return out.getvalue()
