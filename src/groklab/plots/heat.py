"""Heat-map panels over a grid of two settings (lr x wd, lr x batch): one value per cell, and cells without a
value (a median time that half the seeds never reached) marked in words, never coloured as if reached."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

BLANK = "not reached"  # what a blank time cell says: the Kaplan-Meier median lies beyond the horizon


def heat(fig, ax, m: np.ndarray, xs: Sequence, ys: Sequence, xlabel: str, ylabel: str, title: str,
         vmax: Optional[float] = None, blank: str = BLANK) -> None:
    """Draw matrix `m` (rows: ys, columns: xs) with its colour bar; NaN cells get grey hatching and `blank` in
    small type, so a censored cell reads as censored (a mean with the horizon filled in would read as a time)."""
    m = np.asarray(m, dtype=float)
    im = ax.imshow(np.ma.masked_invalid(m), origin="lower", aspect="auto", cmap="viridis", vmin=0.0,
                   vmax=vmax)
    for i, j in zip(*np.nonzero(~np.isfinite(m))):
        ax.add_patch(_cell(i, j))
        ax.text(j, i, blank.replace(" ", "\n"), ha="center", va="center", fontsize=5, color="0.25")
    ax.set_xticks(range(len(xs)), [f"{x:g}" if isinstance(x, float) else str(x) for x in xs])
    ax.set_yticks(range(len(ys)), [f"{y:g}" if isinstance(y, float) else str(y) for y in ys])
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.grid(False)
    fig.colorbar(im, ax=ax)


def _cell(i: int, j: int):
    from matplotlib.patches import Rectangle

    return Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.9", edgecolor="0.6", hatch="///", lw=0)


__all__ = ["BLANK", "heat"]
