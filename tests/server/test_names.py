"""Names at a table: look-alikes refused with a sentence, the bots' names reserved."""

from __future__ import annotations

import asyncio

import pytest

from nertz.engine import Rules
from nertz.server.lobby import Lobby, LobbyError, check_name
from nertz.server.settings import Settings

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


def test_a_person_may_share_a_bots_given_name() -> None:
    h = Harness(Rules(), Settings(seats=3, bots={1: "beginner"}))
    assert h.table.info()["seats"][1]["name"] == "Ben"  # the bot's name, not its spec
    assert h.join("Ben", "t0") == ((0, 0), None)  # a real Ben is not kept out


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
