"""Helpers for engine tests: hands built from explicit layouts."""

from __future__ import annotations

from collections.abc import Sequence

from nertz.engine import Deal, Hand, Move, Outcome, Rules


def make_hand(
    *layouts: str, middle: Sequence[str] = (), rules: Rules | None = None, go: bool = True
) -> Hand:
    """A hand from explicit layouts (one text per seat), started at 0 ms unless ``go`` is False."""
    hand = Hand(Deal.from_layouts(layouts, middle), rules or Rules())
    if go:
        hand.start(0)
    return hand


def play(hand: Hand, seat: int, text: str, at_ms: int | None = None) -> Outcome:
    """Play a move given in notation, at ``at_ms`` (default: the hand's current time)."""
    return hand.play(seat, Move.parse(text), hand.now if at_ms is None else at_ms)


def refused_unchanged(hand: Hand, seat: int, text: str, code: str, at_ms: int | None = None) -> str:
    """Assert the play is refused with ``code`` and changes nothing; return the sentence."""
    before = hand.snapshot()
    log = list(hand.log)
    outcome = play(hand, seat, text, at_ms)
    assert not outcome.ok, f"{text} was accepted"
    assert outcome.code is not None and outcome.code.value == code, str(outcome)
    assert outcome.reason, "a refusal carries a sentence"
    assert hand.snapshot() == before
    assert hand.log == log
    return outcome.reason
