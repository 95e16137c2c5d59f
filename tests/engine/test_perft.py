"""Nertz perft: legal-move counts and reachable positions, against golden numbers.

As chess engines count the positions reachable in k plies to pin move generation down,
this counts, for a few fixed positions and each seat, the legal moves (R12-R27) and how
many move sequences and distinct positions that seat reaches in k = 1, 2, 3 of its own
moves, every other seat frozen and all at one time (so no tie, R16, and no landing window
or rotation starts). A position is the seat's whole layout (fan and stuck flag included)
plus the middle.

The golden numbers are in ``tests/data/perft.json``; after an intended change to the
rules, rewrite them with ``.venv/bin/python tests/data/make_perft.py`` and review the diff.

Positions: seeds 1-4, four seats, standard rules, just after Go (R8); two of them again
after 60 greedy moves (recorded in the golden file, so the bots do not matter); and
explicit layouts: an empty work space with slide-unders (R19) and runs into the space
(R18); draw one (R21, option ``draw``); several foundations of one suit side by side (R12).

The second test is independent of the golden file: it plays every syntactically
possible move text on a copy and checks that ``play`` accepts exactly the listed moves.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nertz.engine import CardsMoved, Deal, Hand, Kind, Move, Rules, deal

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "perft.json"
DEPTHS = (1, 2, 3)
AT_MS = 1_000_000
"""The time of every perft move: far from every foundation's last card (no tie, R16)."""
GREEDY_STEP_MS = 250

POSITIONS: list[dict[str, Any]] = [
    *({"name": f"seed {seed} at Go", "seed": seed, "seats": 4} for seed in (1, 2, 3, 4)),
    *(
        {"name": f"seed {seed} after 60 greedy moves", "seed": seed, "seats": 4, "greedy": 60}
        for seed in (1, 2)
    ),
    {
        "name": "an empty work space: runs into it (R18) and slide-unders (R19)",
        "layouts": [
            "nertz: 2C 8D 10H; work: 9S 8H 7C / - / 10D 9C / QD JC; "
            "stock: KC QS 3D 7S 3H; waste: 4C 6H 2S",
            "nertz: 5D 4S; work: 6C / 7H / - / -; stock: 9H 9D; waste: -",
        ],
        "middle": ["AH@1 2H@1", "AS@1"],
    },
    {
        "name": "draw one (R21): every stock card comes to the waste's top",
        "rules": {"draw": 1},
        "layouts": [
            "nertz: 9C 5H KS; work: QH / 4C / 8D 7S / JS; stock: 2D 6S 3C AD 10H; waste: 7D 4H",
            "nertz: 6D; work: 5C / - / - / -; stock: 8C; waste: -",
        ],
        "middle": ["AH@1 2H@1 3H@1"],
    },
    {
        "name": "two foundations of one suit side by side (R12)",
        "layouts": [
            "nertz: 7C 4D; work: 5S / 9D / KC / 2D; stock: 6H 8C; waste: 3H",
            "nertz: JD 3H; work: 4C / QS / - / 10S; stock: 5D; waste: 3D",
            "nertz: 6S 2D; work: 8H / 5C / 3S / -; stock: 4H; waste: 3H",
        ],
        "middle": ["AH@0 2H@1", "AH@1 2H@2", "AD@2", "AD@0 2D@1"],
    },
]


# ---------------------------------------------------------------- building positions


def greedy(moves: list[Move]) -> Move | None:
    """Middle first (the Nertz card first), then the Nertz card, the waste, then turn."""
    order = []
    for move in moves:
        if move.kind is Kind.FOUNDATION:
            order.append((0 if move.src == 4 else 1, move))
        elif move.kind in (Kind.PILE, Kind.UNDER) and move.src >= 4:
            order.append((2 if move.src == 4 else 3, move))
        elif move.kind is Kind.TURN:
            order.append((4, move))
    return min(order, key=lambda pair: pair[0])[1] if order else None


def greedy_moves(spec: dict[str, Any]) -> list[list[Any]]:
    """The moves of ``spec["greedy"]`` greedy turns, seats in order, 250 ms apart."""
    hand = new_hand(spec)
    played: list[list[Any]] = []
    for step in range(spec.get("greedy", 0)):
        seat, at_ms = step % spec["seats"], (step + 1) * GREEDY_STEP_MS
        move = greedy(hand.legal_moves(seat))
        if move is not None:
            assert hand.play(seat, move, at_ms).ok
            played.append([at_ms, seat, move.text])
    return played


def new_hand(spec: dict[str, Any]) -> Hand:
    """The position of ``spec`` just after Go (R8)."""
    rules = Rules().with_options(**spec.get("rules", {}))
    if "seed" in spec:
        dealt = deal(spec["seats"], rules, spec["seed"])
    else:
        dealt = Deal.from_layouts(spec["layouts"], spec.get("middle", ()))
    hand = Hand(dealt, rules)
    assert hand.start(0).ok
    return hand


def build(spec: dict[str, Any], moves: list[list[Any]]) -> Hand:
    """The position of ``spec`` after the recorded ``moves``."""
    hand = new_hand(spec)
    for at_ms, seat, text in moves:
        outcome = hand.play(seat, Move.parse(text), at_ms)
        assert outcome.ok, f"{spec['name']}: recorded move {text} of seat {seat}: {outcome}"
    return hand


# ---------------------------------------------------------------- counting


def position(hand: Hand, seat: int) -> str:
    """What identifies a position for one seat: its layout (with the waste's fan and the
    stuck flag, as in ``Hand.snapshot``), the phase, and the middle, owners included."""
    layout = hand.seats[seat]
    middle = " | ".join(" ".join(c.tagged for c in f.cards) for f in hand.foundations)
    seat_text = f"{layout.to_text()}; fan {layout.fan}; stuck {layout.stuck}"
    return f"{hand.phase.value}; {seat_text}; {middle}"


def perft(hand: Hand, seat: int, depth: int) -> list[list[int]]:
    """``[paths, positions]`` for k = 1 .. depth: the number of sequences of k legal moves
    of ``seat``, and of distinct positions they reach. Positions are merged level by level
    (a position's future does not depend on how it was reached), counting paths through
    each."""
    level: dict[str, tuple[Hand, int]] = {position(hand, seat): (hand, 1)}
    counts = []
    for _ in range(depth):
        below: dict[str, tuple[Hand, int]] = {}
        for node, paths in level.values():
            for move in node.legal_moves(seat):
                child = node.copy()
                outcome = child.play(seat, move, AT_MS)
                assert outcome.ok, f"seat {seat}: listed {move} refused: {outcome}"
                key = position(child, seat)
                seen = below.get(key)
                below[key] = (child, paths + seen[1]) if seen else (child, paths)
        counts.append([sum(paths for _, paths in below.values()), len(below)])
        level = below
    return counts


def divide(hand: Hand, seat: int, depth: int) -> dict[str, list[int]]:
    """For each first move: ``[paths, positions]`` of its subtree down to ``depth``."""
    out = {}
    for move in hand.legal_moves(seat):
        child = hand.copy()
        assert child.play(seat, move, AT_MS).ok
        out[move.text] = perft(child, seat, depth - 1)[-1] if depth > 1 else [1, 1]
    return out


def compute(spec: dict[str, Any], moves: list[list[Any]] | None = None) -> dict[str, Any]:
    """Everything the golden file holds for one position."""
    if moves is None:
        moves = greedy_moves(spec)
    hand = build(spec, moves)
    seats = []
    for seat in range(len(hand.seats)):
        legal = hand.legal_moves(seat)
        seats.append(
            {
                "seat": seat,
                "legal": len(legal),
                "moves": sorted(m.text for m in legal),
                "perft": perft(hand, seat, max(DEPTHS)),
                "divide": divide(hand, seat, max(DEPTHS)),
            }
        )
    return {"name": spec["name"], "spec": spec, "moves": moves, "seats": seats}


def compute_all() -> dict[str, Any]:
    """The whole golden file."""
    return {
        "about": "Nertz perft (tests/engine/test_perft.py); rewrite with "
        ".venv/bin/python tests/data/make_perft.py",
        "depths": list(DEPTHS),
        "at_ms": AT_MS,
        "positions": [compute(spec) for spec in POSITIONS],
    }


def golden() -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads(GOLDEN.read_text())
    positions: list[dict[str, Any]] = data["positions"]
    assert [p["spec"] for p in positions] == POSITIONS, "perft.json is stale: run make_perft.py"
    return positions


def golden_ids() -> Iterator[str]:
    for spec in POSITIONS:
        yield spec["name"].split(":")[0]


# ---------------------------------------------------------------- the tests


@pytest.mark.parametrize("index", range(len(POSITIONS)), ids=list(golden_ids()))
def test_perft_matches_the_golden_counts(index: int) -> None:
    """R12-R27: the legal moves of every seat, and the paths and distinct positions its
    own moves reach in 1, 2 and 3 moves, are exactly the golden numbers. On a mismatch
    the message lists each first move's subtree, expected against actual."""
    expected = golden()[index]
    hand = build(expected["spec"], expected["moves"])
    problems = []
    for want in expected["seats"]:
        seat = want["seat"]
        legal = sorted(m.text for m in hand.legal_moves(seat))
        if legal != want["moves"]:
            problems.append(
                f"seat {seat}: {len(legal)} legal moves, expected {want['legal']}; "
                f"missing {sorted(set(want['moves']) - set(legal))}, "
                f"extra {sorted(set(legal) - set(want['moves']))}"
            )
        got = perft(hand, seat, max(DEPTHS))
        if got != want["perft"]:
            actual = divide(hand, seat, max(DEPTHS))
            problems.append(
                f"seat {seat}: [paths, positions] for k = {list(DEPTHS)}: expected "
                f"{want['perft']}, got {got}; first moves whose subtree (k = {max(DEPTHS)}) "
                "differs, expected against actual:"
            )
            problems += [
                f"    {text:8} {want['divide'].get(text)} {actual.get(text)}"
                for text in sorted(set(actual) | set(want["divide"]))
                if actual.get(text) != want["divide"].get(text)
            ]
    assert not problems, f"{expected['name']}:\n" + "\n".join(problems)


def move_texts(foundations: int) -> list[str]:
    """Every syntactically possible move: sources N, W, 1-4; runs of 1-13 cards between
    work piles; foundations F, F1 .. F{foundations + 1} (one more than exist); slide-unders
    to 1-4; T, NERTZ and STUCK."""
    texts = ["T", "NERTZ", "STUCK"]
    for src in ["N", "W", "1", "2", "3", "4"]:
        texts.append(f"{src}>F")
        texts += [f"{src}>F{n}" for n in range(1, foundations + 2)]
        texts += [f"{src}<{dst}" for dst in range(1, 5)]
        for dst in range(1, 5):
            if src in "NW":
                texts.append(f"{src}>{dst}")
            else:
                texts += [f"{src}/{n}>{dst}" if n > 1 else f"{src}>{dst}" for n in range(1, 14)]
    return texts


def accepted_moves(hand: Hand, seat: int) -> set[str]:
    """Every move text ``play`` accepts from ``seat``, each tried on a fresh copy, just
    after the tie window of the latest card (ties aside, R16). ``X>F`` for a card other
    than an ace is the same play as ``X>F<n>`` for the foundation it lands on, which is
    how it is listed (an ace always starts a new one, R12)."""
    at_ms = hand.now + hand.rules.tie_window_ms + 1
    accepted = set()
    for text in move_texts(len(hand.foundations)):
        outcome = hand.copy().play(seat, Move.parse(text), at_ms)
        if not outcome.ok:
            continue
        moved = outcome.events[0] if outcome.events else None
        if isinstance(moved, CardsMoved):
            assert not moved.tie, f"{text} is a tie {at_ms - hand.now} ms after the last card"
            if text.endswith(">F") and moved.cards[0].rank != 1:
                text = f"{text}{moved.foundation + 1}"
        accepted.add(text)
    return accepted


@pytest.mark.parametrize("index", range(len(POSITIONS)), ids=list(golden_ids()))
def test_brute_force_agrees_with_legal_moves(index: int) -> None:
    """R12-R27, independently of the golden file and of ``legal_moves``' own method: in
    each position, and after each first move of seat 0, the set of move texts ``play``
    accepts is exactly ``set(legal_moves(seat))``, for every seat."""
    spec = POSITIONS[index]
    hand = build(spec, greedy_moves(spec))
    hands = [hand]
    for move in hand.legal_moves(0):
        child = hand.copy()
        assert child.play(0, move, AT_MS).ok
        hands.append(child)
    for node in hands:
        for seat in range(len(node.seats)):
            legal = {m.text for m in node.legal_moves(seat)}
            accepted = accepted_moves(node, seat)
            assert accepted == legal, (
                f"{spec['name']}, seat {seat}, after {node.log[-1]}: "
                f"accepted but not listed {sorted(accepted - legal)}, "
                f"listed but refused {sorted(legal - accepted)}"
            )
