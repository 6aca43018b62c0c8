"""Each run's events as the protocol defines them: the fit t_fit (first eval with train accuracy >= fit_level),
grokking time T (held_from: test accuracy >= level for `persistence` steps) or censoring at the horizon; and the
pilot's count of grokking seeds per setting and fraction, which chose each setting's fraction."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from groklab.measures.curves import held_from


@dataclass(frozen=True)
class Events:
    t_fit: int | None  # None: the run never fit its training set
    T: int | None  # None: censored at the horizon (a failed or diverged run too)
    horizon: int

    @property
    def grokked(self) -> bool:
        return self.T is not None


def events(g: pd.DataFrame, event, horizon: int) -> Events:
    """One run's rows (step, train/acc, test/acc) -> its Events under the protocol's `event`."""
    g = g.dropna(subset=["test/acc"]).sort_values("step")
    fit = g.loc[g["train/acc"] >= event.fit_level, "step"]
    T = held_from(g["step"].tolist(), g["test/acc"].tolist(), event.level, event.persistence)
    last = int(g["step"].max()) if len(g) else 0
    # a streak that the run's end cuts short counts in held_from; here only a run that reached its horizon may
    # end on one (a run that failed part-way has not grokked)
    if T is not None and last < horizon and last - T < event.persistence:
        T = None
    return Events(int(fit.iloc[0]) if len(fit) else None, T, horizon)


def all_events(df: pd.DataFrame, event, horizon: int) -> dict[str, Events]:
    return {run: events(g, event, horizon) for run, g in df.groupby("run", sort=True)}


def pilot_found(df: pd.DataFrame, event, horizon: int) -> dict[str, dict[float, int]]:
    """setting -> fraction -> pilot seeds that grokked, from the pilot's runs (<setting>/f<fraction>/s<seed>)."""
    found: dict[str, dict[float, int]] = {}
    for run, e in all_events(df, event, horizon).items():
        setting, frac, _ = run.split("/")
        cell = found.setdefault(setting, {})
        cell[float(frac[1:])] = cell.get(float(frac[1:]), 0) + e.grokked
    return found

