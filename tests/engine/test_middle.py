"""The middle (``Middle``): what each place wants after every card, its races, and the
jokers announced for it (R12-R16, R41), through the interface ``Hand`` uses; and the
answers a hand keeps about the middle, refreshed after a play and after a copy (R24)."""

from __future__ import annotations

from nertz.engine import ANY, Announcement, Card, Foundation, Middle, Move, Outcome, Refusal, Rules

from .helpers import make_hand, play

WINDOW = 40
"""R16 (online): the default ``tie_window_ms``."""
HEARTS_TO_6 = "AH@1 2H@1 3H@1 4H@1 5H@1 6H@1"


def card(text: str) -> Card:
    """A card with its owner: ``7H@2``."""
    name, _, owner = text.partition("@")
    return Card.parse(name, owner=int(owner or 0))


def dealt(*piles: str) -> Middle:
    return Middle.dealt([card(t) for t in pile.split()] for pile in piles)


def takers(middle: Middle, text: str) -> list[str]:
    """The foundations that take ``text`` next, oldest first, as ``F1``, ``F2`` ..."""
    return [f"F{f.number + 1}" for f in middle.wants.get(card(text).key, [])]


def texts(middle: Middle) -> list[str]:
    return [" ".join(f.texts()) for f in middle.foundations]


def laid(middle: Middle, text: str, number: int = ANY, at_ms: int = 0) -> tuple[str, bool]:
    """Send a real card to foundation ``number``; return where it went and if it tied."""
    result = middle.receive(card(text), number, at_ms, WINDOW)
    assert not isinstance(result, Outcome), result.reason
    foundation, tie = result
    return f"F{foundation.number + 1}", tie


def refused(middle: Middle, text: str, number: int = ANY, at_ms: int = 0) -> Refusal:
    """Send a card the middle must refuse; check that nothing changed."""
    before, wants = texts(middle), {k: [f.number for f in v] for k, v in middle.wants.items()}
    result = middle.receive(card(text), number, at_ms, WINDOW)
    assert isinstance(result, Outcome) and not result.ok and result.code is not None
    assert result.reason
    assert texts(middle) == before
    assert {k: [f.number for f in v] for k, v in middle.wants.items()} == wants
    return result.code


def announced(middle: Middle, seat: int, text: str, until_ms: int = 1500) -> Announcement:
    """Announce the joker ``JK1`` of ``seat`` by the move ``text``, e.g. ``N>F=7H``."""
    made = middle.announce(seat, Move.parse(text), Card.joker(1, seat), until_ms)
    assert isinstance(made, Announcement), made
    return made


# ---------------------------------------------------------------- what each place wants


def test_an_ace_starts_a_foundation_that_then_wants_its_two_r12_r13() -> None:
    middle = Middle()
    assert middle.foundations == [] and middle.wants == {}  # R7: the middle starts empty
    assert laid(middle, "AH@0") == ("F1", False)
    assert takers(middle, "2H") == ["F1"] and takers(middle, "3H") == []
    assert laid(middle, "2H@1") == ("F1", False)  # anyone builds on any foundation (R13)
    assert takers(middle, "2H") == [] and takers(middle, "3H") == ["F1"]
    assert texts(middle) == ["AH@0 2H@1"]


def test_any_foundation_means_the_oldest_that_takes_the_card_r12_r13() -> None:
    # F2 wanted the 3H first; once F1 catches up, the oldest (F1) is asked first.
    middle = dealt("AH@0", "AH@1 2H@1")
    assert takers(middle, "2H") == ["F1"] and takers(middle, "3H") == ["F2"]
    assert laid(middle, "2H@0") == ("F1", False)
    assert takers(middle, "3H") == ["F1", "F2"]
    assert laid(middle, "3H@2") == ("F1", False)
    assert takers(middle, "3H") == ["F2"] and takers(middle, "4H") == ["F1"]
    assert laid(middle, "3H@3", 1) == ("F2", False)  # or named: F2
    assert takers(middle, "4H") == ["F1", "F2"]


def test_a_king_finishes_a_foundation_that_wants_nothing_more_r15() -> None:
    middle = dealt("AS@0 2S@0 3S@0 4S@0 5S@0 6S@0 7S@0 8S@0 9S@0 10S@0 JS@0 QS@0")
    assert takers(middle, "KS") == ["F1"]
    assert laid(middle, "KS@1") == ("F1", False)
    assert middle.foundations[0].finished and middle.wants == {}
    assert refused(middle, "KS@2", at_ms=1000) is Refusal.BEATEN  # taken first (R16)


def test_refused_cards_change_nothing_r12_r13() -> None:
    middle = dealt("AH@0")
    assert refused(middle, "5H") is Refusal.DOES_NOT_FIT  # R13: F1 wants the 2H
    assert refused(middle, "2S") is Refusal.DOES_NOT_FIT
    assert refused(middle, "2H", 3) is Refusal.NO_SUCH_FOUNDATION
    assert refused(middle, "AD", 0) is Refusal.DOES_NOT_FIT  # R12: an ace starts its own


# ---------------------------------------------------------------- races (R16)


def test_the_same_rank_within_the_tie_window_is_a_true_tie_later_it_is_beaten_r16() -> None:
    middle = dealt("AH@0")
    assert laid(middle, "2H@0", at_ms=100) == ("F1", False)
    assert laid(middle, "2H@1", at_ms=100 + WINDOW) == ("F1", True)  # both stay
    assert texts(middle) == ["AH@0 2H@0 2H@1"]
    assert takers(middle, "3H") == ["F1"]  # the next card continues from that rank
    assert refused(middle, "2H@2", at_ms=101 + WINDOW) is Refusal.BEATEN
    assert refused(middle, "2H@2", 0, at_ms=101 + WINDOW) is Refusal.BEATEN


# ---------------------------------------------------------------- jokers (R41)


def test_an_announced_joker_lands_as_its_card_when_the_window_ends_r41() -> None:
    middle = dealt(HEARTS_TO_6)
    made = announced(middle, 0, "N>F=7H", until_ms=1500)
    assert made.move.text == "N>F1=7H" and made.foundation == 0  # the place is named
    assert middle.announcements == [made]
    assert takers(middle, "7H") == ["F1"]  # still free until the joker lands
    assert middle.due(1499) == [] and middle.due(1500) == [made]
    assert middle.announcements == []
    assert middle.stays_home(made, Card.joker(1, 0)) is None
    assert middle.land(made, 1500, WINDOW).number == 0
    assert texts(middle) == [HEARTS_TO_6 + " JK1@0=7H"]
    assert takers(middle, "7H") == [] and takers(middle, "8H") == ["F1"]
    # The real 7H had the whole window: arriving now it is beaten, not a tie (R16).
    assert refused(middle, "7H@1", at_ms=1501) is Refusal.BEATEN


def test_one_place_one_announcement_and_the_real_card_first_sends_the_joker_home_r41() -> None:
    middle = dealt(HEARTS_TO_6)
    made = announced(middle, 0, "N>F1=7H")
    second = middle.announce(1, Move.parse("W>F=7H"), Card.joker(2, 1), 1600)
    assert isinstance(second, Outcome) and second.code is Refusal.BEATEN
    again = middle.announce(0, Move.parse("N>F=7H"), Card.joker(1, 0), 1600)
    assert isinstance(again, Outcome) and again.code is Refusal.JOKER_ANNOUNCED
    assert middle.announcements == [made]
    assert laid(middle, "7H@1", at_ms=900) == ("F1", False)  # the real card, first
    (ended,) = middle.due(1500)
    reason = middle.stays_home(ended, Card.joker(1, 0))
    assert reason == "the 7 of hearts reached F1 first (R41)"
    assert middle.stays_home(ended, card("3S")) == (
        "the joker left its pile before its announcement ended (R41)"
    )


def test_a_joker_announced_as_an_ace_starts_a_new_foundation_r12_r41() -> None:
    middle = Middle()
    made = announced(middle, 2, "N>F=AS", until_ms=10)
    assert made.foundation == -1
    (ended,) = middle.due(10)
    assert middle.land(ended, 10, WINDOW).number == 0
    assert texts(middle) == ["JK1@2=AS"] and takers(middle, "2S") == ["F1"]


# ---------------------------------------------------------------- copies


def test_a_copy_of_the_middle_is_its_own_r13_r41() -> None:
    middle = dealt("AH@0")
    twin = middle.copy()
    assert laid(twin, "2H@1") == ("F1", False)
    assert takers(twin, "3H") == ["F1"] and takers(middle, "2H") == ["F1"]
    assert texts(middle) == ["AH@0"] and texts(twin) == ["AH@0 2H@1"]
    made = announced(middle, 0, "N>F=AD")
    assert twin.copy().announcements == [] and middle.copy().announcements == [made]
    assert isinstance(middle.foundations[0], Foundation)


# ---------------------------------------------------------------- what a hand keeps


STUCK_SEAT = "nertz: 2H QD; work: 5H / 9C / 7D / 2S; stock: 3S 8S 2C KC"
"""Nothing here fits anything until a foundation wants the 2S (R24)."""


def test_a_hands_blocked_answers_follow_its_own_middle_after_a_copy_r24() -> None:
    hand = make_hand(STUCK_SEAT, "nertz: AS; work: -")
    assert hand.is_blocked(0)
    twin = hand.copy()
    assert twin.is_blocked(0)
    assert play(twin, 1, "N>F", 10).ok  # the ace of spades, on the copy only
    assert not twin.is_blocked(0)  # its 2S can follow the ace
    assert hand.is_blocked(0) and hand.foundations == []
    assert play(hand, 1, "N>F", 20).ok
    assert not hand.is_blocked(0)


def test_a_landed_joker_unblocks_a_seat_whose_card_now_fits_r24_r41() -> None:
    hand = make_hand(STUCK_SEAT, "nertz: JK1; work: -", rules=Rules(jokers=True))
    assert hand.is_blocked(0)
    assert play(hand, 1, "N>F=AS", 0).ok
    assert hand.is_blocked(0)  # announced, not yet in the middle
    hand.tick(1500)  # the window ends: the joker lands as the ace of spades
    assert not hand.is_blocked(0)
