"""Accuracy curves in the papers' style: against log-scaled steps, per run or as a median band over seeds."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import pandas as pd

from groklab.plots.labels import label as paper_label
from groklab.plots.style import STYLE, plt, save


def plot_curves(df, path: str | Path, panel: str = "task.name", line: str = "run", title: str = "") -> Path:
    """Train (dashed) and test (solid) accuracy per `line`, one panel per value of `panel`, log-x. A `line`
    value shared by several runs (seeds) is one colour with one curve per run, never one line joining them."""
    panels = list(dict.fromkeys(df[panel])) if panel in df else [None]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4), squeeze=False, sharey=True)
    for ax, key in zip(axes[0], panels):
        sub = df if key is None else df[df[panel] == key]
        for i, (name, group) in enumerate(sub.groupby(line, sort=False)):
            color = f"C{i % 10}"
            runs = list(group.groupby("run", sort=False)) if "run" in group and line != "run" else [(name, group)]
            for j, (_, run) in enumerate(runs):
                run = run[run["step"] > 0].sort_values("step")
                label = f"{paper_label(name)} ({len(runs)} runs)" if len(runs) > 1 else paper_label(name)
                ax.plot(run["step"], run["train/acc"], "--", color=color, lw=1.0, alpha=0.8)
                ax.plot(run["step"], run["test/acc"], "-", color=color, lw=1.4, alpha=0.8,
                        label=label if j == 0 else None)
        ax.set_xscale("log")
        ax.set_xlabel("step")
        name = paper_label(key)  # a known name alone ("a + b"); a bare value with its field ("lr = 0.001")
        ax.set_title(title if key is None else name if name != str(key) else paper_label(f"{panel}={key}"))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    axes[0][0].set_ylabel("accuracy (train dashed, test solid)")
    if title:
        fig.suptitle(title)
    return save(fig, path, dpi=120)[0]


def seed_band(runs: pd.DataFrame, col: str) -> pd.DataFrame:
    """Median, min and max of `col` over the runs (seeds) at every evaluated step.

    An early-stopped run keeps its last value afterwards (forward fill), as it would have stayed there.
    """
    wide = runs.pivot_table(index="step", columns="run", values=col, aggfunc="last").sort_index().ffill()
    return pd.DataFrame({"median": wide.median(axis=1), "lo": wide.min(axis=1), "hi": wide.max(axis=1)})


def plot_band(ax, runs: pd.DataFrame, col: str, color: str, label: Optional[str], style: str = "-") -> None:
    band = seed_band(runs[runs["step"] > 0], col)
    if band.empty:
        return
    ax.plot(band.index, band["median"], style, color=color, lw=1.5 if style == "-" else 1.1, label=label)
    if style == "-":
        ax.fill_between(band.index, band["lo"], band["hi"], color=color, alpha=0.15, lw=0)


def acc_grid(df: pd.DataFrame, path: Path, rows: Optional[str], cols: str, line: str, title: str,
             order: Optional[dict] = None) -> list[Path]:
    """Train (dashed) and test (solid) accuracy per value of `line`, panels rows x cols, log-x."""
    order = order or {}
    vals = lambda c: order.get(c) or list(dict.fromkeys(df[c]))  # noqa: E731
    row_vals = vals(rows) if rows else [None]
    col_vals = vals(cols)
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(len(row_vals), len(col_vals), squeeze=False, sharey=True,
                                 figsize=(2.9 * len(col_vals) + 0.6, 2.4 * len(row_vals) + 0.5))
        for i, r in enumerate(row_vals):
            for j, c in enumerate(col_vals):
                ax = axes[i][j]
                sub = df[df[cols] == c] if r is None else df[(df[cols] == c) & (df[rows] == r)]
                for k, key in enumerate(vals(line)):
                    runs = sub[sub[line] == key]
                    if runs.empty:
                        continue
                    plot_band(ax, runs, "train/acc", f"C{k}", None, "--")
                    plot_band(ax, runs, "test/acc", f"C{k}", paper_label(key))
                ax.set_xscale("log")
                ax.set_ylim(-0.02, 1.02)
                ax.set_title(paper_label(c) if r is None else f"{paper_label(c)}, {paper_label(f'{rows}={r}')}")
                if i == len(row_vals) - 1:
                    ax.set_xlabel("step")
                if j == 0:
                    ax.set_ylabel("accuracy")
        # one legend below the panels, never over a curve: every line's label once (a colour is one value of
        # `line` in every panel; panels may show different values, and a partial tree leaves some empty)
        seen = {}
        for ax in axes.flat:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                seen.setdefault(lab, h)
        fig.suptitle(title)
        fig.tight_layout()
        if seen:
            labels = [paper_label(v) for v in vals(line) if paper_label(v) in seen]
            handles = [seen[lab] for lab in labels]
            # columns that fit the figure's width at 7 pt (~0.055 in a character): long labels take fewer
            per_col = 0.055 * max(len(lab) for lab in labels) + 0.5
            ncol = max(1, min(len(labels), 4, int(fig.get_size_inches()[0] // per_col)))
            fig.subplots_adjust(bottom=min(0.4, 0.6 / fig.get_size_inches()[1]))  # room for the x label alone
            # below the figure, never over a panel: the saved box grows to hold it (save's fit)
            fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol, fontsize=7,
                       frameon=False, title="median over seeds (band: min-max); test solid, train dashed",
                       title_fontsize=6)
        return save(fig, path, pdf=True, tight=False, fit=True)  # the box grows to hold a long legend


def panel_grid(df: pd.DataFrame, path: Path, panels: dict[str, list], line: str, title: str, ncols: int = 4,
               labels: Optional[dict] = None) -> list[Path]:
    """One panel per sweep ({panel title: the `line` values it shows, in order}, a value may appear in several),
    each with its own colours and a legend under it (`labels`: {panel: {value: legend text}}); train dashed,
    test solid, median over seeds with a min-max band, log-x."""
    labels = labels or {}
    shown = {name: [k for k in keys if (df[line] == k).any()] for name, keys in panels.items()}
    shown = {name: keys for name, keys in shown.items() if keys}
    if not shown:
        return []
    nrows = -(-len(shown) // ncols)
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(nrows, min(ncols, len(shown)), squeeze=False, sharey=True,
                                 figsize=(2.9 * min(ncols, len(shown)) + 0.6, 3.1 * nrows + 0.5))
        for ax, (name, keys) in zip(axes.flat, shown.items()):
            for k, key in enumerate(keys):
                runs = df[df[line] == key]
                plot_band(ax, runs, "train/acc", f"C{k}", None, "--")
                plot_band(ax, runs, "test/acc", f"C{k}", labels.get(name, {}).get(key, paper_label(key)))
            ax.set_xscale("log")
            ax.set_ylim(-0.02, 1.02)
            ax.set_title(name)
            ax.set_xlabel("step")
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize=6, frameon=False)
        for ax in axes.flat[len(shown):]:
            ax.set_visible(False)
        for row in axes:
            row[0].set_ylabel("accuracy")
        fig.suptitle(f"{title}\nmedian over seeds (band: min-max); test solid, train dashed", fontsize=9)
        fig.tight_layout(h_pad=3.0)
        return save(fig, path, pdf=True, tight=False, fit=True)
