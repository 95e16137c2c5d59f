"""``--plot``: score distributions and running totals of a run, drawn to a PNG.

Left: each seat's hand scores as a histogram (R30). Right: the running totals (R32)
of the first matches, one line per seat and match, with the target as a dashed line
in a race. Uses matplotlib's Agg backend: no display needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .runner import MatchResult, Setup, seat_labels

__all__ = ["plot"]

MATCHES_DRAWN = 12
"""How many matches the running-totals panel draws (more is unreadable)."""


def plot(setup: Setup, results: Sequence[MatchResult], path: str | Path, title: str = "") -> None:
    """Draw the run's figure to ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    labels = seat_labels(setup.seats, setup.partners)
    n = len(labels)
    colours = [plt.get_cmap("tab10")(i % 10) for i in range(n)]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    scores = [[h.scores[s] for m in results for h in m.hands] for s in range(n)]
    low = min((min(x) for x in scores if x), default=0)
    high = max((max(x) for x in scores if x), default=1)
    bins = list(range(low, high + 2, max(1, (high - low + 1) // 30)))
    for s in range(n):
        left.hist(
            scores[s], bins=bins, histtype="step", linewidth=1.5, color=colours[s], label=labels[s]
        )
    left.set_xlabel("hand score (R30)")
    left.set_ylabel("hands")
    left.set_title("score per hand")
    left.legend(fontsize="small")
    for match in results[:MATCHES_DRAWN]:
        totals = [0] * n
        lines: list[list[int]] = [[0] for _ in range(n)]
        for hand in match.hands:
            for s in range(n):
                totals[s] += hand.scores[s]
                lines[s].append(totals[s])
        for s in range(n):
            right.plot(range(len(lines[s])), lines[s], color=colours[s], alpha=0.6, linewidth=1)
    if setup.rules.match == "race":
        right.axhline(setup.rules.target, color="grey", linestyle="--", linewidth=1)
    right.set_xlabel("hand")
    right.set_ylabel("running total (R32)")
    right.set_title(f"running totals, first {min(MATCHES_DRAWN, len(results))} matches")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
