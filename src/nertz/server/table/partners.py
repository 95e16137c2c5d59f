"""Partnerships at a table (R40): where a person sits, and partners' holds.

A partnership seat has two places, partner 0 and partner 1: one layout, one deck, one
back and one score, two people (or bots). Which free place a person takes when they do not choose
is ``seats.choose_place`` (how a seat's bots are written, ``expert+casual``, is
``nertz.bots.parse_places``). ``Partners`` is the table's collaborator that keeps partners
out of each other's way: a partner picks up a card and lets go of it, everyone sees the
hold, and a hold lapses. A bot whose partner's hold or company changed looks again: that
is the bots' (``bots.Bots.replan_partner``).
"""

from __future__ import annotations

from nertz.engine import (
    Card,
    Hand,
    Refusal,
    parse_source,
    source_name,
    source_text,
)
from nertz.server.protocol import HoldMsg, Pick, encode
from nertz.server.table.commands import Stage
from nertz.server.table.context import Place, TableContext

__all__ = ["HOLD_LAPSE_MS", "Partners"]

HOLD_LAPSE_MS = 5000
"""R40 (online): a partner's hold on a card lapses after this long without a play (a
hand resting on a card does not keep it from the partner for ever). A timer of the
table, like every other: ``next_deadline`` includes it and the actor's ``Wake`` fires it."""


def top(hand: Hand | None, seat: int, src: int) -> Card | None:
    """The face-up card a partner picks up at ``src``: the Nertz or waste top, or a
    work pile's end card (R14); None if there is none."""
    return None if hand is None else hand.top(seat, src)


class Partners:
    """The table's holds (R40), kept in the table's ``holds`` (``TableContext``)."""

    def __init__(self, ctx: TableContext) -> None:
        self.ctx = ctx

    def pick(self, place: Place, message: Pick, now: int, conn: int) -> bool:
        """A partner picked up a card: refused while the other partner holds it. True
        when the hold is taken (the partner's bot may look again)."""
        ctx = self.ctx
        seq = message.seq
        src = parse_source(message.src)
        if src is None:
            ctx.error(conn, "bad_field", f"src must be N, W or 1-4, not {message.src!r}", seq)
            return False
        hand = ctx.hand
        if hand is None or ctx.stage is not Stage.PLAYING or hand.over:
            code, reason = (
                ("not_started", "wait for Go (R8)")
                if ctx.stage in (Stage.SEATING, Stage.COUNTDOWN)
                else ("hand_over", "the hand is over (R28)")
            )
            ctx.refuse(conn, seq, code, reason)
            return False
        card = top(hand, place.number, src)
        if card is None:
            where = source_name(src)
            reason = f"your {where} is empty: there is no card to pick up (R14)"
            ctx.refuse(conn, seq, Refusal.NOT_AVAILABLE.value, reason)
            return False
        outcome = ctx.holds.pick(place.number, place.partner, src, card)
        if not outcome.ok:
            code = outcome.code.value if outcome.code else "refused"
            ctx.refuse(conn, seq, code, outcome.reason)
            return False
        place.hold_until = now + HOLD_LAPSE_MS
        self.send_hold(place)
        return True

    def let_go(self, place: Place) -> None:
        """``place`` puts down what it held (played, let go, left, or lapsed: the
        ``LAPSE`` timer at ``place.hold_until``)."""
        place.hold_until = None
        if self.ctx.per_seat > 1 and self.ctx.holds.drop(place.number, place.partner):
            self.send_hold(place)

    def _hold_message(self, place: Place) -> bytes:
        holds = self.ctx.holds
        src = holds.held(place.number)[place.partner]
        card = holds.card(place.number, place.partner)
        return encode(
            HoldMsg(
                place.number,
                place.partner,
                None if src is None else source_text(src),
                None if card is None else str(card),
            )
        )

    def send_hold(self, place: Place) -> None:
        """Everyone sees where a partner is acting (R40): a face-up card, or nothing."""
        self.ctx.to_everyone(self._hold_message(place))

    def resend(self, conn: int) -> None:
        """A page that resumed from its last version missed the holds taken while it was
        away (they carry no version): it is told every hold standing now (R40)."""
        ctx = self.ctx
        if ctx.per_seat == 1:
            return
        for place in ctx.places:
            if ctx.holds.held(place.number)[place.partner] is not None:
                ctx.send(conn, self._hold_message(place))

    def clear(self) -> None:
        """Every hand empties: a new deal (R33) or a rotation (R25) changes what lies
        under them."""
        if self.ctx.per_seat == 1:
            return
        for place in self.ctx.places:
            self.let_go(place)
