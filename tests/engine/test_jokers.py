"""Jokers (R41): what ``play`` accepts agrees with ``legal_moves``, and a joker that
arrives too late for the middle loses the race like any card (R16)."""

from nertz.engine import Rules

from .helpers import make_hand, play, refused_unchanged

JOKERS = Rules(jokers=True)


def test_a_pinned_joker_moves_only_where_its_pin_fits_r41() -> None:
    """R41, R17: the 5S pins the joker as a red 6; the run it heads may go on a black 7,
    never on the ace of hearts, whose rank is one above the joker's 0."""
    hand = make_hand("nertz: 9C; work: JK1 5S / AH / 7C / 3C; stock: 5H", "nertz: 4D", rules=JOKERS)
    assert "1/2>2" not in [str(m) for m in hand.legal_moves(0)]
    reason = refused_unchanged(hand, 0, "1/2>2", "does_not_fit")
    assert "red 6" in reason
    assert play(hand, 0, "1/2>3").ok


def test_only_what_a_pinned_head_stands_for_slides_under_it_r41() -> None:
    """R41, R19: the head joker stands for a red 6 (the 5S lies on it), so the ace of
    hearts may not slide under it; a black 7 may."""
    hand = make_hand(
        "nertz: 7C; work: JK1 5S / - / KH / 3C; stock: 5H; waste: AH", "nertz: 4D", rules=JOKERS
    )
    assert "W<1" not in [str(m) for m in hand.legal_moves(0)]
    assert "red 6" in refused_unchanged(hand, 0, "W<1", "does_not_fit")
    assert play(hand, 0, "N<1").ok


def test_an_announcement_after_the_real_card_landed_is_beaten_r41_r16() -> None:
    """R41, R16: seat 1's 2H reaches F1 first; seat 0's joker announced as the 2H
    arrives after it. That is a lost race (``beaten``), not a misplay, for F1 and for
    "any foundation" alike."""
    hand = make_hand(
        "nertz: 9C; work: 7C; stock: 5H; waste: JK1",
        "nertz: 4D 2H; work: 2S",
        middle=["AH@1"],
        rules=JOKERS,
    )
    assert play(hand, 1, "N>F", 5).ok
    for text in ("W>F1=2H", "W>F=2H"):
        assert "F1 already has the 2 of hearts" in refused_unchanged(hand, 0, text, "beaten", 10)
    refused_unchanged(hand, 0, "W>F=3S", "does_not_fit", 10)  # never there: a misplay


def test_a_pile_longer_than_thirteen_moves_as_one_run_r41() -> None:
    """R41, R18: anything lies on a joker, so a king may start again on the joker that
    lies on an ace: here a work pile of 16 cards, every run of which can move into the
    empty space, in play and in notation."""
    pile = "KS QH JS 10H 9S 8H 7S 6H 5S 4H 3S 2H AS JK1"
    hand = make_hand(f"nertz: 9C QC KD; work: {pile} / - / 5D / 3C", "nertz: 4D", rules=JOKERS)
    assert play(hand, 0, "N>1").ok and play(hand, 0, "N>1").ok
    assert {"1/16>2", "1/3>2"} <= {str(m) for m in hand.legal_moves(0)}
    assert play(hand, 0, "1/16>2").ok
    assert hand.seats[0].to_text().startswith(f"nertz: 9C; work: - / {pile} KD QC /")
