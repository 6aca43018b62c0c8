"""Bar panels: one value per run (best test accuracy, ...) per cell, a bar at the seeds' mean and a dot per seed."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np

from groklab.plots.style import STYLE, plt, save


def panel_bars(values: dict[str, list], path: Path, panels: dict[str, list], title: str, ylabel: str,
               ylims: Optional[dict[str, tuple]] = None, labels: Optional[dict] = None, ncols: int = 4) -> list[Path]:
    """One panel per sweep ({panel title: cells in order}): a bar at each cell's mean over seeds and a dot per
    seed (None: a run without the value, left out); `ylims` {panel: (lo, hi)} (default 0-1), `labels` {panel:
    {cell: tick text}}; a value below its panel's limit widens it. Cells without values are skipped, panels
    without cells too."""
    ylims, labels = ylims or {}, labels or {}
    has = lambda c: any(v is not None for v in values.get(c, []))  # noqa: E731
    shown = {name: [c for c in cells if has(c)] for name, cells in panels.items()}
    shown = {name: cells for name, cells in shown.items() if cells}
    if not shown:
        return []
    nrows = -(-len(shown) // ncols)
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(nrows, min(ncols, len(shown)), squeeze=False,
                                 figsize=(2.6 * min(ncols, len(shown)) + 0.6, 2.8 * nrows + 0.5))
        for ax, (name, cells) in zip(axes.flat, shown.items()):
            for i, c in enumerate(cells):
                seeds = [float(v) for v in values[c] if v is not None]
                ax.bar(i, np.mean(seeds), color=f"C{i}", alpha=0.6)
                ax.plot([i] * len(seeds), seeds, "k.", ms=3)
            ax.set_xticks(range(len(cells)), [labels.get(name, {}).get(c, c) for c in cells], rotation=30,
                          fontsize=6)
            lo, hi = ylims.get(name, (0.0, 1.0))
            low = min(float(v) for c in cells for v in values[c] if v is not None)
            lo = min(lo, round(low - 0.05, 1))  # a narrow axis widens rather than hide a seed
            ax.set_ylim(lo, hi)
            ax.set_title(name if lo <= 0 else f"{name}\n(axis from {lo:g})")  # a cut bar axis says so
        for ax in axes.flat[len(shown):]:
            ax.set_visible(False)
        for row in axes:
            row[0].set_ylabel(ylabel)
        fig.suptitle(f"{title}\nbar: mean over seeds; dots: each seed", fontsize=9)
        fig.tight_layout()
        return save(fig, path, pdf=True)
