"""Partnerships at a table (R40): where a person sits, and partners' holds.

A partnership seat has two places, partner 0 and partner 1: one layout, one deck, one
back and one score, two people (or bots). Which free place a person takes when they do not choose
is ``seats.choose_place`` (how a seat's bots are written, ``expert+casual``, is
``nertz.bots.parse_places``). ``Partnering`` is the table's part that keeps partners
out of each other's way: a partner picks up a card and lets go of it, everyone sees the
hold, a hold lapses, and a bot whose partner's hold or company changed looks again
(its planning is ``bots.BotSeats``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nertz.engine import (
    Card,
    Hand,
    Holds,
    Refusal,
    parse_source,
    source_name,
    source_text,
)
from nertz.server.protocol import HoldMsg, Pick, Refused, encode
from nertz.server.table.commands import Out, Stage

if TYPE_CHECKING:
    from nertz.server.table.seats import Place

__all__ = ["HOLD_LAPSE_MS", "Partnering"]

HOLD_LAPSE_MS = 5000
"""R40 (online): a partner's hold on a card lapses after this long without a play (a
hand resting on a card does not keep it from the partner for ever). A timer of the
table, like every other: ``next_deadline`` includes it and the actor's ``Wake`` fires it."""


def top(hand: Hand | None, seat: int, src: int) -> Card | None:
    """The face-up card a partner picks up at ``src``: the Nertz or waste top, or a
    work pile's end card (R14); None if there is none."""
    return None if hand is None else hand.top(seat, src)


class Partnering:
    """The ``Table``'s holds (R40). State is the table's: its ``holds``, ``places`` and
    connections."""

    per_seat: int
    holds: Holds
    places: list[Place]
    conns: dict[int, int | None]
    hand: Hand | None
    stage: Stage
    _out: Out

    if TYPE_CHECKING:

        def place(self, seat: int, partner: int = 0) -> Place: ...

        def partner_of(self, place: Place) -> Place | None: ...

        def _error(self, conn: int, code: str, reason: str, seq: int | None = None) -> None: ...

        def _role(self, place: Place) -> str | None: ...

        def _plan(self, place: Place, now: int) -> None: ...

    def _pick(self, place: Place, message: Pick, now: int, conn: int) -> None:
        """A partner picked up a card: refused while the other partner holds it."""
        seq = message.seq
        src = parse_source(message.src)
        if src is None:
            self._error(conn, "bad_field", f"src must be N, W or 1-4, not {message.src!r}", seq)
            return
        hand = self.hand
        if hand is None or self.stage is not Stage.PLAYING or hand.over:
            code, reason = (
                ("not_started", "wait for Go (R8)")
                if self.stage in (Stage.SEATING, Stage.COUNTDOWN)
                else ("hand_over", "the hand is over (R28)")
            )
            self._out.sends.append((conn, encode(Refused(seq, code, reason))))
            return
        card = top(hand, place.number, src)
        if card is None:
            where = source_name(src)
            reason = f"your {where} is empty: there is no card to pick up (R14)"
            self._out.sends.append(
                (conn, encode(Refused(seq, Refusal.NOT_AVAILABLE.value, reason)))
            )
            return
        outcome = self.holds.pick(place.number, place.partner, src, card)
        if not outcome.ok:
            code = outcome.code.value if outcome.code else "refused"
            self._out.sends.append((conn, encode(Refused(seq, code, outcome.reason))))
            return
        place.hold_until = now + HOLD_LAPSE_MS
        self._send_hold(place)
        self._replan_partner(place, now)

    def _let_go(self, place: Place) -> None:
        """``place`` puts down what it held (played, let go, left, or lapsed)."""
        place.hold_until = None
        if self.per_seat > 1 and self.holds.drop(place.number, place.partner):
            self._send_hold(place)

    def _hold_message(self, place: Place) -> bytes:
        src = self.holds.held(place.number)[place.partner]
        card = self.holds.card(place.number, place.partner)
        return encode(
            HoldMsg(
                place.number,
                place.partner,
                None if src is None else source_text(src),
                None if card is None else str(card),
            )
        )

    def _send_hold(self, place: Place) -> None:
        """Everyone sees where a partner is acting (R40): a face-up card, or nothing."""
        body = self._hold_message(place)
        for conn in self.conns:
            self._out.sends.append((conn, body))

    def _resend_holds(self, conn: int) -> None:
        """A page that resumed from its last version missed the holds taken while it was
        away (they carry no version): it is told every hold standing now (R40)."""
        if self.per_seat == 1:
            return
        for place in self.places:
            if self.holds.held(place.number)[place.partner] is not None:
                self._out.sends.append((conn, self._hold_message(place)))

    def _clear_holds(self) -> None:
        """Every hand empties: a new deal (R33) or a rotation (R25) changes what lies
        under them."""
        if self.per_seat == 1:
            return
        for place in self.places:
            self._let_go(place)

    def _replan_partner(self, place: Place, now: int) -> None:
        """A bot whose partner just picked up a card its committed move touches, or
        whose partner changed (a person came, a bot stood in), looks again (R40)."""
        other = self.partner_of(place)
        if other is None or other.driver is None or self.stage is not Stage.PLAYING:
            return
        held = self.holds.held(place.number)[place.partner]
        if other.driver.stale(held, self._role(other)):
            self._plan(other, now)
