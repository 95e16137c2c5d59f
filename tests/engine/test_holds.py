"""R40: two hands over one tableau. ``Holds`` keeps which card each partner of a seat
has picked up, so the other partner's moves that would take or cover it are refused
with ``partner_holds`` and a sentence naming the card; the engine never sees them."""

from __future__ import annotations

from nertz.engine import NERTZ, WASTE, Card, Holds, Move, Refusal, picked_up, touches

SEVEN = Card.parse("7H")


def test_r40_a_card_one_partner_picked_up_is_refused_to_the_other() -> None:
    holds = Holds(seats=2)
    assert holds.pick(0, 0, NERTZ, SEVEN).ok
    refused = holds.pick(0, 1, NERTZ)
    assert refused.code is Refusal.PARTNER_HOLDS
    assert "7 of hearts" in refused.reason and "Nertz pile" in refused.reason
    assert "R40" in refused.reason
    check = holds.check(0, 1, Move.parse("N>F"))
    assert check.code is Refusal.PARTNER_HOLDS
    assert holds.held(0) == (NERTZ, None)


def test_r40_the_holder_itself_may_play_it_and_other_seats_are_not_touched() -> None:
    holds = Holds(seats=2)
    holds.pick(0, 0, NERTZ)
    assert holds.check(0, 0, Move.parse("N>F")).ok
    assert holds.check(1, 1, Move.parse("N>F")).ok  # seat 1 is another layout (R11)
    assert holds.pick(1, 1, NERTZ).ok


def test_r40_a_held_pile_may_not_be_covered_either() -> None:
    """Putting a card on the pile a partner is lifting, or sliding one under it (R19),
    would change what is in their hand: refused like taking it."""
    holds = Holds(seats=1)
    holds.pick(0, 1, 2)
    assert holds.check(0, 0, Move.parse("N>3")).code is Refusal.PARTNER_HOLDS
    assert holds.check(0, 0, Move.parse("W<3")).code is Refusal.PARTNER_HOLDS
    assert holds.check(0, 0, Move.parse("1/2>3")).code is Refusal.PARTNER_HOLDS
    assert holds.check(0, 0, Move.parse("N>2")).ok
    assert holds.check(0, 0, Move.parse("NERTZ")).ok  # a call touches no card (R27)
    assert holds.check(0, 0, Move.parse("STUCK")).ok


def test_r40_turning_the_stock_covers_a_held_waste_card() -> None:
    holds = Holds(seats=1)
    holds.pick(0, 0, WASTE)
    assert holds.check(0, 1, Move.parse("T")).code is Refusal.PARTNER_HOLDS  # R21
    assert touches(Move.parse("T")) == {WASTE}


def test_r40_each_partner_holds_one_thing_at_a_time_and_lets_go() -> None:
    holds = Holds(seats=1)
    holds.pick(0, 0, 1)
    holds.pick(0, 0, NERTZ)  # picking up another card puts the first down
    assert holds.pick(0, 1, 1).ok
    assert holds.drop(0, 0) is True
    assert holds.drop(0, 0) is False
    assert holds.pick(0, 1, NERTZ).ok
    holds.clear()
    assert holds.held(0) == (None, None)


def test_r40_bad_partner_or_source_is_a_refusal_not_an_exception() -> None:
    holds = Holds(seats=1)
    assert holds.pick(0, 2, NERTZ).code is Refusal.NO_SUCH_SEAT
    assert holds.pick(0, 0, 9).code is Refusal.NOT_AVAILABLE


def test_r40_what_a_hand_holds_while_its_move_is_on_its_way() -> None:
    assert picked_up(Move.parse("3/2>1")) == 2
    assert picked_up(Move.parse("W>F")) == WASTE
    assert picked_up(Move.parse("T")) == WASTE
    assert picked_up(Move.parse("NERTZ")) is None
