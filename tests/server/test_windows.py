"""The windows of the rules decided by credited play time (R28, R41; docs/fairness.md).

The landing window after a call (R28) and a joker's announcement window (R41) end, in
credited time, their length after the call's (or the announcement's) credited time: a
play made inside a window counts as inside it though it arrives after the engine's end
of it, and a play made after it counts as after it though it arrives before.
"""

from __future__ import annotations

from nertz.engine import Deal, Rules

from .test_races import Net

LANDING = (
    "nertz: 9S 2H; work: AH / 5C / 6C / 7C; stock: 9D; waste: -",
    "nertz: 2S; work: AS / 5D / 6D / 7D; stock: 9C; waste: -",
)
"""Seat 0 will play its 2H on its AH; seat 1 empties its Nertz pile on its AS and calls."""
JOKER = (
    "nertz: JK1; work: AH / 9C / KC / 4C; stock: 3C; waste: -",
    "nertz: 9S 2H; work: 5D / 6D / 7D / 8D; stock: 9C; waste: -",
)
"""Seat 0 has the AH for F1 and a joker to announce as the 2H; seat 1 the real 2H."""


def landing_deal(seats: int, rules: Rules, seed: int) -> Deal:
    return Deal.from_layouts(list(LANDING))


def joker_deal(seats: int, rules: Rules, seed: int) -> Deal:
    return Deal.from_layouts(list(JOKER))


def called(rules: Rules) -> tuple[Net, int]:
    """Seat 0 120 ms away with its 2H ready for F1, seat 1 10 ms away: seat 1 calls at
    the returned table time (its gesture)."""
    net = Net(rules, (120, 10), landing_deal)
    t = net.h.now + 100
    net.play(1, 1, "1>F", t)
    net.play(2, 1, "1>F", t)
    net.play(2, 2, "N>F", t + 100)
    net.run(1000)
    assert net.answer(1, 1)[1]["type"] == net.answer(2, 2)[1]["type"] == "ack"
    call = net.h.now + 100
    net.play(2, 3, "NERTZ", call)
    return net, call


def test_a_card_played_inside_the_landing_window_lands_though_it_arrives_after() -> None:
    """R28: 200 ms after the call, inside its 250 ms, from a seat 120 ms away: the card
    reaches the table 60 ms after the engine's window (from the call's arrival) ended."""
    net, call = called(Rules())
    net.play(1, 2, "N>F", call + 200)
    net.run(2000)
    assert net.answer(2, 3)[1]["type"] == "ack"
    assert net.answer(1, 2)[1]["type"] == "ack"
    hand = net.h.table.hand
    assert hand is not None and hand.over and any(f.texts()[-1] == "2H@0" for f in hand.foundations)


def test_with_fair_races_off_the_landing_window_is_counted_on_arrival() -> None:
    net, call = called(Rules(fair_races=False))
    net.play(1, 2, "N>F", call + 200)
    net.run(2000)
    refused = net.answer(1, 2)[1]
    assert refused["type"] == "refused" and refused["code"] == "hand_over"


def test_a_card_played_after_the_landing_window_is_refused_though_it_arrives_inside() -> None:
    """R28: the call was made 10 ms before it reached the table, so its window ends
    10 ms before the engine's: a card played 252 ms after the call is too late, though
    (a quick trip this time) it reaches the table inside the engine's window."""
    net, call = called(Rules())
    net.delays[1] = 5
    net.play(1, 2, "N>F", call + 252)
    net.run(2000)
    refused = net.answer(1, 2)[1]
    assert refused["type"] == "refused" and refused["code"] == "hand_over"
    assert refused["reason"] == "the hand is over (R28)"


def announced(rules: Rules) -> tuple[Net, int]:
    """Seat 0 (10 ms away) announces its joker as the 2H for F1 at the returned table
    time; seat 1, holding the real 2H, is 120 ms away."""
    net = Net(rules, (10, 120), joker_deal)
    t = net.h.now + 100
    net.play(1, 1, "1>F", t)
    net.run(500)
    at = net.h.now + 100
    net.play(1, 2, "N>F1=2H", at)
    net.run(150)
    assert net.answer(1, 2)[1]["type"] == "ack"
    return net, at


def test_a_real_card_played_inside_a_jokers_window_beats_it_though_it_arrives_after() -> None:
    """R41: the real 2H played 1450 ms into the 1500 ms window reaches the table 60 ms
    after the engine's window (from the announcement's arrival) ended."""
    net, at = announced(Rules(jokers=True))
    net.play(2, 2, "N>F1", at + 1450)
    net.run(2000)
    assert net.answer(2, 2)[1]["type"] == "ack"
    events = [m["e"] for m in net.h.messages(1) if m["type"] == "event"]
    stayed = [e for e in events if e["k"] == "joker_stayed"]
    assert stayed and stayed[0]["reason"] == "the 2 of hearts reached F1 first (R41)"


def test_a_real_card_played_after_a_jokers_window_waits_for_the_joker_to_land() -> None:
    """R41: played 2 ms after the window ended in credited time, and (a quick trip this
    time) arriving before the engine's end of it: held back, then beaten by the joker
    that landed."""
    net, at = announced(Rules(jokers=True))
    net.delays[2] = 3
    net.play(2, 2, "N>F1", at + 1502)
    net.run(2000)
    refused = net.answer(2, 2)[1]
    assert refused["type"] == "refused" and refused["code"] == "beaten"
    hand = net.h.table.hand
    assert hand is not None and hand.foundations[0].texts()[-1] == "JK1@0=2H"


def test_with_fair_races_off_a_jokers_window_is_counted_on_arrival() -> None:
    net, at = announced(Rules(jokers=True, fair_races=False))
    net.play(2, 2, "N>F1", at + 1450)
    net.run(2000)
    assert net.answer(2, 2)[1]["code"] == "beaten"
