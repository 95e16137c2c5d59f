"""The guided first hand (``/learn``): an explicit deal and its steps, one gesture each.

A lesson is data, not rules: the deal (``Deal.from_layouts`` text, the learner at seat
0 and a teacher at seat 1), and for each step what to say, where to look and which
move of the learner's carries it on. The table (``practice.Practice``) plays the
lesson on a real hand: every move still goes to the engine, so a refusal is the
engine's own (code and sentence); a move the rules allow but the step is not about is
refused by the lesson, with the step's own hint. The teacher seat's moves are part of
the script (its bot waits until the lesson hand is over), and so are the hand's
timers: no idle rotation or look at a blocked table (R25) interrupts a step; only the
learner's call (R27) lets the landing window run out (R28).

After the lesson hand the same table deals an unscored practice hand, at a slow pace,
against the teacher's bot (``FIRST_HAND.after``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nertz.engine import ANY, Deal, Kind, Move

__all__ = ["FIRST_HAND", "LESSONS", "Lesson", "Step", "fits"]


@dataclass(frozen=True, slots=True)
class Step:
    """One step: ``text`` to read, ``look`` the places to highlight (the client's
    names: ``N``, ``W``, ``S`` the stock, ``1``-``4``, ``F`` the middle, ``F2``, ``stuck``,
    ``nertz``), ``expect`` the learner's moves that carry the lesson on (the notation;
    ``N>F`` stands for any foundation), ``teacher`` the moves the teacher seat makes
    once the learner's move is in (before the next step), and ``hint``, said after a
    wrong move with the engine's reason."""

    id: str
    title: str
    text: str
    look: tuple[str, ...]
    expect: tuple[str, ...]
    hint: str
    teacher: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "text": self.text,
            "look": list(self.look),
            "expect": list(self.expect),
            "hint": self.hint,
        }


@dataclass(frozen=True, slots=True)
class Lesson:
    """A scripted hand: ``layouts`` (learner first), ``steps`` in order, ``before`` the
    teacher's moves at Go, and ``after``, what the practice hands that follow are."""

    name: str
    layouts: tuple[str, str]
    steps: tuple[Step, ...]
    after: str
    before: tuple[str, ...] = ()

    def deal(self) -> Deal:
        return Deal.from_layouts(self.layouts)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "steps": [s.as_dict() for s in self.steps],
            "after": self.after,
        }


def fits(expected: str, move: Move) -> bool:
    """Does ``move`` carry out ``expected`` (a move in the notation, where a foundation
    move without a number, ``N>F``, stands for any foundation)?"""
    want = Move.parse(expected)
    if want.kind is not move.kind or want.src != move.src or want.count != move.count:
        return False
    return want.dst == move.dst or (want.kind is Kind.FOUNDATION and want.dst == ANY)


FIRST_HAND = Lesson(
    name="first-hand",
    layouts=(
        "nertz: 5H 10H 2C 7D 2H AH; work: 8S / KD / 6C 5D / QD; "
        "stock: 2D 4H 8D 3H 3D 10D; waste: -",
        "nertz: 9S 4D AC; work: KH / QS / JH / 10S; stock: 3D 5D 9H 2S 7S; waste: -",
    ),
    steps=(
        Step(
            "nertz",
            "Your Nertz pile",
            "This pile with the face-up card is your Nertz pile: empty it and you may call "
            "Nertz. Its top card is the ace of hearts, and every ace starts a pile in the "
            "middle. Drag the ace to the middle (or tap it, then tap the middle; keys: 0 "
            "then F).",
            ("N", "F"),
            ("N>F",),
            "Take the ace from the top of your Nertz pile and put it in the middle.",
        ),
        Step(
            "build",
            "Up by suit",
            "The next Nertz card turned up: the 2 of hearts. The middle builds up by suit, "
            "ace, 2, 3 ... to king. Put the 2 of hearts on your ace of hearts.",
            ("N", "F1"),
            ("N>F",),
            "The 2 of hearts goes on the ace of hearts in the middle.",
        ),
        Step(
            "down",
            "Down, other colour",
            "Your work piles go the other way: down by one, red on black, black on red. "
            "Your Nertz card is now the red 7 of diamonds: put it on the black 8 of "
            "spades, work pile 1.",
            ("N", "1"),
            ("N>1",),
            "A red 7 goes on a black 8: work pile 1 has the 8 of spades.",
            teacher=("N>F",),
        ),
        Step(
            "anyone",
            "Anyone's pile is yours too",
            "Ben has just put the ace of clubs in the middle. Every pile in the middle is "
            "everyone's: his ace of clubs takes your 2 of clubs, the next Nertz card. "
            "Play it there.",
            ("N", "F2"),
            ("N>F",),
            "Your 2 of clubs goes up on Ben's ace of clubs.",
        ),
        Step(
            "run",
            "Moving a run",
            "A card on a work pile moves with the cards on top of it. Work pile 3 has the "
            "6 of clubs with the 5 of diamonds on it: move the 6, and the 5 comes along, "
            "onto the red 7 on pile 1 (key: 3 twice, then 1).",
            ("3", "1"),
            ("3/2>1",),
            "Move the 6 of clubs (with the 5 of diamonds on it) onto the red 7 on pile 1.",
        ),
        Step(
            "space",
            "An empty space",
            "Work pile 3 is empty now. An empty space takes any card, not only a king. "
            "Put your Nertz card, the 10 of hearts, there.",
            ("N", "3"),
            ("N>3",),
            "Put the 10 of hearts from your Nertz pile into the empty space, pile 3.",
        ),
        Step(
            "stock",
            "Three from the stock",
            "When you need more cards, turn your stock: three cards go onto the waste "
            "and the third lands on top. Turn it now (tap the stock, or press Space).",
            ("S",),
            ("T",),
            "Turn the stock: tap it, or press Space.",
        ),
        Step(
            "waste",
            "Only the top card plays",
            "Only the waste's top card is in play; the two under it wait until it has "
            "gone. The top one is the 3 of hearts: put it on your hearts in the middle.",
            ("W", "F1"),
            ("W>F",),
            "The waste's top card, the 3 of hearts, goes on the 2 of hearts.",
        ),
        Step(
            "stuck",
            "Stuck",
            "Your Nertz card, the 5 of hearts, needs the 4, and turning the stock round "
            "and round never brings the 4 to the top: you are stuck. Say so: press Stuck "
            "(key S). When everyone is stuck, the table rotates.",
            ("stuck",),
            ("STUCK",),
            "Nothing you have can move: press Stuck.",
            teacher=("STUCK",),
        ),
        Step(
            "rotated",
            "The rotation",
            "Ben was stuck too, so the table rotated: every stock was turned over and its "
            "top card moved to the bottom, so new cards come up in threes. Turn your "
            "stock again.",
            ("S",),
            ("T",),
            "Turn the stock: tap it, or press Space.",
        ),
        Step(
            "four",
            "There it is",
            "The 4 of hearts is on top of the waste now. Put it on the 3 of hearts.",
            ("W", "F1"),
            ("W>F",),
            "The 4 of hearts goes on the 3 of hearts in the middle.",
        ),
        Step(
            "last",
            "Your last Nertz card",
            "Now the 5 of hearts from your Nertz pile can follow it. That is your last Nertz card.",
            ("N", "F1"),
            ("N>F",),
            "The 5 of hearts goes on the 4 of hearts.",
        ),
        Step(
            "call",
            "Nertz!",
            "Your Nertz pile is empty: call Nertz! Press the Nertz button (key N). The "
            "hand stops for everyone.",
            ("nertz",),
            ("NERTZ",),
            "Your Nertz pile is empty: press Nertz!",
        ),
        Step(
            "score",
            "The score",
            "Each of your cards in the middle scores +1 and each card left in your Nertz "
            "pile costs 2; cards on your work piles, stock and waste count nothing. The "
            "caller may get a bonus. Ben still has two Nertz cards, so his hand scores "
            "less than his card in the middle. When you are ready, a practice hand "
            "follows.",
            (),
            (),
            'The hand is over: press "Deal the practice hand" when you are ready.',
        ),
    ),
    after=(
        "A practice hand against Ben, slowly: it does not count anywhere. Pause "
        "whenever you like; if you wait a few seconds (or press H) the best move glows."
    ),
)

LESSONS: dict[str, Lesson] = {FIRST_HAND.name: FIRST_HAND}
"""Every lesson by name (``Settings.lesson``)."""

# Checked once at import: a lesson whose deal or moves do not parse is a bug.
for _lesson in LESSONS.values():
    _lesson.deal()
    for _step in _lesson.steps:
        for _text in _step.expect + _step.teacher:
            Move.parse(_text)
