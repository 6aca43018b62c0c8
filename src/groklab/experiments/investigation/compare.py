"""Paper 002's run tables: per cell and seed the event times (right-censored where a run never reached them),
levels and lags its claims compare with the shared vocabulary (experiments/levels.py, experiments/claims.py)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from groklab.experiments.claims import Times, says
from groklab.experiments.spec import Claim
from groklab.experiments.variants import by_variant, curves, events, variant_of
from groklab.survival import Censored, km_median

TIMES = ("t_train", "t_test", "gap", "go_step", "onset", "t_90", "rise_time")


def table(df: pd.DataFrame, cols=TIMES + ("drops", "final_test", "max_test", "u_acc")) -> dict[str, dict]:
    """{col: {cell: [value per seed]}}; a time never reached is right-censored (survival.Censored) at the run's
    last step -- a gap (t_test - t_train) at last step - t_train, a rise time at last step - onset."""
    ev = events(df)  # one run table for every column
    out = {c: by_variant(ev, c) for c in cols}
    last, since = by_variant(ev, "last_step"), {"gap": "t_train", "rise_time": "onset"}
    for c in set(cols) & set(TIMES):
        start = by_variant(ev, since[c]) if c in since else {}
        out[c] = {v: Times(_censor(vals, last.get(v, []), start.get(v))) for v, vals in out[c].items()}
    return out


def _censor(vals: list, last: list, start: list | None) -> list:
    out = []
    for i, x in enumerate(vals):
        if x is not None:
            out.append(float(x))
            continue
        s = 0.0 if start is None else start[i]
        out.append(None if s is None or last[i] is None else Censored(last[i] - s))
    return out


def draw(df: pd.DataFrame, out: Path, name: str, title: str, order: list[str]) -> list[Path]:
    have = set(df["run"].map(variant_of)) if not df.empty else set()
    return curves(df, out / name, title, [c for c in order if c in have])


def bounded_ratio(num, den, offset: float = 0.0):
    """(num - offset) / den for one run, where `num` may be censored (`Censored`: the event came later, so the
    ratio is only bounded below and stays `Censored`); None where either is undefined or `den` never came."""
    if num is None or den is None or isinstance(den, Censored):
        return None
    r = (float(num) - offset) / max(float(den), 1.0)
    return Censored(r) if isinstance(num, Censored) else r


def end_state(t: dict, col: str, event: str) -> dict[str, list]:
    """{cell: [`col` per seed]} with the value of a run that never reached `event` (a time of `table`: t_test,
    t_train) as `Censored`: its end state lies beyond the horizon, so its last value is only a bound -- a claim
    about end states is then inconclusive (censored), not refuted by a run that had not finished."""
    ev = t.get(event, {})
    return {c: [Censored(float(v)) if v is not None and (e is None or isinstance(e, Censored)) else v
                for v, e in zip(vals, ev.get(c, [None] * len(vals)))] for c, vals in t.get(col, {}).items()}


def unconverged(claim, t: dict, cells: list[str], event: str = "t_test", what: str = "test accuracy 0.99"):
    """`claim` made inconclusive (censored) where runs of the compared `cells` never reached `event` within the
    horizon: a claim about how a run converges says nothing of runs that had not converged yet."""
    short = {c: sum(x is None or isinstance(x, Censored) for x in t.get(event, {}).get(c, [])) for c in cells}
    short = {c: n for c, n in short.items() if n}
    if short and claim.reason not in ("precondition", "censored"):
        was = says((claim.holds, claim.reason))
        claim.note = ""
        claim.inconclusive("censored", "; ".join(f"{c}: {n} of {len(t[event][c])} runs never reached {what} within "
                                                 "the horizon" for c, n in short.items()) + f" (read as they are, the "
                                                                                           f"rule {was})")
    return claim


def median_time(values: list) -> float | None:
    """The Kaplan-Meier median of censored values (None: not reached by half the runs, or no values)."""
    vals = [v for v in values if v is not None]
    return km_median(vals, max(map(float, vals)))["median"] if vals else None


def lag(t: dict, cells: list[str]) -> dict[str, list]:
    """(onset - t_train) / t_train per seed: < 0 when test accuracy starts rising before the training set is fit
    (no grokking gap), >> 0 when it waits; `Censored` (a lower bound) where the onset never came. Where the fit
    never came (t_train censored at the run's last step L) but the onset did, the lag is onset / t_train - 1 <
    onset / L - 1: that upper bound, a plain number -- conservative for "lag < 0" (the true lag lies lower)."""
    def one(o, f):
        if f is None:
            return None
        if isinstance(f, Censored):  # never fit within the run
            return None if o is None or isinstance(o, Censored) else float(o) / max(float(f), 1.0) - 1.0
        return bounded_ratio(o, f, offset=float(f))
    return {c: [one(o, f) for o, f in zip(t["onset"].get(c, []), t["t_train"].get(c, []))] for c in cells}


def needs_fit(claim: Claim, t: dict, cells: list[str]) -> None:
    """Inconclusive (precondition) where more than half of a compared cell's runs never fit the training set
    (t_train never reached: their gap is undefined, so what is left is not the cell's runs but its few that fit)."""
    unfit, some = {}, {}
    for cell in cells:
        fits = list(t.get("t_train", {}).get(cell, []))
        n = sum(x is None or isinstance(x, Censored) for x in fits)
        if fits and n > len(fits) / 2:
            unfit[cell] = f"{n} of {len(fits)}"
        elif n:  # a minority never fit: left out of the gaps, said (a fresh read found them dropped silently)
            some[cell] = f"{n} of {len(fits)}"
    if some:
        claim.note = "; ".join(filter(None, [claim.note, "; ".join(f"{k}: {v} runs never fit the training set (no "
                                                                   "gap: left out)" for k, v in some.items())]))
    if not unfit or claim.reason == "precondition":
        return
    was = says((claim.holds, claim.reason))
    why = ("; ".join(f"{k}: {v} runs never fit the training set" for k, v in unfit.items())
           + f"; judged on every run anyway (a run never fit contributing its bound), the rule {was}"
           + (f" ({claim.note})" if claim.note else ""))
    claim.aggregate["runs that never fit"] = unfit
    claim.note = ""
    claim.inconclusive("precondition", why)
