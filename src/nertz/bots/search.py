"""The work-pile search: the fewest moves of runs between a seat's own work piles
(R17, R18) that give its Nertz card a place or bare a card the middle takes.

Every level but ``master`` looks one move deep, by two fixed patterns (``Bot``'s
``_free_space``: a whole pile onto another's end card; ``_expose``: the run off a wanted
card onto another pile). ``master`` searches (``Level.search``): a breadth-first
search over rearrangements of its four work piles, a few moves deep, that finds the
same moves when they are enough and longer ones when they are not: a run into an empty
space so that another can follow, two runs swapped about to free a space.

Only run moves between the work piles are searched: no card enters or leaves them, so
the seat's cards in the search are exactly those it sees, and its hidden cards (the
Nertz pile below its top, the stock) never matter. The first move of the shortest line
is played; the bot searches again after it, with the table as it is then.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nertz.engine import PILES, Card, Move

__all__ = ["GOAL_EXPOSE", "GOAL_LANDING", "rearrangement"]

GOAL_LANDING = 1
"""A state where the Nertz card has a place: an end card it lies on, or a space."""
GOAL_EXPOSE = 2
"""A state where a work pile's end card is one the middle takes (an ace, or wanted)."""

_MAX_STATES = 2_000
"""The search gives up after this many states: its cost is bounded whatever the piles."""

Piles = tuple[tuple[Card, ...], ...]


def rearrangement(
    work: Sequence[Sequence[Card]],
    nertz_top: Card | None,
    wants: Mapping[int, int],
    depth: int,
    goals: int,
) -> Move | None:
    """The first move of a shortest line of at most ``depth`` run moves between the
    work piles (R17, R18) that reaches one of ``goals`` (``GOAL_LANDING``,
    ``GOAL_EXPOSE``, or both or-ed), or None. A goal the piles meet already is not
    searched for: the moves that use it come first in the bot's order. A Nertz card
    with a place keeps one: a line that bares a wanted card by filling the last space
    the Nertz card had does not count."""
    start: Piles = tuple(tuple(pile) for pile in work)
    keep = nertz_top is not None and _landing(start, nertz_top)
    if goals & GOAL_LANDING and (nertz_top is None or keep):
        goals &= ~GOAL_LANDING
    if goals & GOAL_EXPOSE and _exposed(start, wants):
        goals &= ~GOAL_EXPOSE
    if not goals or depth <= 0:
        return None
    seen = {_shape(start)}
    # Breadth first: each state carries the first move of the line that reached it.
    frontier: list[tuple[Piles, Move | None]] = [(start, None)]
    for _ in range(depth):
        following: list[tuple[Piles, Move | None]] = []
        for piles, first in frontier:
            for move, after in _moves(piles):
                shape = _shape(after)
                if shape in seen:
                    continue
                seen.add(shape)
                line = move if first is None else first
                if _reached(after, nertz_top, wants, goals, keep):
                    return line
                if len(seen) > _MAX_STATES:
                    return None
                following.append((after, line))
        frontier = following
    return None


def _moves(piles: Piles) -> list[tuple[Move, Piles]]:
    """Every run move between the piles (R17), and every run off a card into the first
    empty space (R18; a whole pile into a space changes nothing)."""
    out: list[tuple[Move, Piles]] = []
    space = -1
    for j in range(PILES):
        if not piles[j]:
            space = j
            break
    for i in range(PILES):
        source = piles[i]
        size = len(source)
        if not size:
            continue
        for j in range(PILES):
            if j == i:
                continue
            dest = piles[j]
            if dest:
                wanted = dest[-1].accepts
                for s in range(size):
                    if source[s].place == wanted:
                        out.append((Move.to_pile(i, j, size - s), _moved(piles, i, j, s)))
                        break
            elif j == space:
                for s in range(1, size):
                    out.append((Move.to_pile(i, j, size - s), _moved(piles, i, j, s)))
    return out


def _moved(piles: Piles, i: int, j: int, s: int) -> Piles:
    """``piles`` with pile ``i``'s cards from ``s`` on moved onto pile ``j``."""
    out = list(piles)
    out[j] = piles[j] + piles[i][s:]
    out[i] = piles[i][:s]
    return tuple(out)


def _shape(piles: Piles) -> tuple[tuple[int, ...], ...]:
    """The piles as a set: which pile holds what does not matter to the goals."""
    return tuple(sorted(tuple(card.key for card in pile) for pile in piles))


def _landing(piles: Piles, card: Card) -> bool:
    return any(not pile or pile[-1].accepts == card.place for pile in piles)


def _exposed(piles: Piles, wants: Mapping[int, int]) -> bool:
    return any(pile and (pile[-1].rank == 1 or pile[-1].key in wants) for pile in piles)


def _reached(
    piles: Piles, nertz_top: Card | None, wants: Mapping[int, int], goals: int, keep: bool
) -> bool:
    if nertz_top is not None and (goals & GOAL_LANDING or keep):
        if _landing(piles, nertz_top):
            if goals & GOAL_LANDING:
                return True
        elif keep:
            return False  # the Nertz card lost its place
    return bool(goals & GOAL_EXPOSE) and _exposed(piles, wants)
