"""Partnerships at the server (R40): two people (or a person and a bot) share one seat,
one layout; each partner's play is its own input, settled in arrival order; a card one
partner has picked up is refused to the other (``partner_holds``); the lobby pairs
people; membership survives a restart."""

from __future__ import annotations

from typing import Any

import pytest

from nertz.engine import Deal, Rules, deal, touches
from nertz.server.lobby.lobby import CreateTable, LobbyError, table_request
from nertz.server.store.store import Store
from nertz.server.table.commands import Stage, Wake
from nertz.server.table.partners import HOLD_LAPSE_MS
from nertz.server.table.settings import Settings
from nertz.server.table.table import Table, restore_from_records

from .harness import Harness

SEED = 0
"""The deal of the bot-partner tests: what they count must not depend on the shuffle."""

PARTNERS = Rules(partnerships=True)
LAYOUT = "nertz: KS AH; work: 2C / 5D / 9C / QD; stock: 3H 4H 8S 7S 6S; waste: -"
"""The Nertz card is the ace of hearts; the king of spades under it fits nowhere."""


def one_layout(seats: int, rules: Rules, seed: int) -> Deal:
    return Deal.from_layouts([LAYOUT] * seats)


def partners_at_one_seat(bots: dict[int, str] | None = None, seats: int = 1) -> Harness:
    """Ann (connection 1) and Bob (connection 2) share seat 0; the hand is on."""
    h = Harness(PARTNERS, Settings(seats=seats, bots=bots or {}, countdown_ms=100))
    h.table.dealer = one_layout
    for conn, name in ((1, "Ann"), (2, "Bob")):
        assert h.join(name, name, 0)[1] is None
        h.connect(conn, name)
        h.send(conn, {"type": "ready"})
    h.run_until(lambda: h.table.stage is Stage.PLAYING, 10_000)
    assert h.table.stage is Stage.PLAYING
    return h


def holds_seen(h: Harness, conn: int) -> list[dict[str, Any]]:
    return [m for m in h.messages(conn) if m["type"] == "hold"]


def test_r40_both_partners_play_the_same_card_one_lands_one_is_refused() -> None:
    h = partners_at_one_seat()
    h.send(1, {"type": "play", "seq": 1, "move": "N>F"})  # Ann's ace arrives first (R16)
    h.send(2, {"type": "play", "seq": 9, "move": "N>F"})  # Bob meant the same ace
    bob = h.last(2)
    acks = [m for m in h.messages(1) if m["type"] == "ack"]
    assert [a["seq"] for a in acks] == [1]
    assert bob["type"] == "refused" and bob["seq"] == 9
    assert bob["code"] == "does_not_fit" and "king of spades" in bob["reason"]
    # Nothing corrupted: one ace in the middle, the king now on top, one input logged.
    h.send(1, {"type": "resync"})
    h.send(2, {"type": "resync"})
    one, two = h.last(1), h.last(2)
    assert one["view"] == two["view"]
    assert [f["top"] for f in one["view"]["foundations"]] == ["AH"]
    me = one["view"]["seats"][0]
    assert (me["nertz_top"], me["nertz_count"], me["middle"]) == ("KS", 1, 1)
    hand = h.table.hand
    assert hand is not None and [e[2] for e in hand.log if e[2] != "GO"] == ["N>F"]
    assert (one["seat"], one["partner"], two["partner"]) == (0, 0, 1)


def test_r40_a_card_one_partner_picked_up_is_refused_to_the_other() -> None:
    h = partners_at_one_seat()
    h.send(1, {"type": "pick", "seq": 1, "src": "N"})
    shown = {"type": "hold", "seat": 0, "partner": 0, "src": "N", "card": "AH"}
    assert holds_seen(h, 1)[-1] == holds_seen(h, 2)[-1] == shown  # both see Ann's hand
    h.send(2, {"type": "pick", "seq": 4, "src": "N"})
    refused = h.last(2)
    assert refused["type"] == "refused" and refused["seq"] == 4
    assert refused["code"] == "partner_holds"
    assert "ace of hearts" in refused["reason"] and "R40" in refused["reason"]
    h.send(2, {"type": "play", "seq": 5, "move": "N>F"})  # grabbing it is refused too
    assert h.last(2)["code"] == "partner_holds"
    h.send(2, {"type": "play", "seq": 6, "move": "T"})  # another card: fine
    assert h.last(2)["type"] == "ack"
    h.send(1, {"type": "play", "seq": 2, "move": "N>F"})  # Ann plays it: it lands
    assert [m["seq"] for m in h.messages(1) if m["type"] == "ack"] == [2]
    assert holds_seen(h, 2)[-1] == {**shown, "src": None, "card": None}  # the play let go
    h.send(2, {"type": "pick", "seq": 7, "src": "N"})  # now Bob may take the king
    assert holds_seen(h, 1)[-1]["card"] == "KS"
    assert h.table.info()["seats"][0]["holding"] == [None, "N"]


def test_r40_a_hold_lapses_after_a_while_or_when_its_partner_leaves() -> None:
    h = partners_at_one_seat()
    h.send(1, {"type": "pick", "seq": 1, "src": "2"})
    h.advance(HOLD_LAPSE_MS - 10)
    assert h.table.holds.held(0) == (1, None)  # work pile 2
    h.advance(20)  # no play for HOLD_LAPSE_MS: the hand rests, the card is free again
    assert h.table.holds.held(0) == (None, None)
    assert holds_seen(h, 2)[-1]["src"] is None
    h.send(2, {"type": "pick", "seq": 1, "src": "W"})
    assert h.last(2)["code"] == "not_available"  # nothing on the waste yet (R14)
    h.send(2, {"type": "pick", "seq": 2, "src": "1"})
    h.drop(2)
    assert h.table.holds.held(0) == (None, None)
    assert holds_seen(h, 1)[-1] == {
        "type": "hold",
        "seat": 0,
        "partner": 1,
        "src": None,
        "card": None,
    }


def test_r40_a_page_that_resumes_is_told_the_holds_taken_while_it_was_away() -> None:
    h = partners_at_one_seat()
    h.drop(2)  # Bob's connection drops...
    version = h.table.version
    h.send(1, {"type": "pick", "seq": 1, "src": "N"})  # ...while Ann picks up her ace
    h.connect(
        5, "Bob", last_version=version, epoch=h.table.epoch
    )  # Bob resumes from his last version
    shown = {"type": "hold", "seat": 0, "partner": 0, "src": "N", "card": "AH"}
    assert holds_seen(h, 5) == [shown]
    assert not any(m["type"] == "state" for m in h.messages(5))  # resumed, not resent


def test_r40_drop_puts_the_card_down_and_solo_tables_have_no_holds() -> None:
    h = partners_at_one_seat()
    h.send(1, {"type": "pick", "seq": 1, "src": "N"})
    h.send(1, {"type": "drop"})
    h.send(2, {"type": "pick", "seq": 1, "src": "N"})
    assert h.table.holds.held(0) == (None, NERTZ_CODE)
    solo = Harness(Rules(), Settings(seats=1, countdown_ms=100))
    solo.join("Cy", "Cy")
    solo.connect(1, "Cy")
    solo.send(1, {"type": "pick", "seq": 1, "src": "N"})
    assert solo.last(1)["code"] == "not_partnered"


NERTZ_CODE = 4


# ---------------------------------------------------------------------- the lobby


def test_r40_an_odd_number_of_people_is_refused_with_a_sentence() -> None:
    with pytest.raises(LobbyError) as caught:
        table_request(CreateTable(options={"partnerships": "on"}, people=5))
    assert caught.value.code == "odd_people"
    assert "even number" in caught.value.reason and "R40" in caught.value.reason
    rules, settings = table_request(CreateTable(options={"partnerships": "on"}, people=6))
    assert rules.partnerships and settings.seats == 3
    # An odd person out may have a bot partner: 5 people and 1 bot are three seats.
    _, settings = table_request(
        CreateTable(options={"partnerships": "on"}, people=5, bots={2: "+expert"})
    )
    assert settings.seats == 3
    with pytest.raises(LobbyError) as caught:
        table_request(CreateTable(options={"partnerships": "on"}, people=18))
    assert caught.value.code == "bad_field" and "16" in caught.value.reason
    with pytest.raises(LobbyError) as caught:
        table_request(CreateTable(people=4))
    assert caught.value.code == "bad_field" and "partnerships" in caught.value.reason


def test_r40_the_table_pairs_people_in_the_order_they_come() -> None:
    h = Harness(PARTNERS, Settings(seats=3, bots={2: "+skilled"}))
    # A bot already waits at seat 2 for a person: the first comer partners it ...
    assert h.join("Ann", "a") == ((2, 0), None)
    # ... then people fill an empty seat and the next comer is paired with them.
    assert h.join("Bob", "b") == ((0, 0), None)
    assert h.join("Cy", "c") == ((0, 1), None)
    assert h.join("Di", "d") == ((1, 0), None)
    seats = h.table.info()["seats"]
    assert [s["name"] for s in seats] == ["Bob & Cy", "Di", "Ann & Hana"]
    assert [p["name"] for p in seats[0]["partners"]] == ["Bob", "Cy"]


def test_r40_people_may_choose_their_partner() -> None:
    h = Harness(PARTNERS, Settings(seats=2))
    assert h.join("Ann", "a", 1) == ((1, 0), None)
    assert h.join("Bob", "b", 1) == ((1, 1), None)  # "sit with Ann"
    assert h.join("Cy", "c", 1)[1] == ("seat_taken", "seat 1 is taken")
    assert h.join("Di", "d", 0, 1) == ((0, 1), None)
    assert h.join("Ed", "e", 0, 2)[1][0] == "no_such_seat"


def test_r40_bot_specs_name_both_partners() -> None:
    with pytest.raises(LobbyError) as caught:
        table_request(CreateTable(options={"partnerships": "on"}, people=2, bots={1: "expert"}))
    assert caught.value.code == "bad_bots" and "'A+B'" in caught.value.reason
    h = Harness(PARTNERS, Settings(seats=2, bots={1: "expert+casual"}))
    seat = h.table.info()["seats"][1]
    assert seat["bot"] == "expert:balanced+casual:balanced"
    assert [p["bot"] for p in seat["partners"]] == ["expert:balanced", "casual:balanced"]


# ---------------------------------------------------------------------- bots


def test_r40_a_bot_partner_never_plays_what_its_person_holds_and_leaves_the_nertz_pile() -> None:
    rules = Rules(partnerships=True)
    settings = Settings(seats=2, bots={0: "+demon", 1: "demon+demon"}, countdown_ms=100)
    # A fixed deal and bot seeds: how long the hand lasts (and so how many moves the bot
    # makes) must not depend on the shuffle.
    dealt = Table("TEST", rules, settings, rng_seed=1, dealer=lambda n, r, _: deal(n, r, SEED))
    h = Harness(rules, settings, dealt)
    h.join("Ann", "a")
    h.connect(1, "a")
    h.send(1, {"type": "ready"})
    table = h.table
    real = table._play
    plays: list[tuple[str, int | None]] = []

    def spy(place: Any, move: Any, now: int, conn: int | None, seq: int) -> bool:
        if conn is None and place.number == 0:
            other = table.holds.held(0)[1 - place.partner]
            plays.append((str(move), other))
            assert other is None or other not in touches(move), (move, other)
        return real(place, move, now, conn, seq)

    table._play = spy  # type: ignore[method-assign]
    h.run_until(lambda: table.stage is Stage.PLAYING, 10_000)
    # Ann keeps picking up cards all hand long (and plays none): her bot works around her.
    sources = ["W", "1", "2", "3", "4"]
    for step in range(400):
        if table.stage is not Stage.PLAYING:
            break
        h.send(1, {"type": "pick", "seq": step, "src": sources[step % 5]})
        h.advance(700)
    assert len(plays) > 50
    held_while = [p for p in plays if p[1] is not None]
    assert len(held_while) > 20  # many of its moves were chosen around Ann's hand
    assert not any(move.startswith("N") for move, _ in plays)  # the Nertz pile is Ann's


def test_r40_two_bots_at_a_seat_split_the_work() -> None:
    settings = Settings(seats=2, bots={0: "expert+expert", 1: "expert+expert"}, countdown_ms=100)
    fixed = Table("TEST", PARTNERS, settings, rng_seed=1, dealer=lambda n, r, _: deal(n, r, SEED))
    h = Harness(PARTNERS, settings, fixed)
    table = h.table
    real = table._play
    turns = {0: 0, 1: 0}
    nertz = {0: 0, 1: 0}

    def spy(place: Any, move: Any, now: int, conn: int | None, seq: int) -> bool:
        ok = real(place, move, now, conn, seq)
        if ok and place.number == 0:
            if str(move) == "T":
                turns[place.partner] += 1
            elif str(move).startswith("N"):
                nertz[place.partner] += 1
        return ok

    table._play = spy  # type: ignore[method-assign]
    h.do(Wake())  # every place is a bot's: the table deals at once
    h.run_until(lambda: bool(table.match.hands), 3_600_000)
    assert table.match.hands, "the hand ended"
    assert turns[1] > 10 and turns[0] == 0  # the stock partner turns the stock
    assert nertz[0] > 0 and nertz[1] == 0  # the Nertz partner plays the Nertz pile


# ---------------------------------------------------------------------- persistence


def test_r40_partners_survive_a_restart(tmp_path: Any) -> None:
    h = partners_at_one_seat(bots={1: "skilled+skilled"}, seats=2)
    h.send(1, {"type": "play", "seq": 1, "move": "N>F"})
    store = Store(str(tmp_path / "t.db"))
    try:
        store.submit("t1", h.records)
        store.flush()
        records = store.records_of("t1")
    finally:
        store.close()
    live = h.table
    again = restore_from_records(live.code, live.rules, live.settings, records, one_layout)
    assert [(p.number, p.partner, p.name, p.token_hash, p.bot) for p in again.places] == [
        (p.number, p.partner, p.name, p.token_hash, p.bot) for p in live.places
    ]
    assert again.info()["seats"][0]["name"] == "Ann & Bob"
    assert again.hand is not None and live.hand is not None
    assert again.hand.snapshot() == live.hand.snapshot()
    # Both partners come back with their own tokens to their own places.
    back = Harness(PARTNERS, live.settings, again)
    back.now = again.now
    back.connect(5, "Bob")
    state = back.last(5)
    assert (state["seat"], state["partner"]) == (0, 1)
