"""Fig. 5 of paper 000: sensitivity of test accuracy to the learning-rate ratio c = eta_E / eta_W."""
from __future__ import annotations

import math
from pathlib import Path

from groklab.experiments.embedding.profile import base_overrides
from groklab.experiments.spec import Claim, RunSpec, seeded
from groklab.experiments.stats import median_censored, per_seed, run_table
from groklab.plots.curves import acc_grid
from groklab.plots.style import STYLE, plt, save

NAME = "fig5"
TITLE = "Test accuracy vs the embedding learning-rate ratio c on four tasks"
PAPER = ("Small c under-updates the embedding (slow), large c causes instability, and c = 10 "
         "consistently balances convergence and stability across four tasks.")
TASKS = ("add", "sub", "mul", "div")
C_QUICK = (0.1, 1.0, 10.0, 100.0)
C_PAPER = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
NEAR = 1.5  # "balances speed": c=10's median t_test within this factor of the fastest stable c
STABLE = 0.95  # a run is stable if it did not diverge and ends with test acc >= this ...
DROP = 0.05  # ... and never fell more than this below its best test accuracy at the end

QUICK = ["batch_size=512", "steps=3000"]
PAPER_SIZES = ["optim.lr=0.01", "batch_size=512", "steps=20000"]


def grid(profile: str) -> tuple[float, ...]:
    return C_QUICK if profile == "quick" else C_PAPER


def runs(profile: str, seeds: int) -> list[RunSpec]:
    base = base_overrides(profile, QUICK, PAPER_SIZES)
    return [spec for task in TASKS for c in grid(profile)
            for spec in seeded(f"{task}/c{c:g}", base + [f"task={task}", "optim=adam", f"optim.c={c}"], seeds)]


def analyze(df, out: Path) -> tuple[list[Path], list[Claim]]:
    t = run_table(df)
    figs = []
    if not df.empty:
        df = df.assign(c=df["optim.c"].map("c={:g}".format))
        figs += acc_grid(df, out / "fig5_curves", rows=None, cols="task.name", line="c",
                         title="Fig. 5: accuracy for each c = eta_E / eta_W", order={"task.name": list(TASKS)})
        figs += _summary_plot(t, out / "fig5")
    return figs, claims(t)


def _stable(row) -> bool:
    return (row["status"] != "diverged" and row["final_test"] >= STABLE
            and row["max_test"] - row["final_test"] <= DROP)


def _by_c(t, task):
    """c -> (t_test per seed, stable per seed, final test acc per seed) for one task."""
    sub = t[t["task.name"] == task] if len(t) else t
    out = {}
    for c in sorted(set(sub["optim.c"])) if len(sub) else []:
        rows = sub[sub["optim.c"] == c].sort_values("seed")
        out[float(c)] = (per_seed(rows, "t_test"), [bool(_stable(r)) for _, r in rows.iterrows()],
                         per_seed(rows, "final_test"))
    return out


def _summary_plot(t, path: Path) -> list[Path]:
    finite = False
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.2))
        for k, task in enumerate(TASKS):
            data = _by_c(t, task)
            cs = list(data)
            if not cs:
                continue
            axes[0].plot(cs, [median_censored(data[c][2]) for c in cs], "o-", color=f"C{k}", label=task)
            tt = [median_censored(data[c][0]) for c in cs]
            finite |= any(math.isfinite(v) for v in tt)
            axes[1].plot(cs, [v if math.isfinite(v) else math.nan for v in tt], "o-", color=f"C{k}", label=task)
        axes[0].set_ylabel("final test accuracy (median over seeds)")
        axes[1].set_ylabel("steps to 99% test acc (median)")
        for ax in axes:
            ax.set_xscale("log")
            ax.set_xlabel("c = eta_E / eta_W")
            ax.axvline(10, color="gray", lw=0.8, ls=":")
        if finite:  # a log axis needs at least one run that reached 99%
            axes[1].set_yscale("log")
        axes[0].legend()
        fig.suptitle("Fig. 5: sensitivity to c")
        fig.tight_layout()
        return save(fig, path, pdf=True)


def claims(t) -> list[Claim]:
    per, agg, ok_bal, ok_small, ok_large = {}, {}, [], [], []
    for task in TASKS:
        data = _by_c(t, task)
        for c, (tt, st, _) in data.items():
            per[f"{task}/c={c:g} t_test"] = tt
            per[f"{task}/c={c:g} stable"] = st
        med = {c: median_censored(v[0]) for c, v in data.items()}
        stable = [c for c, v in data.items() if v[1] and all(v[1])]
        best = min((med[c] for c in stable), default=math.inf)
        agg[f"{task} median t_test by c"] = {f"{c:g}": med[c] for c in med}
        ok_bal.append(10.0 in stable and math.isfinite(best) and med[10.0] <= NEAR * best)
        lo, hi = (min(data), max(data)) if data else (None, None)
        ok_small.append(10.0 in data and lo is not None and lo < 10 and med[lo] > med[10.0])
        unstable = lambda c: sum(not s for s in data[c][1])  # noqa: E731
        ok_large.append(10.0 in data and hi is not None and hi > 10
                        and (unstable(hi) > unstable(10.0) or med[hi] > med[10.0]))
    return [
        Claim("c10_balances", "c = 10 balances convergence speed and stability on every task.",
              f"stable run = not diverged, final test acc >= {STABLE}, final within {DROP} of its best; "
              f"holds if on every task all c=10 seeds are stable and c=10's median t_test is within "
              f"{NEAR}x of the fastest c whose seeds are all stable", per, agg, all(ok_bal) and bool(ok_bal)),
        Claim("small_c_slow", "Small c under-updates the embedding: the smallest c groks later than c = 10.",
              "median t_test (not reached = +inf) at the smallest c > at c=10, on every task", {},
              {"tasks_holding": sum(ok_small)}, all(ok_small) and bool(ok_small)),
        Claim("large_c_unstable", "Large c causes instability: the largest c is less stable or slower than c = 10.",
              "at the largest c, more unstable seeds than at c=10, or a later median t_test; on every task",
              {}, {"tasks_holding": sum(ok_large)}, all(ok_large) and bool(ok_large)),
    ]
