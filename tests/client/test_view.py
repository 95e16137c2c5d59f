"""``nertz.client`` keeps a seat's view from the table's events as the server sends
them: after every event of whole hands, played with random legal moves and the hand's
own timers (rotations, R25; the landing window, R28; jokers' windows, R41), the view it
built equals the engine's own view of the hand (everything but a pinned joker's words,
which it leaves for the next ``state``)."""

from __future__ import annotations

import copy
import random
from typing import Any

import msgspec
import pytest

from nertz.client import KeptView, engine_event
from nertz.engine import Hand, Rules, deal, spectator_view
from nertz.server.protocol import EventMsg
from nertz.server.table.records import public_event

SEAT_KEYS = ("nertz_top", "nertz_count", "work", "stock_count", "waste_count", "waste")
SEAT_KEYS += ("middle", "stuck")
WIRE = msgspec.json.Decoder(EventMsg)


def seen(view: dict[str, Any]) -> dict[str, Any]:
    """What the client keeps of a view (a pinned joker's words aside)."""
    return {
        "seats": [{k: s[k] for k in SEAT_KEYS} for s in view["seats"]],
        "foundations": view["foundations"],
        "announcements": view["announcements"],
        **{k: view[k] for k in ("phase", "caller", "rotations", "end")},
    }


def over_the_wire(event: Any) -> Any:
    """An engine event as the server sends it, read back by the client."""
    body = msgspec.json.encode(EventMsg(v=1, e=public_event(event)))
    back = engine_event(WIRE.decode(body).e)
    assert back is not None, event
    return back


def follow(mine: KeptView, hand: Hand, outcome: Any) -> None:
    """Apply an input's events to ``mine`` and check it against the hand."""
    for event in outcome.events:
        assert not mine.apply(over_the_wire(event))  # never lost from the deal on
    assert seen(mine.view) == seen(spectator_view(hand))


@pytest.mark.parametrize(
    "options", [{}, {"draw": "1", "nertz_pile": "11"}, {"jokers": "on"}], ids=str
)
def test_the_clients_view_follows_the_engines_over_whole_hands(options: dict[str, str]) -> None:
    rules = Rules().with_text(options)
    checked = 0
    for seed in range(10):
        hand = Hand(deal(3, rules, seed), rules)
        mine = KeptView({**copy.deepcopy(spectator_view(hand)), "you": 0})
        pick, now = random.Random(seed), 0
        follow(mine, hand, hand.start(now))
        while hand.end_reason is None and now < 3_000_000:
            now += 100
            due = hand.next_deadline()
            if due is not None and due <= now:
                follow(mine, hand, hand.tick(now))
            else:
                seat = pick.randrange(3)
                moves = hand.legal_moves(seat)
                if not moves:
                    continue
                follow(mine, hand, hand.play(seat, pick.choice(moves), now))
            checked += 1
        assert hand.end_reason is not None, seed
    assert checked > 500
