"""Cards and their text forms (R1, R3)."""

import pytest

from nertz.engine import Card, Suit, full_deck


@pytest.mark.parametrize("text", ["AS", "10H", "QD", "KC", "2S", "JH"])
def test_ascii_text_round_trips(text: str) -> None:
    assert str(Card.parse(text)) == text


def test_ten_accepts_t_and_symbols() -> None:
    assert Card.parse("TH") is Card.parse("10H") is Card.parse("10♥")
    assert Card.parse("q♦").symbol == "Q♦"
    assert Card.parse("♤".join(["A", ""])) is Card.parse("AS")


def test_repr_is_code_that_builds_the_same_card() -> None:
    card = Card.parse("QH", owner=5)
    assert repr(card) == "Card.parse('QH', owner=5)"
    assert eval(repr(card)) is card


def test_every_card_knows_its_owner_r1() -> None:
    """R1: each seat's deck is its own; a card carries its owner."""
    assert Card.parse("QH@2").owner == 2
    assert Card.parse("QH", owner=3).tagged == "QH@3"
    assert Card.parse("QH@2") != Card.parse("QH@1")
    deck = full_deck(4)
    assert len(deck) == len(set(deck)) == 52
    assert {c.owner for c in deck} == {4}


def test_colours_and_ranks_r3() -> None:
    """R3: hearts and diamonds red, clubs and spades black; ace 1, king 13."""
    assert Card.parse("5H").red and Card.parse("5D").red
    assert not Card.parse("5C").red and not Card.parse("5S").red
    assert Card.parse("AS").rank == 1 and Card.parse("KS").rank == 13
    assert Card.parse("KH").name == "king of hearts"
    assert Suit.HEARTS.symbol == "♥"


@pytest.mark.parametrize("bad", ["", "X", "1", "11H", "ZH", "AX", "QH@x", "0S"])
def test_bad_text_raises_value_error_quoting_it(bad: str) -> None:
    with pytest.raises(ValueError, match=repr(bad).replace("(", r"\(")):
        Card.parse(bad)


def test_owner_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="owner"):
        Card.parse("QH", owner=8)
