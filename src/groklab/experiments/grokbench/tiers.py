"""GrokBench II's statistics over repeated tuning studies: scores per study, tests that keep the studies apart,
Holm, tiers, leave-one-task-out and the held-out transfer.

Times are (step, observed) pairs: a run that never held the threshold is right-censored at the horizon (a diverged
run too: a failure at the horizon, never censored early). `times[method][task][study]` lists one study's
evaluation runs (its chosen configuration on the evaluation seeds); study k of every method shares its tuning
seed, so a method's study k is compared with the baseline's study k.

- Per method and task: P_k = P(a run of the method holds the threshold before a run of the baseline), Gehan's
  pair score within study k (pairs censoring leaves open count 1/2); the score is the median over studies (the
  AlgoPerf convention), its interval a two-level bootstrap (studies resampled, then runs within each), so the
  study-to-study spread is inside it. The test: the mean over studies of P_k against labels permuted within each
  study (a stratified Monte Carlo permutation test), two-sided; Holm over every (method, task) test.
- Across tasks: the mean over tasks of the score, its interval by the same bootstrap within every task.
- Tiers: methods in order of that mean; a method shares the tier of the tier's first method unless their difference
  (the mean over tasks of P(i before j), 1/2 for no difference) lies beyond 1/2 at a Holm-adjusted two-sided
  bootstrap level over every pair. Leave-one-task-out: the order and its leader recomputed without each task.
- Held out: each method's score on tasks never tuned on (its source task's choices carried over), against its
  score across the tuned tasks: Kendall's tau of the two orders.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np

from groklab.survival import gehan, pairs, stratified

REPS = 2000  # bootstrap resamples
PERMS = 5000  # Monte Carlo label permutations per test
LEVEL = 0.95


def as_arrays(times: Sequence) -> tuple[np.ndarray, np.ndarray]:
    """[(step, observed), ...] -> (steps, observed) arrays."""
    if not len(times):
        return np.zeros(0), np.zeros(0, dtype=bool)
    t, o = zip(*times)
    return np.asarray(t, dtype=float), np.asarray(o, dtype=bool)


def pair_score(a: tuple, b: tuple) -> Optional[float]:
    """P(a run of A before a run of B): Gehan's score over all pairs, ties and open pairs 1/2 (survival.gehan)."""
    return float(gehan(*a, *b)) if len(a[0]) and len(b[0]) else None


def score(a: dict, b: dict) -> Optional[float]:
    """The median over the studies both have of P_k(A before B); a, b: {study: arrays}."""
    ps = [pair_score(a[k], b[k]) for k in sorted(set(a) & set(b))]
    ps = [p for p in ps if p is not None]
    return float(np.median(ps)) if ps else None


def boot(rng, a: dict, b: dict, reps: int) -> np.ndarray:
    """`reps` two-level bootstrap draws of score(a, b): studies with replacement (study k of both together: they share
    the tuning seed), then runs within each drawn study. A resampled pair score is c_A' S c_B / (n_A n_B) with S the
    study's pair matrix and c the runs' multinomial counts, so each draw costs one small product, not a loop."""
    keys = sorted(set(a) & set(b))
    if not keys:
        return np.full(reps, np.nan)
    pick = rng.integers(0, len(keys), (reps, len(keys)))
    vals = np.empty((reps, len(keys)))
    for i, k in enumerate(keys):
        (ta, oa), (tb, ob) = a[k], b[k]
        if not len(ta) or not len(tb):
            vals[pick == i] = np.nan
            continue
        S = pairs(ta, oa, tb, ob)
        ca = rng.multinomial(len(ta), np.full(len(ta), 1 / len(ta)), size=(reps, len(keys)))
        cb = rng.multinomial(len(tb), np.full(len(tb), 1 / len(tb)), size=(reps, len(keys)))
        at = np.einsum("rji,ik,rjk->rj", ca, S, cb) / (len(ta) * len(tb)) / 2 + 0.5
        vals[pick == i] = at[pick == i]
    return np.nanmedian(vals, axis=1)


def interval(values: list, level: float = LEVEL) -> tuple[Optional[float], Optional[float]]:
    v = [x for x in values if x is not None and x == x]
    if not v:
        return None, None
    lo, hi = np.quantile(v, [(1 - level) / 2, (1 + level) / 2], method="lower")
    return float(lo), float(hi)


def stratified_p(a: dict, b: dict, perms: int = PERMS, seed: int = 0) -> Optional[float]:
    """Two-sided Monte Carlo p of the mean over studies of P_k(A before B), labels permuted within each study
    (survival.stratified)."""
    keys = sorted(set(a) & set(b))
    return stratified([(a[k], b[k]) for k in keys], perms, seed)["p_value"] if keys else None


def holm(pvalues: dict) -> dict:
    """Holm's step-down adjusted p-values (monotone, capped at 1); None stays None."""
    known = sorted((p, k) for k, p in pvalues.items() if p is not None)
    m, out, run = len(known), {k: None for k in pvalues}, 0.0
    for i, (p, k) in enumerate(known):
        run = max(run, min(1.0, (m - i) * p))
        out[k] = run
    return out


def per_task(times: dict, baseline: str, seed: int = 0, reps: int = REPS) -> dict:
    """{(method, task): {"score", "lo", "hi", "per_study", "p_value", "p_holm"}} against the baseline."""
    rng = np.random.default_rng(seed)
    out, raw = {}, {}
    for m, tasks in times.items():
        for task, per in tasks.items():
            base = times[baseline][task]
            if m == baseline:
                out[(m, task)] = {"score": 0.5, "lo": 0.5, "hi": 0.5, "per_study": [0.5] * len(per), "p_value": None}
                continue
            draws = boot(rng, per, base, reps)
            lo, hi = interval(list(draws))
            raw[(m, task)] = stratified_p(per, base, seed=seed)
            out[(m, task)] = {"score": score(per, base), "lo": lo, "hi": hi, "p_value": raw[(m, task)],
                              "per_study": [pair_score(per[k], base[k]) for k in sorted(set(per) & set(base))]}
    for k, p in holm(raw).items():
        out[k]["p_holm"] = p
    for k in out:
        out[k].setdefault("p_holm", None)
    return out


def across(times: dict, baseline: str, tasks: list, seed: int = 0, reps: int = REPS) -> dict:
    """{method: {"score", "lo", "hi"}}: the mean over `tasks` of the per-task score, two-level bootstrap within
    every task (the baseline's studies resampled with the method's)."""
    rng = np.random.default_rng(seed)
    out = {}
    if not tasks:
        return {m: {"score": None, "lo": None, "hi": None, "tasks": 0} for m in times}
    for m in times:
        point = [0.5 if m == baseline else score(times[m][t], times[baseline][t]) for t in tasks]
        point = [p for p in point if p is not None]
        draws = [] if m == baseline or not reps else list(
            np.mean([boot(rng, times[m][t], times[baseline][t], reps) for t in tasks], axis=0))
        lo, hi = (0.5, 0.5) if m == baseline else interval(draws)
        out[m] = {"score": float(np.mean(point)) if point else None, "lo": lo, "hi": hi, "tasks": len(tasks)}
    return out


def pairwise(times: dict, tasks: list, seed: int = 0, reps: int = REPS) -> dict:
    """{(i, j): {"score", "p_value"}} for every ordered pair i != j: the mean over tasks of the median over studies
    of P(i before j), and a two-sided bootstrap p of its difference from 1/2 (twice the smaller tail share)."""
    rng = np.random.default_rng(seed)
    names, out = list(times), {}
    for x, i in enumerate(names):
        for j in names[x + 1:]:
            pt = np.mean([score(times[i][t], times[j][t]) for t in tasks])
            draws = np.mean([boot(rng, times[i][t], times[j][t], reps) for t in tasks], axis=0)
            p = min(1.0, 2 * min(np.mean(draws <= 0.5), np.mean(draws >= 0.5)))
            out[(i, j)] = {"score": float(pt), "p_value": float(p)}
            out[(j, i)] = {"score": float(1 - pt), "p_value": float(p)}
    return out


def tiers(order: list[str], pairs: dict, alpha: float = 1 - LEVEL) -> dict[str, int]:
    """{method: tier} down `order` (best first): a method joins the current tier unless it differs from the tier's
    first method at Holm-adjusted p <= alpha over every unordered pair; then it opens the next tier."""
    adj = holm({(i, j): pairs[(i, j)]["p_value"] for (i, j) in pairs if order.index(i) < order.index(j)})
    out, head, tier = {}, None, 0
    for m in order:
        if head is None or (adj.get((head, m)) is not None and adj[(head, m)] <= alpha):
            head, tier = m, tier + 1
        out[m] = tier
    return out


def leave_one_out(times: dict, baseline: str, tasks: list) -> list[dict]:
    """Per task left out: the order by the mean score over the others and its leader."""
    out = []
    for drop in tasks:
        rest = [t for t in tasks if t != drop]
        agg = across(times, baseline, rest, reps=0)  # the points alone
        order = sorted(agg, key=lambda m: -(agg[m]["score"] if agg[m]["score"] is not None else -math.inf))
        out.append({"left_out": drop, "leader": order[0], "order": order})
    return out


def transfer(tuned: dict, held: dict) -> dict:
    """Kendall's tau between the methods' scores across the tuned tasks and across the held-out ones."""
    from scipy.stats import kendalltau

    common = [m for m in tuned if tuned[m]["score"] is not None and held.get(m, {}).get("score") is not None]
    if len(common) < 3:
        return {"tau": None, "p_value": None, "n": len(common)}
    res = kendalltau([tuned[m]["score"] for m in common], [held[m]["score"] for m in common])
    return {"tau": float(res.statistic), "p_value": float(res.pvalue), "n": len(common)}


__all__ = ["across", "as_arrays", "boot", "holm", "interval", "leave_one_out", "pair_score", "pairwise", "per_task",
           "score", "stratified_p", "tiers", "transfer"]
