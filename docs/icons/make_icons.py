"""Draw the app's icons once (``src/nertz/web/icons/icon-192.png`` and ``icon-512.png``,
named by ``server/http/installable.py``'s manifest): two cards fanned on the felt, an ace of
hearts on top. Run it again only to change them: ``.venv/bin/python docs/icons/make_icons.py``.

Everything drawn stays inside the middle 80% (the "maskable" safe zone), so a phone may
crop the icon to a circle or a rounded square.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch

OUT = Path(__file__).resolve().parents[2] / "src" / "nertz" / "web" / "icons"
FELT, PAPER, RED, INK, BACK = "#1f5e3b", "#fffdf7", "#c62828", "#1b1b1b", "#0b5394"


def card(ax: plt.Axes, x: float, y: float, angle: float, face: bool) -> None:
    """A card 0.34 wide and 0.48 tall, its lower left corner at (x, y), turned."""
    from matplotlib.transforms import Affine2D

    turn = Affine2D().rotate_deg_around(x + 0.17, y + 0.24, angle) + ax.transData
    patch = FancyBboxPatch(
        (x, y),
        0.34,
        0.48,
        boxstyle="round,pad=0,rounding_size=0.035",
        facecolor=PAPER if face else BACK,
        edgecolor=INK if face else PAPER,
        linewidth=1.5,
        transform=turn,
    )
    ax.add_patch(patch)
    if face:
        ax.text(
            x + 0.035,
            y + 0.44,
            "A",
            color=RED,
            fontsize=1,
            fontweight="bold",
            va="top",
            ha="left",
            transform=turn,
            gid="corner",
        )
        ax.text(
            x + 0.17,
            y + 0.2,
            "♥",
            color=RED,
            fontsize=1,
            va="center",
            ha="center",
            transform=turn,
            gid="pip",
        )


def draw(size: int) -> None:
    fig = plt.figure(figsize=(1, 1), dpi=size)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    fig.patch.set_facecolor(FELT)
    card(ax, 0.2, 0.27, 12, face=False)
    card(ax, 0.42, 0.25, -8, face=True)
    # Text sizes in points: a fraction of the figure's one inch (72 points).
    for text in ax.texts:
        text.set_fontsize(72 * (0.16 if text.get_gid() == "corner" else 0.26))
    OUT.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT / f"icon-{size}.png", dpi=size, facecolor=FELT)
    plt.close(fig)


if __name__ == "__main__":
    for size in (192, 512):
        draw(size)
        print(OUT / f"icon-{size}.png")
