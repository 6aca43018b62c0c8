"""GrokBench's statistics: times to grok as censored data, per (method, task) and across tasks.

- Time to grok: the first evaluation with test accuracy >= the threshold, in steps and in wall seconds; a run
  that never gets there is right-censored at its last step (and last second), never filled in.
- Per method and task: Kaplan-Meier median with its 95% interval (survival.km_median, scipy's ecdf: what
  lifelines' KaplanMeierFitter would give), the count that grokked, and P(improvement) over the baseline: the
  probability that a run of the method groks before a run of the baseline (Gehan's pair score; pairs that
  censoring leaves open count 1/2) with its permutation p-value (survival.concordance).
- Across tasks (rliable's aggregates, Agarwal et al. 2021, written for censored times here rather than taking
  the package, whose arch/seaborn/absl dependencies outweigh these lines): the mean over tasks of P(improvement),
  and the interquartile mean (IQM) of time / horizon over all evaluation runs -- exact under censoring as long
  as at most a quarter of the runs are censored at the horizon (they all fall in the trimmed top quarter), else
  reported as undefined -- each with a stratified bootstrap 95% interval (runs resampled within task).
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np

from groklab.survival import Censored, concordance, first_share, km_median

REPS = 2000  # bootstrap resamples of the aggregates


def grok_times(df, thr: float) -> dict[str, tuple]:
    """{run: (steps, wall_s)} to test accuracy >= thr; Censored at the run's last step / second where never."""
    out = {}
    for run, g in df.sort_values(["run", "step"]).groupby("run", sort=False):
        hit = g[g["test/acc"] >= thr]
        wall = g["time/wall_s"] if "time/wall_s" in g else g["step"] * math.nan
        if len(hit):
            out[run] = (float(hit["step"].iloc[0]), float(wall[hit.index[0]]))
        else:
            out[run] = (Censored(float(g["step"].iloc[-1])), Censored(float(wall.iloc[-1])))
    return out


def cell(times: Sequence, walls: Sequence, base: Optional[Sequence], horizon: float) -> dict:
    """The leaderboard's numbers for one (method, task): n, grokked, KM median steps [lo, hi], KM median wall
    seconds, P(improvement) over the baseline's times `base` and its two-sided permutation p-value."""
    km = km_median(list(times), horizon)
    wall_h = max([float(w) for w in walls if not math.isnan(float(w))] or [math.nan])
    wall = km_median(list(walls), wall_h)["median"] if wall_h == wall_h else None
    out = {"eval_seeds": len(times), "grokked": km["events"], "median_steps": km["median"], "ci_low": km["lo"],
           "ci_high": km["hi"], "median_wall_s": wall, "p_improvement_vs_baseline": None, "p_value": None}
    if base is not None:
        c = concordance(list(times), list(base), horizon)
        out.update(p_improvement_vs_baseline=c["p_a_first"], p_value=c["p_value"])
    return out


def iqm(values: np.ndarray, censored: np.ndarray) -> Optional[float]:
    """Interquartile mean of values (the middle half, rliable's convention: trim 25% each side); None when more
    than a quarter are censored (a censored value could then fall in the middle half, where it is not known)."""
    n = len(values)
    if n == 0 or censored.sum() > n // 4:
        return None
    v = np.sort(values)
    k = n // 4
    return float(v[k:n - k].mean())


def aggregate(times: dict[str, dict[str, list]], horizons: dict[str, float], baseline: str, seed: int = 0,
              level: float = 0.95) -> dict[str, dict]:
    """{method: {"tasks", "p_improvement", "p_lo", "p_hi", "iqm", "iqm_lo", "iqm_hi"}} from times[method][task]
    (evaluation runs' steps, Censored where never): P(improvement) over the baseline averaged over tasks, and
    the IQM of steps / horizon pooled over tasks, with stratified bootstrap intervals (runs resampled within
    each task, the baseline's too)."""
    rng = np.random.default_rng(seed)
    tasks = sorted(set.intersection(*[set(t) for t in times.values()])) if times else []

    def stat(sample: dict, base: dict, is_base: bool) -> tuple:
        p = [0.5 if is_base else first_share(sample[k], base[k]) for k in tasks]
        vals = np.array([float(x) / horizons[k] for k in tasks for x in sample[k]])
        cens = np.array([isinstance(x, Censored) for k in tasks for x in sample[k]], dtype=bool)
        return (float(np.mean(p)) if p else None), iqm(vals, cens)

    def resample(per: dict) -> dict:
        return {k: [per[k][i] for i in rng.integers(0, len(per[k]), len(per[k]))] for k in tasks}

    out = {}
    for method, per in times.items():
        point = stat(per, times[baseline], method == baseline)
        reps = [stat(resample(per), resample(times[baseline]), method == baseline) for _ in range(REPS)]
        out[method] = {"tasks": len(tasks), "p_improvement": point[0], "iqm": point[1],
                       **_band("p", [r[0] for r in reps], level), **_band("iqm", [r[1] for r in reps], level)}
    return out


def _band(name: str, values: list, level: float) -> dict:
    """Percentile interval of the bootstrap values. A resample whose IQM is undefined (too many censored) had a
    large one: it counts as +inf, so it can only widen the upper end, which is then None (unbounded)."""
    if not values:
        return {f"{name}_lo": None, f"{name}_hi": None}
    v = np.array([math.inf if x is None else x for x in values], dtype=float)
    lo, hi = np.quantile(v, [(1 - level) / 2, (1 + level) / 2], method="lower")
    return {f"{name}_lo": float(lo) if math.isfinite(lo) else None,
            f"{name}_hi": float(hi) if math.isfinite(hi) else None}


__all__ = ["aggregate", "cell", "grok_times", "iqm"]
