"""The deal (R1, R2, R4-R7, R33) and hands built from explicit layouts."""

import pytest

from nertz.engine import Card, Deal, Hand, Rules, deal, full_deck

from .helpers import make_hand


@pytest.mark.parametrize("seats", [1, 2, 4, 8])
def test_each_seat_is_dealt_its_own_whole_deck_r1_r4_r5_r6(seats: int) -> None:
    """R1, R4-R6: 13 to the Nertz pile, one card to each of four work piles, 35 in stock."""
    hand = Hand(deal(seats, Rules(), seed=11))
    assert len(hand.seats) == seats
    for owner, layout in enumerate(hand.seats):
        assert len(layout.nertz) == 13
        assert [len(p) for p in layout.work] == [1, 1, 1, 1]
        assert len(layout.stock) == 35 and layout.waste == []
        assert sorted(layout.cards(), key=lambda c: c.key) == sorted(
            full_deck(owner), key=lambda c: c.key
        )


def test_middle_starts_empty_r7() -> None:
    hand = Hand(deal(4, Rules(), seed=1))
    assert hand.foundations == [] and hand.middle == [0, 0, 0, 0]


@pytest.mark.parametrize("size", [12, 11])
def test_shorter_nertz_piles(size: int) -> None:
    """Option nertz_pile: the cards left over go to the stock."""
    hand = Hand(deal(3, Rules(nertz_pile=size), seed=2))
    assert all(len(s.nertz) == size and len(s.stock) == 48 - size for s in hand.seats)


def test_seats_out_of_range_are_refused_r2() -> None:
    """R2: 2 to 8 seats, or one seat alone to practise."""
    for bad in (0, 9):
        with pytest.raises(ValueError, match="1 to 8 seats"):
            deal(bad, Rules(), seed=1)


def test_same_seed_same_deal_and_a_seat_does_not_depend_on_table_size() -> None:
    assert deal(4, Rules(), 5) == deal(4, Rules(), 5)
    assert deal(4, Rules(), 5) != deal(4, Rules(), 6)
    assert deal(2, Rules(), 5).layouts == deal(4, Rules(), 5).layouts[:2]


def test_each_hand_every_seat_gets_its_own_52_back_r33() -> None:
    """R33: between hands each seat gets exactly its own cards back and deals again."""
    first = Hand(deal(4, Rules(), seed=1))
    second = Hand(deal(4, Rules(), seed=2))
    for a, b in zip(first.seats, second.seats):
        assert set(a.cards()) == set(b.cards()) == set(full_deck(a.owner))
        assert a.to_text() != b.to_text()


def test_layout_text_round_trips() -> None:
    d = deal(2, Rules(), seed=3)
    again = Deal.from_layouts(d.layouts)
    assert [s.to_text() for s in Hand(again).seats] == list(d.layouts)


def test_explicit_layouts_and_middle() -> None:
    hand = make_hand(
        "nertz: 4D 9C KH; work: KS QH / 7D / - / 2C; stock: 3H 4H; waste: 5S",
        "nertz: 2H; work: -",
        middle=["AH@1 2H@0"],
    )
    me = hand.seats[0]
    assert me.nertz[-1] is Card.parse("KH@0")
    assert [len(p) for p in me.work] == [2, 1, 0, 1]
    assert me.stock[-1] is Card.parse("4H@0") and me.waste[-1] is Card.parse("5S@0")
    assert hand.middle == [1, 1]
    assert hand.foundations[0].top_rank == 2


@pytest.mark.parametrize(
    ("layouts", "middle", "message"),
    [
        (["nertz: QH; work: 5H 4D"], [], "work pile 1: 4D cannot lie on 5H"),
        (["nertz: QH QH"], [], "seat 1 has QH twice"),
        (["nertz: QH; pile: 2C"], [], "bad layout part 'pile: 2C'"),
        (["work: 1 / 2 / 3 / 4 / 5"], [], "not a card: '1'"),
        (["work: - / - / - / - / -"], [], "4 work piles, not 5"),
        (["nertz: QH"], ["2H@0"], "must start with an ace"),
        (["nertz: 2H"], ["AH@0 3H@0"], "3H cannot follow AH"),
        (["nertz: QH"], ["AH@0 2H@0", "AD@0 2H@0"], "2H cannot follow AD"),
        (["nertz: QH"], ["AH@3"], "AH@3: no seat 3"),
        (["nertz: QH"], ["AH@0", "AH@0"], "AH@0 is both in the middle and elsewhere"),
    ],
)
def test_bad_explicit_layouts_are_refused_naming_the_fault(
    layouts: list[str], middle: list[str], message: str
) -> None:
    with pytest.raises(ValueError) as error:
        Deal.from_layouts(layouts, middle)
    assert message in str(error.value)
