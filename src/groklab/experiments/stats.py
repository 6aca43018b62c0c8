"""Per-run statistics from load_runs() metrics, and the small aggregates claims are stated in."""
from __future__ import annotations

import math
import statistics
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterable, Optional

import numpy as np
import pandas as pd

from groklab.measures.curves import grok_events, late_trend, rising

INF = math.inf
ALPHA = 0.05  # the error rate of one look at a study's runs
_looks: ContextVar[int] = ContextVar("looks", default=1)


def alpha() -> float:
    """The error rate a decision is held to now: ALPHA over the number of looks at the study's runs (Bonferroni;
    experiments/looks.py). Every p-value threshold and every interval's level (1 - alpha) reads it."""
    return ALPHA / _looks.get()


@contextmanager
def looking(n: int):
    """Judge the calls inside as the n-th look at a study's runs (its seeds raised n - 1 times after a verdict)."""
    token = _looks.set(max(1, int(n)))
    try:
        yield
    finally:
        _looks.reset(token)


_by_sign: ContextVar[bool] = ContextVar("by_sign", default=False)


@contextmanager
def by_sign():
    """Judge the calls inside by the rule of "does not hold" replaced on 2026-11-26 (posthoc.SIGN_RULE): the sign
    of a point estimate decided it (P <= 1/2, a mean or a difference on the wrong side), not evidence against the
    claim beyond noise. Only to show, beside today's verdict, what the replaced rule read on the same runs."""
    token = _by_sign.set(True)
    try:
        yield
    finally:
        _by_sign.reset(token)


def sign_decides() -> bool:
    """Whether the rule replaced on 2026-11-26 decides "does not hold" now (inside `by_sign`)."""
    return _by_sign.get()


def opposite(level: str) -> str:
    """The "does not hold" condition of an ordering rule, as its statistic states it (`level`: the p bar)."""
    return "P <= 1/2" if _by_sign.get() else f"the opposite order has p <= {level}"


def pct() -> str:
    """The level of the intervals decisions use now, as text: '95%' at one look, '99%' at five."""
    return f"{100 * (1 - alpha()):.4g}%"


def _level(level: Optional[float]) -> float:
    return 1.0 - alpha() if level is None else level


def run_table(df: pd.DataFrame, train_thr: float = 0.99, test_thr: float = 0.99, rise: float = 0.1) -> pd.DataFrame:
    """One row per run: config columns, status, last step, t_train, t_test, final and best accuracies, and
    `rising_test`: whether test accuracy was still rising where the run ended (measures.curves.still_rising: a
    run below a level it was to reach by the horizon is then censored there, not failed), with `late_rise_test`
    beside it: the rise that trend fits over the run's last quarter (measures.curves.late_trend's point).

    One sort of the evaluated rows by (run, step) and a slice per run: the per-run groupby, dropna and sort it
    replaces were most of judging a study of 400 runs."""
    if df.empty:
        return pd.DataFrame()
    g = df.dropna(subset=["test/acc"])  # rows of measures alone carry no accuracy
    g = g.iloc[np.lexsort((g["step"].to_numpy(), g["run"].to_numpy()))]
    if g.empty:
        return pd.DataFrame()
    run = g["run"].to_numpy()
    ends = np.r_[np.flatnonzero(run[1:] != run[:-1]) + 1, len(run)]
    steps, train, test = (g[c].to_numpy() for c in ("step", "train/acc", "test/acc"))
    keys = [k for k in g.columns if "/" not in k and k != "step"]  # config, run, status
    last = g.iloc[ends - 1][keys].to_dict("records")
    rows = []
    for a, b, row in zip(np.r_[0, ends[:-1]], ends, last):
        row.update(grok_events(steps[a:b], train[a:b], test[a:b], train_thr, test_thr, rise))
        trend = late_trend(steps[a:b], test[a:b])  # once: still_rising's rule on it, and its point beside
        row.update({"last_step": int(steps[b - 1]), "final_train": float(train[b - 1]),
                    "final_test": float(test[b - 1]), "max_test": float(test[a:b].max()),
                    "rising_test": rising(trend),
                    "late_rise_test": None if trend is None else trend[0]})
        rows.append(row)
    return pd.DataFrame(rows)


def select(table: pd.DataFrame, **where) -> pd.DataFrame:
    """Rows of `table` whose columns equal the given values; keys use '__' for '.' (task__name='add')."""
    mask = pd.Series(True, index=table.index)
    for key, value in where.items():
        col = key.replace("__", ".")
        if col not in table:
            return table.iloc[0:0]
        mask &= table[col] == value
    return table[mask].sort_values("seed")


def per_seed(table: pd.DataFrame, col: str, **where) -> list:
    """Values of `col` ordered by seed, None where a run has no value (e.g. t_test never reached)."""
    sub = select(table, **where)
    step = col.startswith("t_")  # event steps are integers (a column with a None reads as float)
    return [None if _missing(v) else (int(v) if step else _py(v)) for v in sub[col]]


def median_censored(values: Iterable[Optional[float]]) -> float:
    """Median where None means "not reached within the run" and counts as +inf (a right-censored time)."""
    vals = [INF if v is None else float(v) for v in values]
    return statistics.median(vals) if vals else math.nan


def value_at(df: pd.DataFrame, run: str, step: int, col: str = "test/acc") -> Optional[float]:
    """`col` at the last evaluation at or before `step` (an early-stopped run keeps its final value)."""
    g = df[(df["run"] == run) & (df["step"] <= step)]
    return None if g.empty else float(g.sort_values("step")[col].iloc[-1])


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _py(v):
    return v.item() if hasattr(v, "item") else v


def mean_ci(values: Iterable[Optional[float]], level: Optional[float] = None) -> dict:
    """Mean and a t-interval (level 1 - alpha() unless given) over the defined values: {"n", "mean", "lo", "hi"}
    (lo/hi None for n < 2)."""
    from scipy import stats as st

    level = _level(level)
    v = [float(x) for x in values if not _missing(x)]
    if not v:
        return {"n": 0, "mean": None, "lo": None, "hi": None}
    m = statistics.fmean(v)
    if len(v) < 2:
        return {"n": 1, "mean": m, "lo": None, "hi": None}
    half = st.t.ppf(0.5 + level / 2, len(v) - 1) * statistics.stdev(v) / math.sqrt(len(v))
    return {"n": len(v), "mean": m, "lo": m - half, "hi": m + half}


def spearman_boot(groups: dict, reps: int = 2000, seed: int = 0, level: Optional[float] = None) -> dict:
    """Spearman rho between a group key x and the mean of its per-seed values y, with a bootstrap CI (level
    1 - alpha() unless given: 95% at one look; seeds resampled within each group). groups: {x: [y per seed]}."""
    level = _level(level)
    from scipy.stats import rankdata, spearmanr

    xs = sorted(k for k, v in groups.items() if v)
    if len(xs) < 3:
        return {"rho": None, "lo": None, "hi": None}

    def rho(ys):  # equal means are no trend: rho 0, not an undefined resample to drop (that biased the CI)
        return 0.0 if len(set(ys)) == 1 else float(spearmanr(xs, ys).statistic)

    point = rho([statistics.fmean(groups[x]) for x in xs])
    rng = np.random.default_rng(seed)
    ys = [np.asarray(groups[x], dtype=float) for x in xs]
    means = [[float(np.mean(rng.choice(y, len(y)))) for y in ys] for _ in range(reps)]
    # rho depends on the means' ranks alone, and most resamples repeat a few orders: one spearmanr per distinct
    # order (ranks are exact halves, so rho is the very float spearmanr gives each resample; 2-10x faster)
    orders, which = np.unique(rankdata(means, axis=1), axis=0, return_inverse=True)
    boots = np.array([rho(order.tolist()) for order in orders])[which.ravel()]
    lo, hi = np.percentile(boots, [50 - 50 * level, 50 + 50 * level]).tolist()
    return {"rho": point, "lo": lo, "hi": hi}


def boot_mean(values: Iterable[Optional[float]], reps: int = 2000, level: Optional[float] = None,
              seed: int = 0) -> dict:
    """Mean over the defined values with a percentile-bootstrap CI (level 1 - alpha() unless given; seeds
    resampled with replacement):
    {"n", "mean", "lo", "hi"}; lo/hi None for n < 2. With 3 seeds the interval is close to the range of
    the resampled means, so it is narrow: read it with the per-seed values beside it."""
    level = _level(level)
    v = np.array([float(x) for x in values if not _missing(x)])
    if v.size == 0:
        return {"n": 0, "mean": None, "lo": None, "hi": None}
    if v.size < 2:
        return {"n": 1, "mean": float(v[0]), "lo": None, "hi": None}
    means = np.random.default_rng(seed).choice(v, (reps, v.size)).mean(1)
    lo, hi = np.percentile(means, [50 - 50 * level, 50 + 50 * level])
    return {"n": int(v.size), "mean": float(v.mean()), "lo": float(lo), "hi": float(hi)}


def boot_diff(a: Iterable[Optional[float]], b: Iterable[Optional[float]], reps: int = 2000,
              level: Optional[float] = None, seed: int = 0) -> dict:
    """mean(a) - mean(b) with a percentile-bootstrap CI (each group resampled on its own) and `sign`: +1 when
    the whole interval lies above 0, -1 below, 0 when it straddles 0 -- the effect is then within seed noise --
    or when a group has a single seed."""
    level = _level(level)
    va = np.array([float(x) for x in a if not _missing(x)])
    vb = np.array([float(x) for x in b if not _missing(x)])
    if va.size == 0 or vb.size == 0:
        return {"diff": None, "lo": None, "hi": None, "sign": 0}
    rng = np.random.default_rng(seed)
    d = rng.choice(va, (reps, va.size)).mean(1) - rng.choice(vb, (reps, vb.size)).mean(1)
    lo, hi = np.percentile(d, [50 - 50 * level, 50 + 50 * level])
    sign = 1 if lo > 0 else -1 if hi < 0 else 0
    if va.size < 2 or vb.size < 2:  # one seed has no spread to compare an effect against: no verdict
        sign = 0
    return {"diff": float(va.mean() - vb.mean()), "lo": float(lo), "hi": float(hi), "sign": sign}
