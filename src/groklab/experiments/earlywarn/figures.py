"""The early-warning study's figures, from the evaluate runs pooled over the settings: every measure aligned at the
fit (grokking and censored runs, median and interquartile band, the grokking runs' median T marked) and at T (the
grokking runs), ROC curves at the primary point, and the lead times of true alarms."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from groklab.experiments.earlywarn.protocol import horizon
from groklab.experiments.earlywarn.runs import block_of
from groklab.experiments.earlywarn.states import FIT_STEP, labelled, roc_points

EVERY, AFTER_T, COLS = 50, 1000, 5  # the grid the states are read on, steps drawn after T, panels per row
POOLED = "all"


def draw(series: dict, evs: dict, rows: list[dict], proto, root: Path) -> list[str]:
    from groklab.plots.style import plt, save

    ev_series = {m: {r: s for r, s in S.items() if block_of(r) == "evaluate"} for m, S in series.items()}
    names = [m for m in series if m != FIT_STEP]
    span = horizon(proto)
    Ts = [e.T - e.t_fit for r, e in evs.items() if block_of(r) == "evaluate" and e.grokked and e.t_fit is not None]
    groups = {"at the fit": [(True, "C0"), (False, "C3")], "at T": [(True, "C0")]}
    grids = {"at the fit": np.arange(0, span + 1, EVERY), "at T": np.arange(-span // 2, AFTER_T + 1, EVERY)}
    files = []
    for anchor, stem in (("at the fit", "aligned"), ("at T", "aligned_T")):
        fig, axes = plt.subplots(math.ceil(len(names) / COLS), COLS, figsize=(3.0 * COLS, 2.2 * math.ceil(
            len(names) / COLS)), squeeze=False)
        for ax, m in zip(axes.flat, names):
            for grokked, color in groups[anchor]:
                runs = [s for s in ev_series[m].values() if s.ev.t_fit is not None and s.ev.grokked == grokked]
                zero = (lambda s: s.ev.t_fit) if anchor == "at the fit" else (lambda s: s.ev.T)
                Y = np.array([[_nan(s.state(zero(s) + k)) if zero(s) + k >= s.ev.t_fit else np.nan
                               for k in grids[anchor]] for s in runs]) if runs else np.zeros((0, 0))
                with np.errstate(all="ignore"):
                    q = np.nanpercentile(Y, [25, 50, 75], axis=0) if np.isfinite(Y).any() else None
                if q is not None:
                    ax.plot(grids[anchor], q[1], color=color, lw=1.2,
                            label=f"{'grok' if grokked else 'censored'} (n={len(runs)})")
                    ax.fill_between(grids[anchor], q[0], q[2], color=color, alpha=0.2, lw=0)
            if Ts:
                ax.axvline(float(np.median(Ts)) if anchor == "at the fit" else 0.0, color="0.4", ls="--", lw=0.8)
            if max(map(abs, ax.get_ylim())) > 5:  # a Hessian's or gradient's jumps in decades; small changes linear
                ax.set_yscale("symlog", linthresh=1.0)
            ax.set_title(m + (" (oracle)" if proto.measures.get(m, ("", False))[1] else ""), fontsize=8)
            ax.tick_params(labelsize=6)
        for ax in list(axes.flat)[len(names):]:
            ax.axis("off")
        if axes.flat[0].get_legend_handles_labels()[0]:
            axes.flat[0].legend(fontsize=6)
        what = ("steps after the fit; dashed: the grokking runs' median T" if anchor == "at the fit" else
                "steps from T (grokking runs only, from their fit on); dashed: T")
        fig.suptitle(f"Evaluate runs aligned {anchor}: each measure relative to its value at the fit, against {what}; "
                     "median and quartiles", fontsize=9)
        save(fig, root / stem)
        files.append(f"{stem}.png")
    files.append(_roc(ev_series, rows, proto, root, plt, save))
    files.append(_leads(rows, proto, root, plt, save))
    return files


def _nan(v):
    return float("nan") if v is None else v


def _roc(ev_series, rows, proto, root, plt, save) -> str:
    p = proto.scores.primary
    pooled = {r["measure"]: r for r in rows
              if r["setting"] == POOLED and r["after_fit"] == p and r["block"] == "evaluate"}
    ranked = sorted((m for m in pooled if pooled[m]["auroc"] == pooled[m]["auroc"]),
                    key=lambda m: -pooled[m]["auroc"])
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    for m in ranked[:10]:
        x, y = labelled(ev_series[m], p)
        if y.any() and (~y).any():
            fpr, tpr = roc_points(pooled[m]["sign"] * x, y)
            ls = ":" if pooled[m]["needs_test_data"] else "-"
            ax.plot(fpr, tpr, ls=ls, lw=1.1, label=f"{m} {pooled[m]['auroc']:.2f}")
    ax.plot([0, 1], [0, 1], color="0.6", lw=0.8)
    ax.set(xlabel="false-positive rate", ylabel="true-positive rate",
           title=f"ROC at t_fit + {p} (evaluate runs, pooled; dotted: oracles)")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=6, loc="lower right")
    save(fig, root / "roc")
    return "roc.png"


def _leads(rows, proto, root, plt, save) -> str:
    p = proto.scores.primary
    pooled = [r for r in rows if r["setting"] == POOLED and r["after_fit"] == p and r["block"] == "evaluate"
              and r["lead_steps_median"] == r["lead_steps_median"]]
    pooled.sort(key=lambda r: -r["lead_steps_median"])
    fig, ax = plt.subplots(figsize=(6.4, 0.3 * len(pooled) + 1.2))
    for i, r in enumerate(pooled):
        ax.plot([r["lead_ci_low"], r["lead_ci_high"]], [i, i], color="C0", lw=2, alpha=0.5)
        ax.plot([r["lead_steps_median"]], [i], "o", color="C3" if r["needs_test_data"] else "C0")
    ax.set_yticks(range(len(pooled)))
    ax.set_yticklabels([f"{r['measure']} (warned {r['warned_share']:.0%}, fpr {r['fpr']:.0%})" for r in pooled],
                       fontsize=7)
    ax.set(xlabel="lead time T - alarm (steps): median and 95% interval", title="True alarms, evaluate runs pooled")
    save(fig, root / "lead")
    return "lead.png"
