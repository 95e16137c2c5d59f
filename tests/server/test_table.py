"""The sans-I/O table in virtual time: matches, races, hidden cards, reconnects,
takeovers, bad input and rebuilding from records."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nertz.engine import Deal, Rules, replay, view
from nertz.server.protocol import ProtocolError, decode_client
from nertz.server.table.commands import Inbound, Stage
from nertz.server.table.records import DealRecord, EventRecord
from nertz.server.table.settings import Settings
from nertz.server.table.table import restore_from_records

from .harness import Harness

BOTS3 = {1: "demon:prompt", 2: "demon:prompt", 3: "demon:prompt"}


def fast(**changes: Any) -> Settings:
    base: dict[str, Any] = {
        "seats": 4,
        "bots": BOTS3,
        "countdown_ms": 500,
        "next_hand_s": 5,
    }
    base.update(changes)
    return Settings(**base)


def seated(rules: Rules, settings: Settings, token: str = "t0") -> Harness:
    h = Harness(rules, settings)
    place, error = h.join("ann", token)
    assert (place, error) == ((0, 0), None)
    h.connect(1, token)
    h.send(1, {"type": "ready"})
    return h


def greedy_step(h: Harness, conn: int, seq: int) -> int:
    """A scripted person: look at the view, play a card to the middle, else turn."""
    h.send(conn, {"type": "resync"})
    legal = h.last(conn)["view"]["legal"]
    pick = next((m for m in legal if ">F" in m), None) or ("T" if "T" in legal else None)
    if pick is None and "NERTZ" in legal:
        pick = "NERTZ"
    if pick is not None:
        seq += 1
        h.send(conn, {"type": "play", "seq": seq, "move": pick})
        answer = h.last(conn) if h.last(conn)["type"] in ("ack", "refused") else None
        assert answer is None or answer["seq"] == seq
    return seq


def play_match(h: Harness, conn: int = 1, max_ms: int = 3_600_000) -> None:
    seq = 0
    end = h.now + max_ms
    while h.table.stage is not Stage.OVER and h.now < end:
        h.advance(300)
        if h.table.stage is Stage.PLAYING:
            seq = greedy_step(h, conn, seq)
        elif h.table.stage is Stage.BETWEEN and not h.table.seats[0].ready:
            h.send(conn, {"type": "ready"})
    assert h.table.stage is Stage.OVER


def events(h: Harness, conn: int) -> list[dict[str, Any]]:
    """Every event a connection saw, acks unpacked, in version order."""
    out = []
    for m in h.messages(conn):
        if m["type"] == "event":
            out.append(m)
        elif m["type"] == "ack":
            out += m["events"]
    return out


def test_a_full_match_against_three_bots_ends_with_the_right_scores() -> None:
    rules = Rules(target=25, caller_bonus=10)
    h = seated(rules, fast())
    h.connect(2, None)  # a spectator
    play_match(h)
    seen = events(h, 1)
    versions = [e["v"] for e in seen]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)
    ends = [e["e"] for e in seen if e["e"]["k"] == "hand_end"]
    assert len(ends) == h.table.hand_no >= 1
    totals = [0, 0, 0, 0]
    for end in ends:
        for seat, s in enumerate(end["scores"]):
            bonus = rules.caller_bonus if end["caller"] == seat else 0
            assert s["bonus"] == bonus
            assert s["score"] == s["middle"] - rules.penalty * s["nertz_left"] + bonus  # R30
            totals[seat] += s["score"]
        assert end["totals"] == totals  # R32: running totals
    final = [e["e"] for e in seen if e["e"]["k"] == "match_end"]
    assert len(final) == 1
    assert final[0]["totals"] == totals == h.table.match.totals
    assert h.table.info()["history"] == [end["totals"] for end in ends]  # the chart's data
    assert max(totals) >= rules.target
    assert final[0]["winners"] == [s for s in range(4) if totals[s] == max(totals)]
    watched = events(h, 2)  # the spectator saw the same events from when it came in
    assert watched == [e for e in seen if e["v"] >= watched[0]["v"]]


def race_deal(seats: int, rules: Rules, seed: int) -> Deal:
    return Deal.from_layouts(
        [
            "nertz: 9S 2H; work: AH / 5C / 6C / 7C; stock: 9D; waste: -",
            "nertz: 9S 2H; work: 5D / 6D / 7D / 8D; stock: 9C; waste: -",
        ]
    )


def test_two_seats_race_for_one_foundation_one_ack_one_beaten() -> None:
    rules = Rules(tie_window_ms=0)  # R16: no true ties, arrival order decides
    h = Harness(rules, Settings(seats=2, countdown_ms=100))
    h.table.dealer = race_deal
    for conn, token in ((1, "a"), (2, "b")):
        h.join(f"p{conn}", token)
        h.connect(conn, token)
        h.send(conn, {"type": "ready"})
    h.run_until(lambda: h.table.stage is Stage.PLAYING)
    h.send(1, {"type": "play", "seq": 1, "move": "1>F"})  # the ace starts F1 (R12)
    assert h.last(1)["type"] == "ack"
    h.now += 5
    h.send(2, {"type": "play", "seq": 7, "move": "N>F1"})  # seat 1 is first ...
    h.send(1, {"type": "play", "seq": 2, "move": "N>F1"})  # ... seat 0 a moment later
    won, lost = h.last(2), h.last(1)
    assert won["type"] == "ack" and won["seq"] == 7
    assert lost == {
        "type": "refused",
        "seq": 2,
        "code": "beaten",
        "reason": "beaten to it: F1 already has the 2 of hearts (R16)",
    }
    h.send(1, {"type": "resync"})
    h.send(2, {"type": "resync"})
    one, two = h.last(1), h.last(2)
    assert one["v"] == two["v"] == h.table.version
    assert one["view"]["foundations"] == two["view"]["foundations"]
    assert one["view"]["foundations"][0]["owners"] == [0, 1]
    assert one["view"]["seats"][0]["nertz_top"] == "2H"  # the loser's card went back
    assert two["view"]["seats"][1]["nertz_top"] == "9S"


# ---------------------------------------------------------------------- hidden cards


def _cards_by_seat(message: dict[str, Any]) -> list[tuple[int, str]]:
    """Every (owner, card) a message mentions, by where it appears."""
    found: list[tuple[int, str]] = []

    def table_view(v: dict[str, Any]) -> None:
        for s in v["seats"]:
            owner = s["seat"]
            if s["nertz_top"]:
                found.append((owner, s["nertz_top"]))
            for pile in s["work"]:
                found.extend((owner, c) for c in pile)
            found.extend((owner, c) for c in s["waste"])
        for f in v["foundations"]:
            found.append((f["owners"][-1], f["top"]))
        # R41: an announced joker lies face up on its owner's pile while its window runs.
        found.extend((a["seat"], a["joker"]) for a in v.get("announcements", ()))

    if message["type"] == "state" and message.get("view"):
        table_view(message["view"])
    if message["type"] == "event":
        e = message["e"]
        if e["k"] == "dealt":
            table_view(e["table"])
        elif e["k"] in ("moved", "turned"):
            found += [(e["seat"], c) for c in e["cards"]]
            if e.get("revealed"):
                found.append((e["seat"], e["revealed"]))
        elif e["k"] in ("announced", "joker_stayed"):
            found.append((e["seat"], e["joker"]))
    return found


CARD = re.compile(r"^((A|[2-9]|10|J|Q|K)[CDHS]|JK[12])$")
NAMED = ("as", "top_as")
"""Fields that name the card a joker stands for (R41): no seat's card lies there."""


def _count_cards(obj: Any) -> int:
    """How many strings anywhere in a message are card texts (a joker's announced
    meaning aside)."""
    if isinstance(obj, str):
        return 1 if CARD.match(obj) else 0
    if isinstance(obj, dict):
        return sum(_count_cards(v) for k, v in obj.items() if k not in NAMED)
    if isinstance(obj, list):
        return sum(_count_cards(v) for v in obj)
    return 0


def assert_no_hidden_cards(wire: list[bytes], deals: dict[int, DealRecord], draw: int) -> None:
    """Walk one connection's bytes in order: a card of a seat may appear only once
    the rules have turned it face up (dealt face up, revealed from the Nertz pile
    one at a time, R4, or turned from the stock at most ``draw`` at a time, R21)."""
    seeds = [str(d.seed) for d in deals.values() if d.seed is not None]
    known: dict[int, set[str]] = {}
    nertz: dict[int, list[str]] = {}
    hand = 0

    def start(number: int) -> None:
        nonlocal hand
        hand = number
        record = deals[number]
        known.clear()
        nertz.clear()
        for seat, text in enumerate(record.layouts):
            parts = dict(p.strip().split(":", 1) for p in text.split(";"))
            pile = parts["nertz"].split()
            nertz[seat] = pile[:-1]  # face down, bottom to top
            known[seat] = {pile[-1]} | {c for c in parts["work"].split() if c not in "-/"}

    for body in wire:
        for seed in seeds:
            assert seed.encode() not in body, "a deal seed reached a client"
        assert b"layouts" not in body and b"seed" not in body
        outer = json.loads(body)
        inner = outer["events"] if outer["type"] == "ack" else [outer]
        for message in inner:
            if message["type"] == "state" and message["table"]["hand"] and not hand:
                start(message["table"]["hand"])
            if message["type"] == "event":
                e = message["e"]
                if e["k"] == "dealt":
                    start(e["hand"])
                elif e["k"] == "turned":
                    assert len(e["cards"]) <= draw
                    known[e["seat"]].update(e["cards"])
                elif e["k"] == "moved" and e["move"].startswith("N") and nertz[e["seat"]]:
                    next_card = nertz[e["seat"]].pop()
                    assert e["revealed"] == next_card
                    known[e["seat"]].add(next_card)
            placed = _cards_by_seat(message)
            assert len(placed) == _count_cards(message), f"a card in an unknown place: {message}"
            for owner, card in placed:
                assert card in known[owner], f"seat {owner}'s face-down {card} was sent"


@pytest.mark.parametrize("jokers", [False, True])
def test_no_face_down_card_or_stock_order_reaches_any_client(jokers: bool) -> None:
    """With jokers (R41) too: a face-down joker is a count like any card; it reaches a
    client only once turned up, and then as ``JK1``/``JK2`` of its owner."""
    rules = Rules(target=20, jokers=jokers)
    h = seated(rules, fast())
    h.connect(2, None)
    play_match(h)
    deals = {r.hand: r for r in h.records if isinstance(r, DealRecord)}
    assert len(deals) == h.table.hand_no
    total = 0
    for conn in (1, 2):
        assert_no_hidden_cards(h.wire[conn], deals, rules.draw)
        total += len(h.wire[conn])
    assert total > 200
    wire = b"".join(h.wire[1])
    assert (b'"JK1"' in wire or b'"JK2"' in wire) == jokers


# ---------------------------------------------------------------------- reconnects


def mid_hand(settings: Settings | None = None) -> Harness:
    h = seated(Rules(), settings or fast())
    h.run_until(lambda: h.table.stage is Stage.PLAYING)
    h.advance(2000)
    return h


def test_reconnect_with_a_stale_version_gets_exactly_the_missing_events() -> None:
    h = mid_hand()
    seen = max(e["v"] for e in events(h, 1))
    h.drop(1)
    h.advance(3000)  # the bots play on
    assert h.table.version > seen + 5
    h.connect(3, "t0", last_version=seen, epoch=h.table.epoch)
    resent = [json.loads(b) for b in h.wire[3]]
    assert [m["v"] for m in resent] == list(range(seen + 1, h.table.version + 1))
    assert resent[-1]["e"] == {"k": "connected", "seat": 0, "connected": True}
    h.connect(4, "t0", last_version=-1)  # too stale to patch (or none): a full state
    state = h.last(4)
    assert state["type"] == "state" and state["seat"] == 0 and state["v"] == h.table.version
    assert state["view"] == view(h.table.hand, 0)  # type: ignore[arg-type]
    assert h.closed[3] == "replaced"


def test_a_version_from_a_lost_future_gets_a_full_state_after_a_rebuild() -> None:
    h = mid_hand()
    # What was committed: everything up to now. Then one more event goes out and the
    # server dies before it reaches the disk.
    committed = list(h.records)
    h.advance(500)
    client_version = h.table.version
    assert client_version > len([r for r in committed if type(r) is EventRecord])
    again = restore_from_records("TEST", h.table.rules, h.table.settings, committed)
    assert again.epoch != h.table.epoch
    # The rebuilt table's own versions reach the client's again: the old client must not
    # take its next events as the continuation of what it saw.
    h2 = Harness(h.table.rules, h.table.settings, again)
    h2.now = h.now
    h2.connect(7, "t0", last_version=min(client_version, again.version - 1), epoch=h.table.epoch)
    [state] = h2.messages(7)
    assert state["type"] == "state" and state["epoch"] == again.epoch
    assert state["v"] == again.version and state["view"] == view(again.hand, 0)  # type: ignore[arg-type]
    # The same incarnation still resumes by events.
    h2.drop(7)
    seen = again.version
    h2.advance(1000)
    h2.connect(8, "t0", last_version=seen, epoch=again.epoch)
    assert all(m["type"] == "event" for m in h2.messages(8))


def test_a_bot_takes_over_an_empty_seat_and_hands_it_back() -> None:
    h = mid_hand(fast(bot_takeover_s=2))
    hand = h.table.hand
    assert hand is not None
    h.drop(1)
    h.advance(1900)
    assert h.table.seats[0].driver is None
    h.connect(9, None)  # a spectator watches
    h.advance(200)
    assert {"k": "takeover", "seat": 0, "bot": True} in [e["e"] for e in events(h, 9)]
    before = len([x for x in hand.log if x[1] == 0])
    h.advance(4000)
    assert len([x for x in hand.log if x[1] == 0]) > before  # the bot plays seat 0
    h.connect(5, "t0", last_version=-1)
    assert {"k": "takeover", "seat": 0, "bot": False} in [e["e"] for e in events(h, 9)]
    mark = len(hand.log)
    h.advance(3000)
    assert all(x[1] != 0 for x in hand.log[mark:])  # handed back: the bot is gone


# ---------------------------------------------------------------------- bad input


def test_bad_input_gets_a_code_and_a_sentence_and_changes_nothing() -> None:
    h = seated(Rules(), fast(countdown_ms=1000))
    h.send(1, {"type": "play", "seq": 1, "move": "T"})
    assert h.last(1)["code"] == "not_started"  # during the countdown (R8)
    h.run_until(lambda: h.table.stage is Stage.PLAYING)
    hand = h.table.hand
    assert hand is not None
    h.connect(2, None)
    before = hand.snapshot()
    version = h.table.version

    def answer(conn: int, text: str) -> dict[str, Any]:
        decoded = decode_client(text)
        if isinstance(decoded, ProtocolError):
            return {"type": "error", "code": decoded.code, "reason": decoded.reason}
        h.do(Inbound(conn, decoded))
        return h.last(conn)

    cases = [
        (1, '{"type": "play", "seq": 2, "move": "T", "seat": 2}', "bad_field", "seat"),
        (1, '{"type": "play", "seq": 3, "move": "Q>Z"}', "bad_move", "not a move"),
        (1, '{"type": "play", "seq": 4, "move": "9>F"}', "bad_move", "not a move"),
        (1, '{"type": "play", "seq": 5, "move": "NERTZ"}', "nertz_not_empty", "R27"),
        (1, '{"type": "play", "seq": 6, "move": "W>F"}', "not_available", "waste"),
        (1, '{"type": "ready"}', "not_now", "playing"),
        (1, '{"type": "hello", "table": "TEST"}', "already_joined", "hello"),
        (1, '{"type": "dance"}', "unknown_type", "types are"),
        (1, "{not json", "bad_json", "JSON"),
        (2, '{"type": "play", "seq": 1, "move": "T"}', "not_seated", "spectators"),
        (2, '{"type": "call", "seq": 2}', "not_seated", "spectators"),
    ]
    for conn, text, code, words in cases:
        got = answer(conn, text)
        assert got["type"] in ("error", "refused"), (text, got)
        assert got["code"] == code, (text, got)
        assert words in got["reason"], (text, got)
    assert hand.snapshot() == before
    assert h.table.version == version
    assert not h.closed


def test_plays_after_the_hand_are_refused_hand_over() -> None:
    h = seated(Rules(target=10000), fast(bots={1: "demon", 2: "demon", 3: "demon"}))
    h.run_until(lambda: h.table.stage is Stage.BETWEEN)
    h.send(1, {"type": "play", "seq": 9, "move": "T"})
    assert h.last(1)["type"] == "refused" and h.last(1)["code"] == "hand_over"


def test_a_bad_token_is_refused_and_closed() -> None:
    h = Harness(Rules(), fast())
    h.connect(7, "nope")
    assert h.last(7)["code"] == "bad_token"
    assert 7 in h.closed


def test_a_private_table_needs_its_key_to_watch() -> None:
    h = Harness(Rules(), fast(public=False))
    h.connect(7, None)
    assert h.last(7)["code"] == "private_table"


# ---------------------------------------------------------------------- restore


def test_a_table_rebuilt_from_its_records_is_the_same_table() -> None:
    h = mid_hand()
    live = h.table
    again = restore_from_records(live.code, live.rules, live.settings, h.records)
    assert again.hand is not None and live.hand is not None
    assert again.hand.snapshot() == live.hand.snapshot()
    assert again.events[: live.version] == live.events
    assert again.version == live.version + 1  # plus "resumed"
    assert again.seats[0].token_hash == live.seats[0].token_hash
    assert again.match.totals == live.match.totals


# ---------------------------------------------------------------------- fuzzing

MOVES = st.sampled_from(
    ["N>F", "W>F", "1>F", "2>F", "N>1", "W>2", "3>1", "2/2>1", "W<2", "T", "STUCK", "NERTZ"]
)
JUNK = st.one_of(
    st.sampled_from(['{"type": "leave"}', '{"type": "resync"}', '{"type": "ready"}']),
    st.text(max_size=40),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
    st.builds(
        lambda t, seq, move: json.dumps({"type": t, "seq": seq, "move": move}),
        st.sampled_from(["play", "call", "stuck", "ready", "resync", "hello", "leave", "x", ""]),
        st.one_of(st.integers(-5, 2**60), st.text(max_size=3), st.none()),
        st.one_of(MOVES, st.text(max_size=8), st.integers()),
    ),
    st.builds(
        lambda m, s: json.dumps({"type": "play", "seq": s, "move": m}), MOVES, st.integers(0, 99)
    ),
    st.dictionaries(st.text(max_size=6), st.integers() | st.text(max_size=6), max_size=4).map(
        json.dumps
    ),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(JUNK, st.integers(0, 400)), min_size=1, max_size=30))
def test_fuzzed_messages_are_all_answered_and_the_game_stays_valid(
    script: list[tuple[str, int]],
) -> None:
    h = seated(Rules(), fast(countdown_ms=0))
    h.run_until(lambda: h.table.stage is Stage.PLAYING)
    for text, wait in script:
        h.advance(wait)
        count = len(h.wire[1])
        decoded = decode_client(text)
        if isinstance(decoded, ProtocolError):
            assert decoded.code and decoded.reason
            continue
        h.do(Inbound(1, decoded))
        if type(decoded).__name__ != "Leave":
            answers = [json.loads(b) for b in h.wire[1][count:]]
            assert answers, text
            assert any(a["type"] in ("ack", "refused", "error", "state", "event") for a in answers)
        else:
            assert h.closed == {1: "left"}  # only leaving closes the connection
            break
        assert 1 not in h.closed, text
    hand = h.table.hand
    assert hand is not None
    assert replay(hand.deal, hand.rules, hand.log).snapshot() == hand.snapshot()
    for seat in range(4):
        view(hand, seat)


def test_a_timer_is_fired_by_the_part_that_set_it_and_an_unknown_one_is_an_error() -> None:
    """Timers are kinds of ``Timer``, each fired by the collaborator that owns it (the
    table's deadline names its kind and target, ``Due``); a part handed a kind that is
    not its own raises instead of letting it pass unseen, as the old chain's ``else``
    did."""
    from nertz.server.table.context import Timer
    from nertz.server.table.table import Table

    table = Table("TEST", Rules(), Settings(seats=2))
    with pytest.raises(ValueError, match="not a lifetime's timer"):
        table.lifetimes.fire(Timer.GO, 0)
    with pytest.raises(ValueError, match="not a fair race's timer"):
        table.fair.fire(Timer.BOT, -1, 0)
