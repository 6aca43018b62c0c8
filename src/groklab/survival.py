"""Event times that some runs never reach (t_test, t_train, onset): right-censored data, compared as such.

A run that stops at its horizon without the event is censored there: it tells us the event comes later, not
when. Imputing the horizon and averaging (what `stats.censor` + `boot_ratio` did) lets one hovering run
decide a comparison. Here, per group a list of times with None for "not reached by the horizon":

- `km_median`: the Kaplan-Meier median with its 95% interval (scipy.stats.ecdf on CensoredData; the
  interval is where the log-log confidence band of S(t) crosses 1/2, Brookmeyer & Crowley 1982); a bound
  the data cannot give is None ("beyond the horizon").
- `concordance`: Gehan's generalized Wilcoxon. P(a run of A reaches the event before a run of B), pairs
  that censoring leaves undecided counted as ties (1/2), with an exact (or Monte Carlo) permutation p-value
  of A != B. With no censoring it is the Mann-Whitney probability.
- `logrank`: scipy.stats.logrank's two-sided p-value.
- `stratified`: Gehan's P averaged over strata (cells, tuning studies), with a Monte Carlo permutation p-value whose
  labels are permuted within each stratum only, so strata that differ in scale do not mix.

They replace hand-written imputation; scipy does the survival estimation (no lifelines dependency).
"""
from __future__ import annotations

import functools
import itertools
import math
import warnings
from typing import Iterable, Optional, Sequence

import numpy as np
from scipy import stats


def _split(times: Iterable[Optional[float]], horizon: float) -> tuple[np.ndarray, np.ndarray]:
    """(time, observed): a number is an event at that time, None no event by the horizon, and
    `Censored(t)` no event by t (a run that ended early)."""
    t, observed = [], []
    for v in times:
        t.append(float(horizon) if v is None else float(v))
        observed.append(v is not None and not isinstance(v, Censored))
        if t[-1] > horizon:
            raise ValueError(f"a time {t[-1]} lies beyond the horizon {horizon}")
    return np.array(t, dtype=float), np.array(observed, dtype=bool)


class Censored(float):
    """A time at which a run was last seen without its event (it stopped before the horizon)."""


def censored_data(times: Sequence[Optional[float]], horizon: float) -> stats.CensoredData:
    t, obs = _split(times, horizon)
    return stats.CensoredData(uncensored=t[obs], right=t[~obs])


def km_median(times: Sequence[Optional[float]], horizon: float, level: float = 0.95) -> dict:
    """{"median", "lo", "hi", "n", "events"}: None where S(t) (or its band) never falls to 1/2 by the horizon."""
    times = list(times)
    n, events = len(times), int(_split(times, horizon)[1].sum())
    out = {"median": None, "lo": None, "hi": None, "n": n, "events": events}
    if events == 0:
        return out
    res = stats.ecdf(censored_data(times, horizon))
    q, s = res.sf.quantiles, res.sf.probabilities
    with warnings.catch_warnings():  # undefined where S(t) is 0 or 1: those points are read as 0 / 1 below
        warnings.simplefilter("ignore", RuntimeWarning)
        band = res.sf.confidence_interval(level, method="log-log")
    lo_s, hi_s = band.low.probabilities, band.high.probabilities
    first = lambda curve: next((float(x) for x, y in zip(q, curve) if y <= 0.5), None)  # noqa: E731
    out.update(median=first(s), lo=first(np.nan_to_num(lo_s, nan=0.0)), hi=first(np.nan_to_num(hi_s, nan=1.0)))
    return out


def first_share(a: Sequence, b: Sequence) -> Optional[float]:
    """P(a run of A reaches the event before a run of B) over all pairs, as _concordance's p_a_first (ties and
    pairs censoring leaves open count 1/2), without its permutation null: cheap enough to bootstrap."""
    if not len(a) or not len(b):
        return None
    return float(gehan(*_split(a, math.inf), *_split(b, math.inf)))


def pairs(ta, oa, tb, ob) -> np.ndarray:
    """Gehan's pair scores [..., n_a, n_b]: +1 where A's event comes first, -1 where B's does, 0 for ties and pairs
    censoring leaves open; (time, observed) arrays with any leading batch dimensions."""
    first = oa[..., :, None] & (ta[..., :, None] < tb[..., None, :])
    later = ob[..., None, :] & (tb[..., None, :] < ta[..., :, None])
    return first.astype(float) - later


def gehan(ta, oa, tb, ob) -> np.ndarray:
    """P(a run of A before a run of B), ties and open pairs 1/2, over the last two axes of `pairs`."""
    return pairs(ta, oa, tb, ob).mean(axis=(-2, -1)) / 2 + 0.5


def concordance(a: Sequence[Optional[float]], b: Sequence[Optional[float]], horizon: float,
                max_exact: int = 20000, reps: int = 20000, seed: int = 0) -> dict:
    """_concordance, remembered: a study asks the same comparison for a task and again for "all four" (its
    Monte Carlo null, 20,000 draws, is most of a re-judge's statistics)."""
    return dict(_concordance(tuple(a), tuple(b), horizon, max_exact, reps, seed))


@functools.lru_cache(maxsize=1024)
def _concordance(a: tuple, b: tuple, horizon: float, max_exact: int, reps: int, seed: int) -> dict:
    """{"p_a_first", "p_value", "p_a_sooner", "p_b_sooner", "n_a", "n_b", "undecided"}: the probability that a run
    of A reaches the event before a run of B (ties and pairs that censoring leaves open count 1/2; `undecided`
    counts the open ones) and Gehan's permutation p-values, two-sided (`p_value`) and one-sided for "A sooner"
    (`p_a_sooner`, and `p_b_sooner` for the opposite order); exact when the label permutations number at most
    `max_exact`."""
    at, ao = _split(a, horizon)
    bt, bo = _split(b, horizon)
    na, nb = len(at), len(bt)
    if na == 0 or nb == 0:
        return {"p_a_first": None, "p_value": None, "p_a_sooner": None, "p_b_sooner": None, "n_a": na, "n_b": nb,
                "undecided": None}
    decided = sum(1 for ta, oa in zip(at, ao) for tb, ob in zip(bt, bo)  # a tie of two events is decided: equal
                  if (oa and ta < tb) or (ob and tb < ta) or (oa and ob and ta == tb))
    pairs = na * nb
    # Mantel's form of the null: with U[i, j] the pair score over the pooled runs (antisymmetric), a labelling's
    # Gehan score is the sum of U's row sums over the runs it calls A -- one sum per labelling, not a pair loop
    # (that loop made the exact null of 10 vs 10 runs cost seconds)
    t, o = np.concatenate([at, bt]), np.concatenate([ao, bo])
    first = (o[:, None] & (t[:, None] < t[None, :])).astype(float)
    rows = (first - first.T).sum(1)
    score = float(rows[:na].sum())  # the observed labelling (A: the first na runs)
    if math.comb(na + nb, na) <= max_exact:  # the observed labelling is among them
        null, extra = rows[np.array(list(itertools.combinations(range(na + nb), na)))].sum(1), 0
    else:  # the observed labelling counts as one draw: a Monte Carlo p-value is never 0 (Phipson & Smyth 2010)
        null, extra = rows[_draws(na + nb, na, reps, seed)].sum(1), 1

    def share(hits) -> float:
        return float((np.sum(hits) + extra) / (len(null) + extra))
    return {"p_a_first": (score / pairs + 1) / 2, "p_value": share(np.abs(null) >= abs(score) - 1e-9),
            "p_a_sooner": share(null >= score - 1e-9), "p_b_sooner": share(null <= score + 1e-9),
            "n_a": na, "n_b": nb, "undecided": pairs - decided}


@functools.lru_cache(maxsize=8)
def _draws(n: int, k: int, reps: int, seed: int) -> np.ndarray:
    """The Monte Carlo null's labellings, [reps, k] (each k of n runs without replacement): they depend on the
    group sizes and the seed, not on the data, so every comparison of two groups of 30 shares one draw."""
    rng = np.random.default_rng(seed)
    out = np.array([rng.choice(n, k, replace=False) for _ in range(reps)])
    out.setflags(write=False)
    return out


def logrank(a: Sequence[Optional[float]], b: Sequence[Optional[float]], horizon: float) -> Optional[float]:
    """The log-rank test's two-sided p-value (None when a group is empty or nothing happens in either)."""
    if not a or not b or not (_split(a, horizon)[1].any() or _split(b, horizon)[1].any()):
        return None
    return float(stats.logrank(censored_data(a, horizon), censored_data(b, horizon)).pvalue)


def stratified(strata: Sequence[tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]],
               reps: int = 5000, seed: int = 0) -> dict:
    """{"p_a_first", "p_value", "p_a_sooner", "p_b_sooner", "strata"}: the mean over strata of P(a run of A before
    a run of B) (Gehan; ties and open pairs 1/2), from ((t_A, observed_A), (t_B, observed_B)) arrays per stratum;
    two-sided and one-sided Monte Carlo p-values ((count + 1) / (reps + 1)) with labels permuted within strata."""
    strata = [(a, b) for a, b in strata if len(a[0]) and len(b[0])]
    if not strata:
        return {"p_a_first": None, "p_value": None, "p_a_sooner": None, "p_b_sooner": None, "strata": 0}
    rng = np.random.default_rng(seed)
    obs, null = 0.0, np.zeros(reps)
    for (ta, oa), (tb, ob) in strata:
        obs += gehan(ta, oa, tb, ob) / len(strata)
        t, o, n = np.concatenate([ta, tb]), np.concatenate([oa, ob]), len(ta)
        idx = np.argsort(rng.random((reps, len(t))), axis=1)
        null += gehan(t[idx[:, :n]], o[idx[:, :n]], t[idx[:, n:]], o[idx[:, n:]]) / len(strata)
    tail = lambda hit: float((np.sum(hit) + 1) / (reps + 1))  # noqa: E731
    return {"p_a_first": float(obs), "p_value": tail(np.abs(null - 0.5) >= abs(obs - 0.5) - 1e-12),
            "p_a_sooner": tail(null >= obs - 1e-12), "p_b_sooner": tail(null <= obs + 1e-12), "strata": len(strata)}


def arrays(times: Sequence[Optional[float]]) -> tuple[np.ndarray, np.ndarray]:
    """(time, observed) arrays for `stratified`: None (never, by the horizon) sorts after every time."""
    return _split(times, math.inf) if len(times) else (np.zeros(0), np.zeros(0, dtype=bool))

