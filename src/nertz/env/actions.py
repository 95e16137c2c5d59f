"""The environment's fixed move space: every action an index, every index a move.

A learner's action is one index of a space that does not change during a hand (the
size depends only on whether the table has jokers, R41). Index 0 is *wait*; the others
stand for the engine's moves (``nertz.engine.Move``), grouped so that one index covers
the moves a player would not tell apart:

* ``T``, ``NERTZ``, ``STUCK`` (R21-R25, R27);
* a card to the middle from each source, whatever the foundation (``N>F``, ``2>F``:
  R12-R14); the engine's legal move that the index stands for is played, so a card goes
  to the foundation the legal moves named first;
* a card or a run of 1 to ``max_run`` cards onto or into a work pile (R17-R20);
* a card slid under a work pile's head (R19);
* with jokers, a joker announced as each of the 52 cards from each source (R41), for
  the first foundation the legal moves offer for it.

The space only names moves: which are allowed is always the engine's answer
(``Hand.legal_moves``), never worked out here.
"""

from __future__ import annotations

from collections.abc import Iterable

from nertz.engine import PILES, SOURCES, Card, Kind, Move, Suit

__all__ = ["WAIT", "MoveSpace"]

WAIT = 0
"""The action that plays nothing this tick."""

_CARDS = 52
_SOURCES = len(SOURCES)


class MoveSpace:
    """The indexed moves of a table with or without jokers (R41)."""

    def __init__(self, jokers: bool = False) -> None:
        self.jokers = jokers
        self.max_run = 15 if jokers else 13
        """The longest run an action moves between work piles: a whole suit, and with
        jokers the two jokers too (a longer run still moves, one part at a time)."""
        moves: list[Move | None] = [None, Move.parse("T"), Move.parse("NERTZ")]
        moves.append(Move.parse("STUCK"))
        self.foundation_base = len(moves)
        moves += [Move.to_foundation(src) for src in range(_SOURCES)]
        for src in range(_SOURCES):
            runs = self.max_run if src < PILES else 1
            for pile in range(PILES):
                if pile != src:
                    moves += [Move.to_pile(src, pile, n) for n in range(1, runs + 1)]
        for src in range(_SOURCES):
            moves += [Move.under(src, pile) for pile in range(PILES) if pile != src]
        self.announce_base = len(moves)
        if jokers:
            for src in range(_SOURCES):
                moves += [Move.announce(src, _card(i)) for i in range(_CARDS)]
        self.moves: tuple[Move | None, ...] = tuple(moves)
        """The move each index stands for (None: wait); the legal move of that index
        is played instead when it differs (a named foundation, R13)."""
        self._index: dict[str, int] = {
            move.text: i for i, move in enumerate(moves) if move is not None
        }

    def __len__(self) -> int:
        return len(self.moves)

    def index(self, move: Move) -> int | None:
        """The action that stands for ``move``; None when the space has none (a run
        longer than ``max_run``)."""
        found = self._index.get(move.text)
        if found is not None:
            return found
        kind = move.kind
        if kind is Kind.FOUNDATION:
            found = self.foundation_base + move.src
        elif kind is Kind.ANNOUNCE and self.jokers:
            announced = move.announced
            assert announced is not None
            found = self.announce_base + move.src * _CARDS + _card_index(announced)
        else:
            return None
        self._index[move.text] = found  # moves are few: the cache stays small
        return found

    def legal(self, moves: Iterable[Move]) -> dict[int, Move]:
        """The engine's legal moves by action, the first legal move of each index."""
        by_action: dict[int, Move] = {}
        index = self._index
        for move in moves:
            i = index.get(move.text)
            if i is None:
                i = self.index(move)
                if i is None:
                    continue
            if i not in by_action:
                by_action[i] = move
        return by_action

    def describe(self, action: int) -> str:
        """The action in move notation (``wait`` for 0), for logs and people."""
        move = self.moves[action]
        return "wait" if move is None else move.text


def _card(i: int) -> Card:
    return Card.of(i % 13 + 1, Suit(i // 13))


def _card_index(card: Card) -> int:
    return int(card.suit) * 13 + card.rank - 1
