"""Names at a table: look-alikes refused with a sentence, the bots' names reserved."""

from __future__ import annotations

import asyncio

import pytest

from nertz.engine import Rules
from nertz.server.lobby.lobby import Lobby, LobbyError, check_name, player_name
from nertz.server.table.settings import Settings

from .harness import Harness


@pytest.mark.parametrize("twin", ["Ann", "ann", "ANN", "\u0410nn", "\uff21\uff4e\uff4e", " Ann "])
def test_a_name_that_looks_like_one_at_the_table_is_refused(twin: str) -> None:
    h = Harness(Rules(), Settings(seats=3))
    assert h.join("Ann", "t0") == ((0, 0), None)
    place, error = h.join(twin.strip(), "t1")
    assert place is None and error is not None
    assert error[0] == "name_taken" and "'Ann' already sits at this table" in error[1]
    # The honest newcomer at the same moment takes the free seat.
    assert h.join("Bob", "t2") == ((1, 0), None)


@pytest.mark.parametrize("twin", ["Arn", "Clan", "VVill", "Iv\u0430"])
def test_letters_that_read_as_one_letter_are_that_letter(twin: str) -> None:
    """ "rn" is "m", "cl" is "d", "vv" is "w" side by side (the TR39 single-character
    classes apply inside them too: "Iva" with a Cyrillic a is "Iva")."""
    real = {"Arn": "Am", "Clan": "Dan", "VVill": "Will", "Iv\u0430": "Iva"}[twin]
    h = Harness(Rules(), Settings(seats=3))
    assert h.join(real, "t0") == ((0, 0), None)
    place, error = h.join(twin, "t1")
    assert place is None and error is not None and error[0] == "name_taken", error
    assert f"{real!r} already sits at this table" in error[1]
    assert h.join("Arne", "t2") == ((1, 0), None)  # another name is free: "Arne" is no "Am"


def test_a_person_may_not_take_a_bots_given_name() -> None:
    """A bot at seat 1 is "Ben": a person called "Ben" (or "ben", or "Вen" in Cyrillic)
    would pass for it, at this table or at any table where a seat may get a bot."""
    h = Harness(Rules(), Settings(seats=3, bots={1: "beginner"}))
    assert h.table.info()["seats"][1]["name"] == "Ben"  # the bot's name, not its spec
    for name in ("Ben", "ben", "\u0412en", "Cleo", "Jun"):
        with pytest.raises(LobbyError) as caught:
            player_name(name)
        assert caught.value.code == "bot_name", name
        assert "a name the bots go by" in caught.value.reason
    assert player_name("Benedict") == "Benedict"
    assert check_name("Ben") == "Ben"  # a score sheet of real cards has no bots


def test_the_lobby_refuses_a_bots_given_name_with_a_sentence() -> None:
    async def run() -> None:
        lobby = Lobby(None)
        entry, _ = lobby.create(Rules(), Settings(seats=3, bots={1: "beginner"}))
        with pytest.raises(LobbyError) as caught:
            await lobby.join(entry.code, "Ben")
        assert caught.value.code == "bot_name" and "'Ben'" in caught.value.reason
        _, seat, _, _ = await lobby.join(entry.code, "Bea")
        assert seat == 0
        await lobby.stop()

    asyncio.run(run())


@pytest.mark.parametrize(
    "name", ["\u3164", "\u1160\u1160", "\u115f", "\uffa0", "Ann\u3164", "A\u115fnn", "Ann\u200b"]
)
def test_a_name_with_a_character_that_draws_nothing_is_refused(name: str) -> None:
    """Hangul fillers are letters that draw nothing: alone an invisible name, inside a
    name a twin of "Ann" that name_key cannot see."""
    with pytest.raises(LobbyError) as caught:
        check_name(name)
    assert caught.value.code == "bad_name"
    assert "invisible character (U+" in caught.value.reason
    assert "the others can see" in caught.value.reason


def test_a_name_that_reads_as_a_bots_is_refused() -> None:
    for name in ("bot expert", "Bot", "BOT casual", "b\u043et"):
        with pytest.raises(LobbyError) as caught:
            check_name(name)
        assert caught.value.code == "bot_name" and "bots" in caught.value.reason
    assert check_name("Botham") == "Botham"
    assert check_name("\uff21\uff4e\uff4e") == "Ann"  # shown in its plain form (NFKC)


def test_the_lobby_answers_a_look_alike_with_409_and_a_sentence() -> None:
    async def run() -> None:
        lobby = Lobby(None)
        entry, _ = lobby.create(Rules(), Settings(seats=2))
        await lobby.join(entry.code, "Ann")
        with pytest.raises(LobbyError) as caught:
            await lobby.join(entry.code, "\u0430nn")
        assert caught.value.status == 409 and caught.value.code == "name_taken"
        _, seat, _, _ = await lobby.join(entry.code, "Cy")
        assert seat == 1
        await lobby.stop()

    asyncio.run(run())
