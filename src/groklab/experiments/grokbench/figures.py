"""GrokBench's figures: Kaplan-Meier curves of the share grokked per task, the aggregates with intervals, and
(protocol v2) the tuning curves."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from groklab.plots.style import STYLE, plt, save
from groklab.survival import Censored, censored_data


def km_grokked(times: list, horizon: float) -> tuple[np.ndarray, np.ndarray]:
    """Step function (t, share grokked by t) = 1 - Kaplan-Meier survival (scipy's ecdf, as survival.km_median);
    censored runs leave the risk set where they were last seen and are never drawn as grokking at the horizon."""
    from scipy import stats

    if not any(not isinstance(x, Censored) for x in times):
        return np.array([0.0, horizon]), np.array([0.0, 0.0])
    sf = stats.ecdf(censored_data(times, horizon)).sf
    drop = np.diff(np.concatenate([[1.0], sf.probabilities])) != 0  # the steps: event times only
    xs, ys = sf.quantiles[drop], 1 - sf.probabilities[drop]
    return np.concatenate([[0.0], xs, [horizon]]), np.concatenate([[0.0], ys, [ys[-1]]])


def survival_figure(times: dict[str, dict[str, list]], horizons: dict[str, float], path: Path,
                    thr: float, solved: list | None = None) -> list[Path]:
    """One panel per task: the share of evaluation runs grokked (test acc >= thr) against steps, per method; and
    a last panel pooling the `solved` tasks on steps / horizon (rliable's performance profile, Kaplan-Meier)."""
    methods = list(times)
    tasks = list(next(iter(times.values()))) if times else []
    if not tasks:
        return []
    pooled = {m: [type(x)(float(x) / horizons[t]) for t in (solved or []) for x in times[m][t]] for m in methods}
    if solved:
        horizons = {**horizons, "all solved tasks (steps / horizon)": 1.0}
        times = {m: {**times[m], "all solved tasks (steps / horizon)": pooled[m]} for m in methods}
        tasks = tasks + ["all solved tasks (steps / horizon)"]
    with plt.rc_context(STYLE):
        fig, axes = _grid(len(tasks))
        for ax, task in zip(axes.flat, tasks):
            for k, m in enumerate(methods):
                xs, ys = km_grokked(times[m][task], horizons[task])
                ax.step(xs, ys, where="post", color=f"C{k % 10}", ls="-" if k < 10 else "--", lw=1.2, label=m)
            ax.set(title=task, xlabel="steps / horizon" if task.startswith("all ") else "step",
                   xlim=(0, horizons[task]), ylim=(0, 1.02))
        _label(axes, len(tasks), f"share with test acc ≥ {thr:g}")
        handles, labels = axes.flat[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(4, len(methods)),
                   frameon=False, fontsize=7)
        fig.suptitle("GrokBench: Kaplan-Meier share grokked (runs that never grok stay below, censored)",
                     fontsize=9)
        fig.tight_layout()
        return save(fig, path, pdf=False, tight=False, fit=True)


def aggregate_figure(agg, path: Path) -> list[Path]:
    """Per method: P(improvement over the baseline) and the IQM of steps / horizon, each with its interval."""
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(9, 0.35 * len(agg) + 1.4), sharey=True)
        y = np.arange(len(agg))[::-1]
        for ax, (col, lo, hi, label, ref) in zip(axes, (
                ("p_improvement", "p_lo", "p_hi", "P(groks before the tuned baseline)", 0.5),
                ("iqm", "iqm_lo", "iqm_hi", "IQM of steps / horizon (lower: sooner; > : unbounded)", None))):
            for yi, (_, r) in zip(y, agg.iterrows()):
                if r[col] is None or r[col] != r[col]:
                    ax.text(0.02, yi, "undefined (> 1/4 censored)", va="center", fontsize=6, color="0.4",
                            transform=ax.get_yaxis_transform())
                    continue
                ax.plot([r[col]], [yi], "o", color="k", ms=4)
                if r[lo] is not None and r[lo] == r[lo]:
                    open_top = r[hi] is None or r[hi] != r[hi]  # unbounded above: drawn to the edge, arrowed
                    ax.plot([r[lo], 1.0 if open_top else r[hi]], [yi, yi], "-", color="k", lw=1)
                    if open_top:
                        ax.plot([1.0], [yi], ">", color="k", ms=4, clip_on=False)
            if ref is not None:
                ax.axvline(ref, color="0.5", ls=":", lw=1)
            ax.set(xlim=(0, 1), xlabel=label)
        axes[0].set_yticks(y, list(agg["method"]))
        fig.suptitle("GrokBench across tasks (95% stratified bootstrap intervals)", fontsize=9)
        fig.tight_layout()
        return save(fig, path)


__all__ = ["aggregate_figure", "km_grokked", "survival_figure"]


def tuning_figure(selection: dict, tasks: list, methods: list, budget: float, path: Path) -> list[Path]:
    """One panel per tuned task: each study's best score so far (sweep.tune's: above 1 once a trial held the
    threshold, 2 - t / horizon) against the training steps spent, one colour per method, a line per study. A curve
    still climbing at the budget says the budget was not enough."""
    if not tasks:
        return []
    with plt.rc_context(STYLE):
        fig, axes = _grid(len(tasks))
        for ax, task in zip(axes.flat, tasks):
            for k, m in enumerate(methods):
                for i, study in enumerate((selection.get(task, {}).get(m) or {}).values()):
                    pts = [(x, y) for x, y in study.get("curve") or [] if y is not None]
                    if pts:
                        xs, ys = zip(*pts)
                        ax.step(xs, ys, where="post", color=f"C{k % 10}", lw=1.0, alpha=0.8,
                                label=m if i == 0 else None)
            ax.axhline(1.0, color="0.6", lw=0.6, ls=":")
            ax.set(title=task, xlabel="training steps spent", xlim=(0, budget))
        _label(axes, len(tasks), "best score so far")
        handles, labels = axes.flat[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 4) or 1, fontsize=7, frameon=False)
        fig.suptitle("Tuning curves (a line per study; > 1: held the threshold)", fontsize=9)
        fig.tight_layout(rect=(0, 0.08, 1, 1))
        return save(fig, path, tight=False)


def _grid(n: int):
    """A figure of n panels, three to a row."""
    ncols = min(3, n)
    nrows = -(-n // ncols)
    return plt.subplots(nrows, ncols, figsize=(3.4 * ncols, 2.8 * nrows + 0.8), squeeze=False)


def _label(axes, n: int, ylabel: str) -> None:
    """Hide the panels past the n-th; the y label on each row's first."""
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    for row in axes:
        row[0].set_ylabel(ylabel)
