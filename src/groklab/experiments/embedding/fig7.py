"""Figs. 7/9 of paper 000: lambda_max of the Hessian blocks H_EE and H_WW over training, Adam vs Adam-LR."""
from __future__ import annotations

import math
from copy import deepcopy
from pathlib import Path

from groklab.experiments.choices import weigh
from groklab.experiments.claims import level_claim
from groklab.experiments.controls import Control
from groklab.experiments.embedding.fig7_timing import claims as timing_claims
from groklab.experiments.embedding.profile import WD_MODE, base_overrides, batch, lr, task
from groklab.experiments.levels import all_of, below, contrast
from groklab.experiments.posthoc import Revision, revised
from groklab.experiments.spec import Claim, RunSpec, grid_runs
from groklab.experiments.stats import boot_mean, median_censored
from groklab.plots.style import STYLE, plt, save

NAME = "fig7"
TITLE = "Hessian lambda_max of the embedding (E) and first-layer (W) blocks, Adam vs Adam-LR"
PAPER = ("Under Adam the top Hessian eigenvalue of E is significantly smaller than that of W; with "
         "Adam-LR the eigenvalues of W are reduced and become closer to those of E.")
OPTIMS = {"adam": ["optim=adam"], "adam_lr": ["optim=adam", "optim.c=10"],
          "adam_lr_adaptive": ["optim=adam", "optim.c=10", "optim.c_mode=adaptive"]}
# "significantly smaller" names no factor: the paper claim is the direction beyond noise (the CI of the
# geometric-mean ratio below 1); an order of magnitude (below 0.1, our former reading) is a measurement beside it
SMALLER, ORDER = 1.0, 0.1

QUICK = ["task=mul", "batch_size=512", "steps=3000", "measures.hessian.every=50"]
# Hessian every 50 steps as at the quick profile: at every 250 (until 2026-12-07) two of three Adam seeds held 3
# measures between t_train and t_test (fewer than fig7_timing.MIN_POINTS): the cadence, not the runs, left the
# caption's timing claim open (a fresh read); a run then measures ~45 times (~1 s each on a CPU)
# the claims describe the Hessian blocks of runs that generalize: plain Adam must reach test accuracy 0.99 on every
# seed (declared 2026-12-07, after the data, at the project's bar; every archived run passes, so no verdict moved).
# No delay: the sentences are about the dynamics, not a late rise (paper profile t_test / t_train 2.7-2.8 for Adam)
CONTROLS = [Control("adam/*", "plain Adam (whose blocks the claims compare)", 0.99)]
PAPER_SIZES = ["task=mul", "optim.lr=0.01", "batch_size=512", "steps=20000", "measures.hessian.every=50",
               "measures.hessian.max_rows=2048"]
ASSUMPTIONS = [
    task("mul", "Figs. 7/9 name no task"), lr("0.01", "not stated; Fig. 6's (the Adam vs Adam-LR comparison)"),
    batch("512", "not stated; Fig. 6's"), WD_MODE,
]


def runs(profile: str, seeds: int) -> list[RunSpec]:
    base = base_overrides(profile, QUICK, PAPER_SIZES)
    return grid_runs(OPTIMS, base, seeds)


def ratios(df, upto: float | None = None) -> dict:
    """run -> [lambda_E / lambda_W at each measured step > 0 (and <= `upto`)]."""
    cols = ["hessian/E_top", "hessian/W_top"]
    if df.empty or not all(c in df for c in cols):
        return {}
    sub = df.dropna(subset=cols)
    sub = sub[(sub["step"] > 0) & (sub["step"] <= (upto if upto is not None else math.inf))]
    return {run: (g["hessian/E_top"] / g["hessian/W_top"]).tolist() for run, g in sub.groupby("run")}


def analyze(df, out: Path, profile: str = "quick") -> tuple[list[Path], list[Claim]]:
    r = ratios(df)
    per = _medians(r)
    figs = _plot(df, out / "fig7") if r else []
    w, last = w_medians(df)
    upto = min((x for v in last.values() for x in v), default=None)  # the steps every run measured (an audit)
    common = (_medians(ratios(df, upto)), w_medians(df, upto)[0], upto) if upto else None
    return figs, claims(per, w, last, common) + timing_claims(df)  # the caption's timing sentence (fig7_timing.py)


def _medians(r: dict) -> dict:
    return {name: [median_censored(r[k]) for k in sorted(r) if k.startswith(f"{name}/")] for name in OPTIMS}


def w_medians(df, upto: float | None = None) -> tuple[dict, dict]:
    """({optimizer: [median lambda_max(H_WW) over each run's measured steps > 0 (and <= `upto`)]}, {optimizer: [each
    run's last measured step]}): the sentence's "W notably reduced", and the window each median covers."""
    if df.empty or "hessian/W_top" not in df:
        return {}, {}
    sub = df.dropna(subset=["hessian/W_top"])
    sub = sub[(sub["step"] > 0) & (sub["step"] <= (upto if upto is not None else math.inf))]
    g = {run: x for run, x in sub.groupby("run")}
    pick = lambda f: {n: [f(g[k]) for k in sorted(g) if k.startswith(f"{n}/")] for n in OPTIMS}  # noqa: E731
    return pick(lambda x: float(x["hessian/W_top"].median())), pick(lambda x: int(x["step"].max()))


def _plot(df, path: Path) -> list[Path]:
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, len(OPTIMS), figsize=(3.4 * len(OPTIMS), 3.0), sharey=True, squeeze=False)
        for ax, name in zip(axes[0], OPTIMS):
            g = df[(df["run"] == f"{name}/s0")].dropna(subset=["hessian/E_top"]).sort_values("step")
            g = g[g["step"] > 0]
            if g.empty:  # not trained (reproduce --only): an empty log axis cannot be drawn
                ax.set(title=f"{name}: no seed-0 run")
                continue
            ax.plot(g["step"], g["hessian/E_top"], "o-", ms=2, label="lambda_max(H_EE)")
            ax.plot(g["step"], g["hessian/W_top"], "s-", ms=2, label="lambda_max(H_WW)")
            acc = df[(df["run"] == f"{name}/s0")].sort_values("step")
            tw = ax.twinx()
            tw.plot(acc["step"], acc["test/acc"], color="gray", lw=0.8, ls=":")
            tw.set_ylim(0, 1.05)
            ax.set(xscale="log", title=f"{name} (seed 0; dotted: test acc)", xlabel="step")
            if (g[["hessian/E_top", "hessian/W_top"]] > 0).all().all() and len(g):
                ax.set_yscale("log")  # only when every value can be drawn on a log axis
        axes[0][0].legend()
        fig.suptitle("Figs. 7/9: top Hessian eigenvalue per block")
        fig.tight_layout()
        return save(fig, path, pdf=True)


def _log10(values: list) -> list[float]:
    return [math.log10(v) for v in values if v is not None and v > 0 and math.isfinite(v)]


def _parts(name: str, gap: dict, w: dict | None) -> dict:
    """'closer' by ranks, and 'W reduced' where each run's median lambda_W is given."""
    parts = {"closer": level_claim("closer", "", {"all": (gap[name], gap["adam"])}, (name, "adam"),
                                   "|log10(lambda_E / lambda_W)| of the run's median ratio")}
    if w and w.get(name) and w.get("adam"):
        parts["W reduced"] = level_claim("W reduced", "", {"all": (w[name], w["adam"])}, (name, "adam"),
                                         "median lambda_max(H_WW) over the run's measured steps")
    return parts


FLATTER = Revision("2026-11-28", "E flatter than W beyond noise: the CI of the geometric mean of lambda_E / lambda_W "
                   "below 1", "the CI below 0.1 (an order of magnitude, now the measurement beside it)",
                   "'significantly smaller' says nothing of a factor (Verdicts II, commit e7337a5, with both archives "
                   "judged)")


# "W notably reduced and closer to E": by ranks, both halves, since 2026-12-07 (a fresh read: a bootstrap over the
# paper profile's 3 seeds overstates certainty -- embdim made the same move -- and the first half went untested)
RANKED = Revision("2026-12-07", "|log10(lambda_E / lambda_W)| lower than Adam's by ranks (Mann-Whitney, exact "
                  "one-sided p), and each run's median lambda_W lower than Adam's by ranks ('W notably reduced')",
                  "a percentile-bootstrap CI of the difference of mean |log10 ratio| below 0; lambda_W untested",
                  "a fresh read: a bootstrap of 3 seeds overstates certainty, and half the sentence went untested")


def claims(per: dict, w: dict | None = None, last: dict | None = None, common: tuple | None = None) -> list[Claim]:
    """Ratios are judged on a log scale with a 95% bootstrap CI over seeds, so a verdict never turns on one
    seed's 0.111 against 0.1: "significantly smaller" needs the whole CI of the geometric mean below 1 (E flatter
    beyond noise), the measurement "an order of magnitude" below 0.1. "Closer" (and "W reduced", where `w` gives
    each run's median lambda_W) by ranks: P(a run of Adam-LR lies below a run of Adam), exact one-sided p."""
    adam = per.get("adam", [])
    m = boot_mean(_log10(adam))
    geo = {k: 10 ** m[k] if m[k] is not None else None for k in ("mean", "lo", "hi")}
    out = []
    for id, text, bound in (
            ("adam_E_much_flatter_than_W", "Under Adam, lambda_max(H_EE) is significantly smaller than "
             "lambda_max(H_WW).", SMALLER),
            ("adam_E_order_of_magnitude_flatter", "Under Adam, lambda_max(H_EE) is an order of magnitude below "
             "lambda_max(H_WW).", ORDER)):
        c = below(id, text, "log10 of the median over measured steps (> 0) of lambda_E / lambda_W (the mean: the "
                  f"log of the geometric mean; {bound:g} = 10^{math.log10(bound):g})", {"adam": _log10(adam)},
                  ["adam"], math.log10(bound),
                  {"ratio": {"geo_mean": geo["mean"], "lo": geo["lo"], "hi": geo["hi"], "threshold": bound}})
        c.per_seed = {"adam": adam, "adam log10": _log10(adam)}  # the ratio as measured, then on the statistic's scale
        out.append(c)
    out[0] = revised(out[0], out[1], FLATTER)  # the order of magnitude was this claim's rule until the change
    # "significantly" also reads as large: the replaced order-of-magnitude bar is a plausible reading, weighed beside
    # (a fresh read, 2026-12-07: where it decides the opposite the verdict depends on the reading)
    out[0] = weigh(out[0], "reading of 'significantly smaller'", "smaller beyond seed noise",
                   {"an order of magnitude (ratio below 0.1)": deepcopy(out[1])})
    if geo["mean"]:  # how much smaller, in the sentence's terms (an audit: "significantly" also reads as large)
        out[0].note = "; ".join(filter(None, [out[0].note, f"lambda_E is {1 / geo['mean']:.1f}x below lambda_W "
                                              f"(geometric mean ratio {geo['mean']:.2f}; an order of magnitude, "
                                              "0.1, is the measurement beside)"]))
    for name in ("adam_lr", "adam_lr_adaptive"):
        lr = per.get(name, [])
        gap = {k: [abs(x) for x in _log10(v)] for k, v in ((name, lr), ("adam", adam))}
        text = f"With {name}, lambda_max of W is reduced and those of E and W are closer than with Adam."
        was = contrast(f"{name}_closer", text, "|log10(lambda_E / lambda_W)| of the median ratio", gap, name, "adam",
                       -1)
        parts = _parts(name, gap, w)
        c = revised(all_of(f"{name}_closer", text, parts), was, RANKED)
        if common and common[0].get(name) and common[0].get("adam"):  # each median over the same steps (an audit)
            both = {k: [abs(x) for x in _log10(common[0][k])] for k in (name, "adam")}
            alt = all_of(c.id, text, _parts(name, both, common[1]))
            c = weigh(c, "window", "each run's own measured steps", {f"steps every run measured (<= {common[2]:,.0f})":
                                                                    alt})
        if last and last.get(name) and last.get("adam"):
            span = lambda v: f"{min(v)}-{max(v)}" if min(v) != max(v) else f"{v[0]}"  # noqa: E731
            c.note = "; ".join(filter(None, [c.note, f"each median covers its run's own measured steps, which end "
                                             f"at step {span(last[name])} ({name}) and {span(last['adam'])} (adam): "
                                             "a run stops when its study's stop rule ends it"]))
        c.per_seed = {"adam |log10|": gap["adam"], f"{name} |log10|": gap[name], "adam": adam, name: lr,
                      **({"adam lambda_W": w["adam"], f"{name} lambda_W": w[name]} if "W reduced" in parts else {})}
        out.append(c)
    return out
