"""A finished match written straight into a store, as a table stores one (its table,
each hand's deal, inputs, scores and races, the match's end): for the replay viewer's
tests, which need many real hands without waiting for them to be played.

The hands are played by greedy seats in virtual time (R8-R28), each seat acting at its
own pace, so the races and the timeline differ from seat to seat."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import update

from nertz.bots import greedy_move
from nertz.engine import Hand, Match, Move, Phase, Rules, deal
from nertz.server.lobby.timeline import SEAT_PILES
from nertz.server.store.schema import matches_t
from nertz.server.store.store import Store, TableCreated
from nertz.server.table.records import (
    DealRecord,
    InputRecord,
    MatchRecord,
    RacesRecord,
    ScoreRecord,
    hand_caller,
    hand_scores,
)

NAMES = ("Ann", "Bert", "Cleo", "Dev")
CALL = Move.parse("NERTZ")


@dataclass(frozen=True)
class StoredMatch:
    """The match's table id (its match id), code, and its hands as played."""

    id: str
    code: str
    hands: tuple[Hand, ...]


def played_hand(
    seats: int, rules: Rules, seed: int, go_ms: int, slow: tuple[int, ...] = ()
) -> Hand:
    """A hand greedy seats played to its end, each acting every 120-400 ms (the seats in
    ``slow`` every 1.5-4 s, so cards wait for them) and waiting while a joker it
    announced is in its window (R41)."""
    pace = random.Random(seed)
    hand = Hand(deal(seats, rules, seed), rules)
    hand.start(go_ms)

    def later(seat: int) -> int:
        return pace.randrange(1500, 4000) if seat in slow else pace.randrange(120, 400)

    due = [go_ms + later(seat) for seat in range(seats)]
    while not hand.over:
        now = min(due)
        for seat in range(seats):
            if due[seat] == now:
                if any(a.seat == seat for a in hand.announcements):
                    pass  # its joker announced (R41): it waits for the joker to land
                elif not hand.seats[seat].nertz and hand.phase is Phase.PLAYING:
                    hand.play(seat, CALL, now)  # R27: the Nertz pile is empty
                else:
                    move = greedy_move(hand.legal_moves(seat))
                    if move is not None:
                        hand.play(seat, move, now)
                due[seat] = now + later(seat)
        hand.tick(now)
    return hand


def store_finished_match(
    db: Path,
    *,
    hands: int = 10,
    seats: int = 4,
    public: bool = True,
    table_id: str = "",
    code: str = "RPLY",
    slow: tuple[int, ...] = (),
) -> StoredMatch:
    """Write a finished match of ``hands`` hands at ``seats`` seats into the store at
    ``db`` and close it. It ended two days ago, so a server started on ``db`` keeps it
    on disk (``Lobby.restore`` brings back only tables that may still play). The seats
    in ``slow`` play slowly (``played_hand``)."""
    table_id = table_id or f"{random.Random(hands * 31 + seats).getrandbits(64):016x}"
    rules = Rules(nertz_pile=11, target=10_000)  # no hand ends it: it ends after the last
    settings = {"seats": seats, "bots": {str(n): "beginner:scorer" for n in range(seats)}}
    store = Store(str(db))
    store.submit(table_id, [TableCreated(code, None, public, rules.as_dict(), settings, 1.0)])
    match = Match(seats, rules)
    played = []
    for number in range(1, hands + 1):
        seed = 1000 + number
        hand = played_hand(seats, rules, seed, number * 600_000, slow)
        records: list[object] = [DealRecord(number, hand.deal.layouts, seed)]
        records += [InputRecord(number, i, *entry) for i, entry in enumerate(hand.log)]
        records.append(
            ScoreRecord(number, hand_scores(hand), hand_caller(hand), hand.end_reason.value)
        )
        records.append(RacesRecord(number, 1, (0,) * seats, (0,) * seats))
        store.submit(table_id, records)  # type: ignore[arg-type]
        match.record(hand.scores(), hand_caller(hand))
        played.append(hand)
    players = tuple((n, 0, NAMES[n % len(NAMES)], None) for n in range(seats))
    store.submit(table_id, [MatchRecord(tuple(match.totals), tuple(match.winners), 1, 1, players)])
    store.flush()
    with store.engine.begin() as conn:
        conn.execute(
            update(matches_t)
            .where(matches_t.c.table_id == table_id)
            .values(finished=matches_t.c.finished - 2 * 86400)
        )
    store.close()
    return StoredMatch(table_id, code, tuple(played))


def engine_table(hand: Hand) -> dict[str, Any]:
    """Every card of the table as the engine holds it, in the replay timeline's terms
    (``server/lobby/timeline.py``): each seat's piles, fan and stuck; the middle's cards
    with their owners, a joker with the card it stands for (R41)."""
    return {
        "seats": [
            {
                **{
                    name: [str(c) for c in pile]
                    for name, pile in zip(
                        SEAT_PILES, [s.nertz, *s.work, s.stock, s.waste], strict=True
                    )
                },
                "fan": s.fan,
                "stuck": s.stuck,
            }
            for s in hand.seats
        ],
        "middle": [
            [c.tagged + (f"={f.jokers[i]}" if i in f.jokers else "") for i, c in enumerate(f.cards)]
            for f in hand.foundations
        ],
    }
