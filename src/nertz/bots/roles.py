"""Partners' roles (R40): how two hands over one tableau split the work.

"Usually one turns the stock while the other watches the Nertz pile" (R40). A bot at a
partnership seat plays one role:

* ``nertz``: the Nertz card (to the middle, onto the work piles, into a space), the
  work piles (to the middle, rearranged to free a space), and the call (R27);
* ``stock``: turning the stock (R21-R23), the waste card (to the middle, onto the work
  piles), the work piles' end cards to the middle, and saying stuck (R25).

Both may send a work pile's end card to the middle. Neither takes, covers or turns
onto what its partner holds (``Holds``, ``touches``).

Who plays which (``role_for``): beside a person, the bot turns the stock and feeds the
middle while the person watches the Nertz pile; two bots split the same way, partner 0
on the Nertz pile.
"""

from __future__ import annotations

from nertz.engine import NERTZ, WASTE, Kind, Move, touches

__all__ = ["NERTZ_ROLE", "ROLES", "STOCK_ROLE", "allowed", "role_for"]

NERTZ_ROLE = "nertz"
STOCK_ROLE = "stock"
ROLES = (NERTZ_ROLE, STOCK_ROLE)


def allowed(move: Move, role: str | None, avoid: frozenset[int]) -> bool:
    """May a partner in ``role`` make ``move`` while its partner holds ``avoid``?"""
    if avoid and not avoid.isdisjoint(touches(move)):
        return False
    kind = move.kind
    if role == NERTZ_ROLE:
        if kind is Kind.TURN or kind is Kind.STUCK:
            return False
        return kind is Kind.CALL or move.src != WASTE
    if role == STOCK_ROLE:
        if kind is Kind.CALL:
            return False
        return kind is Kind.TURN or kind is Kind.STUCK or move.src != NERTZ
    return True


def role_for(partner: int | None, beside_person: bool = False) -> str | None:
    """The role of a bot at place ``partner`` of its seat (R40): None at a seat of its
    own (``partner`` None); ``stock`` beside a person (``beside_person``), who watches
    the Nertz pile; else ``nertz`` for partner 0 and ``stock`` for partner 1."""
    if partner is None:
        return None
    if beside_person:
        return STOCK_ROLE
    return NERTZ_ROLE if partner == 0 else STOCK_ROLE
