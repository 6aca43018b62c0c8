"""A run's measures as the protocol reads them: its state at a step (the last value at or before it, normalised
by the last value at or before the fit), the sign and threshold fixed on explore runs, the alarm, and AUROC with
stratified bootstrap intervals (vectorised: a draw is a pair of multinomial weight vectors)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from groklab.experiments.earlywarn.events import Events

FIT_STEP = "fit_step"  # the baseline whose state is t_fit itself


@dataclass(frozen=True)
class Series:
    """One run's values of one measure, its events and how the measure is normalised."""

    steps: np.ndarray
    values: np.ndarray
    ev: Events
    normalise: str = "relative"

    def at(self, step: float) -> float | None:
        """The last value at or before `step` (None before the first)."""
        i = np.searchsorted(self.steps, step, side="right") - 1
        return float(self.values[i]) if i >= 0 else None

    def state(self, step: float) -> float | None:
        """The value at `step` normalised at the fit; None where the run never fit or a value is missing."""
        if self.ev.t_fit is None:
            return None
        v, v0 = self.at(step), self.at(self.ev.t_fit)
        if v is None or v0 is None or not (math.isfinite(v) and math.isfinite(v0)):
            return None
        if self.normalise == "difference":
            return v - v0
        return v / v0 - 1.0 if v0 != 0 else None

    def after_fit(self) -> tuple[np.ndarray, np.ndarray]:
        """(steps, states) of every value after the fit."""
        v0 = self.at(self.ev.t_fit) if self.ev.t_fit is not None else None
        if v0 is None or not math.isfinite(v0) or (self.normalise == "relative" and v0 == 0):
            return np.array([], dtype=int), np.array([])
        keep = (self.steps > self.ev.t_fit) & np.isfinite(self.values)
        v = self.values[keep]
        return self.steps[keep], (v - v0 if self.normalise == "difference" else v / v0 - 1.0)


def series_of(df: pd.DataFrame, key: str, evs: dict[str, Events], normalise: str) -> dict[str, Series]:
    """run -> Series of metrics key `key` (runs without a value of it left out); FIT_STEP: t_fit as a constant."""
    out = {}
    for run, g in df.groupby("run", sort=True):
        ev = evs[run]
        if key == FIT_STEP:
            if ev.t_fit is not None:
                out[run] = Series(np.array([0]), np.array([float(ev.t_fit)]), ev, "level")
            continue
        if key not in g:
            continue
        g = g.dropna(subset=[key])
        if len(g):
            out[run] = Series(g["step"].to_numpy(), g[key].to_numpy(dtype=float), ev, normalise)
    return out


def level(s: Series, step: float) -> float | None:
    """A baseline's state: FIT_STEP's is t_fit (its 'level' normalisation), any other the normalised state."""
    return s.values[0] if s.normalise == "level" else s.state(step)


def labelled(series: dict[str, Series], after: int) -> tuple[np.ndarray, np.ndarray]:
    """(states, grokked) at t_fit + `after` over the runs that fit and had not grokked by then."""
    xs, ys = [], []
    for s in series.values():
        ev = s.ev
        if ev.t_fit is None or (ev.T is not None and ev.T <= ev.t_fit + after):
            continue
        x = level(s, ev.t_fit + after)
        if x is not None and math.isfinite(x):
            xs.append(x)
            ys.append(ev.grokked)
    return np.array(xs, dtype=float), np.array(ys, dtype=bool)


def pair_matrix(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    return (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])


def roc_points(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(false-positive rates, true-positive rates) of the alarm "state >= t" over every distinct t, from (0, 0)
    to (1, 1); tied states move both rates at once (the diagonal segment a tie makes)."""
    order = np.argsort(-x, kind="stable")
    xs, ys = x[order], y[order]
    last = np.r_[np.nonzero(np.diff(xs))[0], len(xs) - 1]  # the end of each run of equal states
    tp, fp = np.cumsum(ys)[last], np.cumsum(~ys)[last]
    return np.r_[0.0, fp / max(fp[-1], 1)], np.r_[0.0, tp / max(tp[-1], 1)]


def auroc(x: np.ndarray, y: np.ndarray) -> float:
    """P(a grokking run's state > a censored run's), ties a half; nan without both kinds."""
    pos, neg = x[y], x[~y]
    return float(pair_matrix(pos, neg).mean()) if len(pos) and len(neg) else float("nan")


def auroc_ci(x: np.ndarray, y: np.ndarray, reps: int, level: float, seed: int) -> tuple[float, float]:
    """Percentile interval of AUROC over `reps` draws of the grokking and censored runs, each with replacement
    within its own group (stratified)."""
    pos, neg = x[y], x[~y]
    if not (len(pos) and len(neg)):
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    w1 = rng.multinomial(len(pos), np.full(len(pos), 1 / len(pos)), size=reps)
    w0 = rng.multinomial(len(neg), np.full(len(neg), 1 / len(neg)), size=reps)
    draws = np.einsum("ri,ij,rj->r", w1, pair_matrix(pos, neg), w0) / (len(pos) * len(neg))
    a = (1 - level) / 2
    return float(np.quantile(draws, a)), float(np.quantile(draws, 1 - a))


def median_ci(v: np.ndarray, reps: int, level: float, seed: int) -> tuple[float, float, float]:
    """(median, percentile interval of the median over `reps` draws with replacement); nans when empty."""
    if not len(v):
        return float("nan"), float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    draws = np.median(v[rng.integers(0, len(v), size=(reps, len(v)))], axis=1)
    a = (1 - level) / 2
    return float(np.median(v)), float(np.quantile(draws, a)), float(np.quantile(draws, 1 - a))


def sign_on(x: np.ndarray, y: np.ndarray) -> int:
    """+1 if the AUROC of the states is >= 0.5 (or undefined), else -1: the direction fixed on explore runs."""
    a = auroc(x, y)
    return -1 if a == a and a < 0.5 else 1


def threshold_on(series: dict[str, Series], sign: int, fpr: float) -> float | None:
    """The ceil((1 - fpr) n)-th smallest of the n explore runs' largest sign * state after the fit, over those
    that fit and never grok; None when there is none (the measure cannot alarm)."""
    peaks = []
    for s in series.values():
        if s.ev.t_fit is None or s.ev.grokked or s.normalise == "level":
            continue
        _, st = s.after_fit()
        st = st[np.isfinite(st)]
        peaks.append(float((sign * st).max()) if len(st) else -math.inf)
    if not peaks:
        return None
    return sorted(peaks)[math.ceil((1 - fpr) * len(peaks)) - 1]


def alarm(s: Series, sign: int, threshold: float | None) -> int | None:
    """The first step after the fit with sign * state above the threshold; None without one."""
    if threshold is None or s.normalise == "level":
        return None
    steps, st = s.after_fit()
    hit = np.nonzero(sign * st > threshold)[0]
    return int(steps[hit[0]]) if len(hit) else None
