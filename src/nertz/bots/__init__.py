"""Bots: policies that choose a seat's move from what that seat may see."""

from .greedy import greedy_move

__all__ = ["greedy_move"]
