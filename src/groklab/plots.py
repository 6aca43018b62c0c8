"""Figures in the papers' style: accuracy against log-scaled steps."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; no display needed
import matplotlib.pyplot as plt  # noqa: E402


def plot_curves(df, path: str | Path, panel: str = "task.name", line: str = "run", title: str = "") -> Path:
    """Train (dashed) and test (solid) accuracy per `line`, one panel per value of `panel`, log-x."""
    panels = list(dict.fromkeys(df[panel])) if panel in df else [None]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4), squeeze=False, sharey=True)
    for ax, key in zip(axes[0], panels):
        sub = df if key is None else df[df[panel] == key]
        for i, (name, run) in enumerate(sub.groupby(line, sort=False)):
            run = run[run["step"] > 0].sort_values("step")
            color = f"C{i % 10}"
            ax.plot(run["step"], run["train/acc"], "--", color=color, lw=1.2)
            ax.plot(run["step"], run["test/acc"], "-", color=color, lw=1.6, label=str(name))
        ax.set_xscale("log")
        ax.set_xlabel("step")
        ax.set_title(str(key) if key is not None else title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    axes[0][0].set_ylabel("accuracy (train dashed, test solid)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
