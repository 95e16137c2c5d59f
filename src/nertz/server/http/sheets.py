"""The score sheet for real cards: people playing with physical decks keep
score here with the engine's own arithmetic (R29-R32, ``score`` and ``Match``).

A sheet holds the players' names, the options that matter for scoring (those the
engine declares with ``sheet=True``: ``SHEET_OPTIONS``) and its hands: per seat the cards it got to
the middle and the cards left in its Nertz pile, who called (or nobody), and whether the
hand was voided (a deal replayed after an illegal play: not scored). ``compute`` gives
each hand's scores, the running totals and the winner(s) by the rules in force.

Every change is checked in full before anything is stored (``SheetError``: a code and a
sentence naming the hand and the player): counts within one deck (52, or 54 with
jokers, R41), Nertz cards left at most the pile size, at most one caller, the caller's
Nertz pile empty, and no hand after the one that ended the match. A sheet lives in the
server's database under a random id of 96 bits; its link ``/sheet/{id}`` is the only
way to read or change it. A sheet nobody changes for ``Limits.sheet_days`` is deleted.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any

import msgspec
from sqlalchemy import (
    Engine,
    delete,
    func,
    select,
    update,
)

from nertz.engine import OPTIONS, Match, Rules, RulesError, score
from nertz.server.door.requests import RequestError
from nertz.server.lobby.lobby import LobbyError, check_name
from nertz.server.store.sheet_rows import metadata, sheets_t
from nertz.server.table.names import name_key

__all__ = [
    "SHEET_OPTIONS",
    "SHEET_PRUNE_S",
    "HandIn",
    "SheetError",
    "SheetIn",
    "SheetStore",
    "check_sheet",
    "compute",
    "deck_size",
    "parse_sheet",
    "prune_sheets",
    "to_csv",
]

SHEET_OPTIONS = tuple(name for name, declared in OPTIONS.items() if declared.sheet)
"""The table options a score sheet uses, as the engine declares them (``sheet=True``):
those that change the scores or the counts a hand may have (``jokers``: 54 cards a deck,
R41); the others only change play."""

MAX_HANDS = 200
SHEET_PRUNE_S = 3600.0
"""How often the sheets past their lifetime (``Limits.sheet_days``) are deleted."""
log = logging.getLogger("nertz.sheets")


class SheetError(RequestError):
    """A sheet or hand that cannot be stored: a code and a sentence."""


class HandIn(msgspec.Struct, forbid_unknown_fields=True):
    """One hand as entered: per seat cards to the middle and Nertz cards left."""

    middle: list[int]
    nertz_left: list[int]
    caller: int | None = None
    void: bool = False


class SheetIn(msgspec.Struct, forbid_unknown_fields=True):
    """A whole sheet as entered."""

    names: list[str]
    options: dict[str, str | int | bool] = {}
    hands: list[HandIn] = []


@dataclass(frozen=True, slots=True)
class Sheet:
    names: list[str]
    rules: Rules
    hands: list[HandIn]

    def body(self) -> dict[str, Any]:
        return {
            "names": self.names,
            "options": {k: getattr(self.rules, k) for k in SHEET_OPTIONS},
            "hands": [msgspec.to_builtins(h) for h in self.hands],
        }


def _rules(options: dict[str, str | int | bool]) -> Rules:
    unknown = sorted(set(options) - set(SHEET_OPTIONS))
    if unknown:
        raise SheetError(
            "bad_option",
            f"a score sheet has no option {unknown[0]!r}; it uses: {', '.join(SHEET_OPTIONS)}",
        )
    try:
        return Rules().with_text({k: str(v) for k, v in options.items()})
    except RulesError as error:
        raise SheetError("bad_option", str(error)) from None


def deck_size(rules: Rules) -> tuple[int, str]:
    """Cards in one player's deck, and the rule that says so: 52 (R1), or 54 with
    jokers (R41)."""
    return (54, "R1, R41: jokers on") if rules.jokers else (52, "R1")


def _check_hand(number: int, hand: HandIn, names: list[str], rules: Rules) -> None:
    seats = len(names)
    label = f"hand {number}"
    if len(hand.middle) != seats or len(hand.nertz_left) != seats:
        raise SheetError("bad_hand", f"{label}: give a count for each of the {seats} players")
    deck, rule = deck_size(rules)
    for seat, name in enumerate(names):
        middle, left = hand.middle[seat], hand.nertz_left[seat]
        if not 0 <= middle <= deck:
            raise SheetError(
                "bad_count",
                f"{label}, {name}: cards in the middle must be 0 to {deck} "
                f"(a deck of {deck}, {rule}), not {middle}",
            )
        if not 0 <= left <= rules.nertz_pile:
            raise SheetError(
                "bad_count",
                f"{label}, {name}: Nertz cards left must be 0 to {rules.nertz_pile} "
                f"(the pile size, R4), not {left}",
            )
        if middle + left > deck:
            raise SheetError(
                "bad_count",
                f"{label}, {name}: {middle} in the middle and {left} left is more than one "
                f"deck of {deck} ({rule})",
            )
    if hand.caller is not None:
        if not 0 <= hand.caller < seats:
            raise SheetError("bad_caller", f"{label}: the caller must be one of the players")
        if hand.nertz_left[hand.caller] != 0:
            raise SheetError(
                "bad_caller",
                f"{label}: {names[hand.caller]} called Nertz, so their Nertz cards left must "
                f"be 0, not {hand.nertz_left[hand.caller]} (R27)",
            )


def seat_name(raw: object) -> str:
    """One seat's name on the sheet: a player's, or a partnership's (R40) written
    ``Ann & Bob``: two names, each checked like a table name, scored as one seat."""
    if isinstance(raw, str) and PARTNERS_SEP.strip() in raw:
        parts = raw.split(PARTNERS_SEP.strip())
        if len(parts) != 2:
            raise LobbyError(
                "bad_names", f"a partnership is two names, 'Ann & Bob' (R40), not {raw!r}"
            )
        named = [part.strip() for part in parts if part.strip()]
        if len(named) == 1:
            # "Ann &": say what is missing, not that some name is 0 characters long.
            raise LobbyError(
                "bad_names",
                f"{raw.strip()!r} names one partner: a partnership is two names, "
                f"'{named[0]} & Bob' (R40)",
            )
        return PARTNERS_SEP.join(check_name(part) for part in parts)
    return check_name(raw)


PARTNERS_SEP = " & "
"""Between the two names of a partnership seat (R40)."""


def check_sheet(data: SheetIn) -> Sheet:
    """Check a whole sheet; raises ``SheetError`` naming the first problem."""
    if not 2 <= len(data.names) <= 8:
        raise SheetError("bad_names", f"a sheet has 2 to 8 players (R2), not {len(data.names)}")
    names = []
    for i, raw in enumerate(data.names):
        try:
            names.append(seat_name(raw))
        except LobbyError as error:
            raise SheetError("bad_names", f"player {i + 1}: {error.reason}") from None
    if len({name_key(n) for n in names}) != len(names):
        raise SheetError("bad_names", "two players have the same name; tell them apart")
    rules = _rules(data.options)
    if rules.match == "gap" and len(names) < 2:
        raise SheetError("bad_option", "match 'gap' needs at least two players")
    if len(data.hands) > MAX_HANDS:
        raise SheetError("too_many_hands", f"a sheet holds at most {MAX_HANDS} hands")
    for number, hand in enumerate(data.hands, 1):
        _check_hand(number, hand, names, rules)
    sheet = Sheet(names, rules, list(data.hands))
    compute(sheet)  # a hand after the end of the match is refused here
    return sheet


def parse_sheet(stored: str) -> Sheet:
    """A sheet from its stored JSON text, checked (``check_sheet``)."""
    return check_sheet(msgspec.convert(json.loads(stored), SheetIn))


def compute(sheet: Sheet) -> dict[str, Any]:
    """Each hand's scores (the engine's ``score``), running totals and the winners
    (the engine's ``Match``). Voided hands are shown and not scored."""
    rules = sheet.rules
    match = Match(len(sheet.names), rules)
    hands = []
    over_at: int | None = None
    for number, hand in enumerate(sheet.hands, 1):
        row: dict[str, Any] = {"hand": number, **msgspec.to_builtins(hand)}
        if hand.void:
            row["scores"] = None
            row["totals"] = list(match.totals)
            hands.append(row)
            continue
        if match.over:
            raise SheetError(
                "match_over",
                f"the match was over after hand {over_at}; hand {number} cannot be scored "
                "(void it, or start a new sheet)",
            )
        scores = [
            score(m, n, seat == hand.caller, rules)
            for seat, (m, n) in enumerate(zip(hand.middle, hand.nertz_left))
        ]
        match.record(scores, hand.caller)
        row["scores"] = [s.as_dict() for s in scores]
        row["totals"] = list(match.totals)
        if rules.match == "rounds":
            row["round_winners"] = list(match.hands[-1].winners)
        hands.append(row)
        if match.over:
            over_at = number
    return {
        **sheet.body(),
        "scored": hands,
        "totals": list(match.totals),
        "round_wins": list(match.round_wins) if rules.match == "rounds" else None,
        "over": match.over,
        "winners": list(match.winners),
        "over_at": over_at,
    }


def to_csv(sheet: Sheet) -> str:
    """The sheet as CSV: one row per hand and player, then a ``total`` row per player and
    a ``winner`` row per winner (R32; none while the match is not over), every row in
    the same columns (the total in ``total``), so a spreadsheet reads it as one table."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    result = compute(sheet)
    writer.writerow(["hand", "player", "middle", "nertz_left", "called", "bonus", "score", "total"])
    for row in result["scored"]:
        for seat, name in enumerate(sheet.names):
            scores = row["scores"]
            writer.writerow(
                [
                    row["hand"],
                    name,
                    row["middle"][seat],
                    row["nertz_left"][seat],
                    "yes" if row["caller"] == seat else "",
                    scores[seat]["bonus"] if scores else "void",
                    scores[seat]["score"] if scores else "void",
                    row["totals"][seat],
                ]
            )
    for seat, name in enumerate(sheet.names):
        writer.writerow(["total", name, "", "", "", "", "", result["totals"][seat]])
    for seat in result["winners"]:
        writer.writerow(["winner", sheet.names[seat], "", "", "", "", "", result["totals"][seat]])
    return out.getvalue()


class SheetStore:
    """Sheets in the server's database (their own table, on the store's engine)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        metadata.create_all(engine)
        with engine.connect() as conn:
            self.count: int = conn.execute(select(func.count()).select_from(sheets_t)).scalar_one()
        """Sheets stored (the server-wide cap counts them)."""

    def prune(self, unchanged_since: float) -> int:
        """Delete the sheets nobody changed since ``unchanged_since`` (epoch seconds)."""
        with self.engine.begin() as conn:
            gone = conn.execute(delete(sheets_t).where(sheets_t.c.updated < unchanged_since))
        self.count = max(0, self.count - gone.rowcount)
        return int(gone.rowcount)

    def create(self, sheet: Sheet) -> str:
        sheet_id = secrets.token_urlsafe(12)
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(
                sheets_t.insert().values(
                    id=sheet_id, body=json.dumps(sheet.body()), created=now, updated=now
                )
            )
        self.count += 1
        return sheet_id

    def load(self, sheet_id: str) -> Sheet:
        return parse_sheet(self.stored(sheet_id))

    def stored(self, sheet_id: str) -> str:
        """The sheet as stored (its JSON text); ``unknown_sheet`` if there is none."""
        with self.engine.connect() as conn:
            row = conn.execute(select(sheets_t.c.body).where(sheets_t.c.id == sheet_id)).first()
        if row is None:
            raise SheetError("unknown_sheet", "there is no score sheet with that link", 404)
        return str(row.body)

    def save(self, sheet_id: str, sheet: Sheet) -> None:
        with self.engine.begin() as conn:
            done = conn.execute(
                update(sheets_t)
                .where(sheets_t.c.id == sheet_id)
                .values(body=json.dumps(sheet.body()), updated=time.time())
            )
            if done.rowcount != 1:
                raise SheetError("unknown_sheet", "there is no score sheet with that link", 404)


async def prune_sheets(sheets: SheetStore, days: int) -> None:
    """Delete the score sheets nobody changed for ``days``, now and every hour."""
    while True:
        try:
            gone = await asyncio.to_thread(sheets.prune, time.time() - days * 86400)
        except Exception:  # a busy database: try again next time
            log.exception("score sheets could not be pruned")
        else:
            if gone:
                log.info("deleted %d score sheet(s) unchanged for %d days", gone, days)
        await asyncio.sleep(SHEET_PRUNE_S)
