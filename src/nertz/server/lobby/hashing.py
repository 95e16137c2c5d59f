"""What the server keeps of a secret (a seat's token, a table's key or invite, a device's
secret, an outside bot's token): its SHA-256, never the secret, so a stolen database
seats nobody and opens no table."""

from __future__ import annotations

import hashlib

__all__ = ["hash_secret"]


def hash_secret(secret: str) -> str:
    """SHA-256 of a token or key: what the server stores instead of the secret."""
    return hashlib.sha256(secret.encode()).hexdigest()
