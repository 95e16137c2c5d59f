"""A finished hand analysed for one seat (``nertz.analysis``), read back from the store:
the summary with its missed plays and Nertz-first estimate (``GET
/api/matches/{id}/analysis``) and the bots' choice at a moment (``.../advice``).

The same finished matches as the notation (``stored_match``): a match still played is
refused (``409 match_in_progress``), so an analysis never shows a card a seat could not
see while the hand was live. The races each seat won and lost are the table's record
(``hand_races``, R16), not recomputed.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, select

from nertz.analysis import bots_choice, summarise
from nertz.engine import HandText, Rules
from nertz.server.lobby.devices import Devices
from nertz.server.lobby.lobby import LobbyError
from nertz.server.lobby.notation import stored_match
from nertz.server.lobby.replays import finished_hand
from nertz.server.store.schema import hand_races_t

__all__ = ["MAX_MOMENT_MS", "hand_advice", "hand_analysis"]

MAX_MOMENT_MS = 24 * 3600 * 1000
"""The latest moment (ms after Go) asked about: no hand lasts a day."""


def hand_analysis(engine: Engine, table_id: str, hand: int, seat: int) -> dict[str, Any]:
    """Seat ``seat``'s figures in hand ``hand`` (the table's own number, as the replay
    viewer counts them) of a finished match. Reads the disk and replays the hand: call
    it off the event loop."""
    number, rules, hand_text = _hand(engine, table_id, hand, seat)
    with engine.connect() as conn:
        row = conn.execute(
            select(hand_races_t.c.won, hand_races_t.c.lost).where(
                hand_races_t.c.table_id == table_id,
                hand_races_t.c.hand == hand,
                hand_races_t.c.seat == seat,
            )
        ).first()
    races = (row.won, row.lost) if row is not None else (0, 0)
    summary = summarise(rules, hand_text, seat, races)
    return {"match": number, "hand": hand, **summary.as_dict()}


def hand_advice(engine: Engine, table_id: str, hand: int, seat: int, at_ms: int) -> dict[str, Any]:
    """The expert policy's move for seat ``seat`` ``at_ms`` ms after Go of hand ``hand``
    (the table's own number). Call it off the event loop."""
    if not 0 <= at_ms <= MAX_MOMENT_MS:
        raise LobbyError("bad_moment", f"t is a moment of the hand, 0 to {MAX_MOMENT_MS} ms")
    number, rules, hand_text = _hand(engine, table_id, hand, seat)
    advice = bots_choice(rules, hand_text, seat, at_ms)
    return {"match": number, "hand": hand, "seat": seat, **advice.as_dict()}


def _hand(engine: Engine, table_id: str, hand: int, seat: int) -> tuple[int, Rules, HandText]:
    """The match number, rules and text of finished hand ``hand``, once ``seat`` is one
    of its seats (``LobbyError`` as ``finished_hand``'s, or ``bad_seat``)."""
    _, number, _ = finished_hand(engine, Devices(engine), table_id, hand)
    match = stored_match(engine, table_id, number).match
    if not 0 <= seat < len(match.seats):
        raise LobbyError("bad_seat", f"seat is 0 to {len(match.seats) - 1} at this table")
    found = next((h for h in match.hands if h.number == hand), None)
    if found is None:  # a hand the match's breakdown does not list: none to analyse
        raise LobbyError("bad_hand", f"hand {hand} has no stored inputs to analyse")
    return number, match.rules, found
