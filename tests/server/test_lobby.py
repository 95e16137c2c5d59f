"""The lobby: codes, keys, tokens, names, and the table limit."""

from __future__ import annotations

import asyncio

import pytest

from nertz.engine import Rules
from nertz.server.lobby.hashing import hash_secret
from nertz.server.lobby.lobby import CODE_ALPHABET, Lobby, LobbyError, check_name
from nertz.server.table.settings import Settings


def test_names_are_checked_with_a_reason() -> None:
    assert check_name("  Zoë O'Neil-2 ") == "Zoë O'Neil-2"
    for bad, words in [
        ("", "1 to 24"),
        ("x" * 25, "1 to 24"),
        ("-dash", "starting"),
        (7, "string"),
    ]:
        with pytest.raises(LobbyError) as caught:
            check_name(bad)
        assert caught.value.code == "bad_name" and words in caught.value.reason


async def _lobby() -> None:
    lobby = Lobby(None, max_tables=2)
    public, no_key = lobby.create(Rules(), Settings(seats=2))
    private, key = lobby.create(Rules(), Settings(seats=2, public=False))
    # The key is the invite: 10 characters of 31, 49 bits (docs/server.md, "Invites").
    assert no_key is None and key is not None and len(key) == 10
    assert set(key) <= set(CODE_ALPHABET)
    assert private.key_hash == hash_secret(key) and key not in private.key_hash
    assert lobby.by_invite(key) is private
    for entry in (public, private):
        assert len(entry.code) == 6 and set(entry.code) <= set(CODE_ALPHABET)
    with pytest.raises(LobbyError) as caught:
        lobby.create(Rules(), Settings(seats=2))
    assert caught.value.code == "too_many_tables" and caught.value.status == 503
    with pytest.raises(LobbyError) as caught:
        await lobby.join(private.code, "Ann")
    assert caught.value.code == "private_table"
    entry, seat, partner, token = await lobby.join(private.code, "Ann", key=key)
    assert (seat, partner) == (0, 0) and len(token) >= 32  # 192 random bits
    stored = entry.table.seats[0]
    assert stored.token_hash == hash_secret(token) and stored.token_hash != token
    assert [t["code"] for t in lobby.open_tables()] == [public.code]
    with pytest.raises(LobbyError) as caught:
        lobby.find("nope")
    assert caught.value.status == 404
    await lobby.stop()


def test_codes_keys_tokens_and_the_table_limit() -> None:
    asyncio.run(_lobby())
