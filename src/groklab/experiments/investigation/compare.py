"""Claims of paper 002 as comparisons over seeds: a difference of means with a bootstrap CI, or a rank trend.

A comparison holds only when its whole 95% interval lies on the claimed side of zero -- an effect larger than
seed-to-seed noise. Event times a run never reached are right-censored and compared with claims.sooner.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from groklab.experiments.claims import time_claim
from groklab.experiments.spec import Claim
from groklab.experiments.stats import boot_diff, boot_mean, spearman_boot
from groklab.experiments.variants import by_variant, curves, events, variant_of
from groklab.survival import Censored, km_median

TIMES = ("t_train", "t_test", "gap", "go_step", "onset", "t_90", "rise_time")


class Times(list):
    """Event times per seed: a step, `Censored(bound)` where the run ended without the event, None where the
    time is undefined (a gap whose fit never came)."""


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


def contrast(id: str, text: str, what: str, values: dict[str, list], a: str, b: str, sign: int,
             floor: float | None = None) -> Claim:
    """`a` minus `b` has the sign `sign` (+1 or -1) beyond seed noise, and with `floor` the mean of a reaches it
    (better than a dead run is not "generalizes"). Event times (a `Times` list) are compared as censored
    data (claims.sooner); levels by a difference of means with a 95% bootstrap CI: holds when the CI lies on
    the claimed side, does not hold when the point difference does not, else inconclusive (underpowered)."""
    va, vb = values.get(a, []), values.get(b, [])
    if isinstance(va, Times) or isinstance(vb, Times):
        later = {1: (b, a), -1: (a, b)}[sign]  # sign +1: a later, i.e. b reaches it first
        first, second = (values.get(x, []) for x in later)
        return time_claim(id, text, {"all": ([x for x in first if x is not None],
                                             [x for x in second if x is not None])}, later, what)
    d = boot_diff(va, vb)
    rel = {1: ">", -1: "<"}[sign]
    stat = (f"{what} per seed; difference of means {a} - {b} with a 95% percentile-bootstrap CI over seeds; "
            f"holds if the whole CI is {rel} 0" + ("" if floor is None else f" and the mean of {a} is >= {floor}") +
            "; does not hold if the difference is not; otherwise inconclusive")
    agg = {f"mean_{a}": boot_mean(va)["mean"], f"mean_{b}": boot_mean(vb)["mean"], "diff": d["diff"],
           "lo": d["lo"], "hi": d["hi"], "n": [len(va), len(vb)]}
    low = floor is not None and (agg[f"mean_{a}"] or 0.0) < floor
    c = Claim(id, text, stat, {a: va, b: vb}, agg, d["sign"] == sign and not low)
    if not c.holds and not low and d["diff"] is not None and d["diff"] * sign > 0:
        c.inconclusive("underpowered", f"the difference has the claimed sign but its CI holds 0 (n = "
                                       f"{len(va)}, {len(vb)})")
    return c


def within(id: str, text: str, what: str, values: dict[str, list], a: str, b: str, margin: float,
           floor: float | None = None) -> Claim:
    """Holds when the bootstrap CI of mean(values[a]) - mean(values[b]) lies inside [-margin, margin] (and, with
    `floor`, the mean of b reaches it: two runs that both learned nothing are not "the same")."""
    va, vb = values.get(a, []), values.get(b, [])
    d = boot_diff(va, vb)
    ok = margin > 0 and min(len(va), len(vb)) >= 2 and -margin <= d["lo"] and d["hi"] <= margin
    ok = ok and (floor is None or boot_mean(vb)["mean"] >= floor)
    stat = (f"{what} per seed; difference of means {a} - {b} with a 95% bootstrap CI; holds if the CI lies inside "
            f"[-{margin:.4g}, {margin:.4g}]" + ("" if floor is None else f" and the mean of {b} is >= {floor}"))
    c = Claim(id, text, stat + "; does not hold if it lies wholly outside; otherwise inconclusive", {a: va, b: vb},
              {"diff": d["diff"], "lo": d["lo"], "hi": d["hi"], "margin": margin, "n": [len(va), len(vb)]}, ok)
    censored = [x for x in (*va, *vb) if isinstance(x, Censored)]
    if censored:  # a mean of times some runs never reached is no number to test equivalence on
        return c.inconclusive("censored", f"{len(censored)} of {len(va) + len(vb)} runs never reached the event")
    floor_ok = floor is None or (boot_mean(vb)["mean"] or 0.0) >= floor
    if not ok and floor_ok and d["lo"] is not None and -margin <= d["hi"] and d["lo"] <= margin:
        c.inconclusive("underpowered", f"the CI straddles the margin (n = {len(va)}, {len(vb)})")
    return c


def trend(id: str, text: str, what: str, values: dict[str, list], xs: dict[str, float], sign: int) -> Claim:
    """Holds when Spearman rho between x and the per-cell mean has the sign `sign` with a bootstrap CI
    excluding 0 (seeds resampled within each cell; at least 2 seeds per cell). Event times (`Times`) are not
    averaged: the cells at the smallest and largest x are compared as censored data (claims.sooner)."""
    if any(isinstance(values.get(c), Times) for c in xs):  # censored times: the extreme cells, as censored data
        lo, hi = min(xs, key=xs.get), max(xs, key=xs.get)
        first, second = (hi, lo) if sign < 0 else (lo, hi)  # sign -1: the time falls as x grows
        return time_claim(id, text, {f"{first} vs {second}": ([v for v in values.get(first, []) if v is not None],
                                                             [v for v in values.get(second, []) if v is not None])},
                          (first, second), f"{what}; the cells at the smallest and the largest x compared")
    groups = {xs[c]: [float(v) for v in values[c] if v is not None] for c in xs if values.get(c)}
    groups = {x: v for x, v in groups.items() if v}
    r = spearman_boot(groups)
    spread = all(len(v) >= 2 for v in groups.values())  # one seed per cell: no noise estimate, no verdict
    ok = spread and r["lo"] is not None and (r["lo"] > 0 if sign > 0 else r["hi"] < 0)
    stat = (f"{what} per seed; Spearman rho between {', '.join(f'{c}={x}' for c, x in xs.items())} and the cell "
            f"means, 95% bootstrap CI; holds if the CI is {'>' if sign > 0 else '<'} 0")
    return Claim(id, text, stat, {c: values.get(c, []) for c in xs}, r, ok)


def draw(df: pd.DataFrame, out: Path, name: str, title: str, order: list[str]) -> list[Path]:
    have = set(df["run"].map(variant_of)) if not df.empty else set()
    return curves(df, out / name, title, [c for c in order if c in have])


def below(id: str, text: str, what: str, values: dict[str, list], cells: list[str], threshold: float) -> Claim:
    """Every cell's mean lies below `threshold`: holds when each 95% bootstrap CI lies wholly below it, does not
    hold when a cell's mean does not (a `Censored` value is a lower bound: a mean of bounds at or above the
    threshold already fails), otherwise inconclusive -- censored when runs hold only bounds, else underpowered."""
    ci = {c: boot_mean(values.get(c, [])) for c in cells}
    stat = (f"{what} per seed (a run without the event: its lower bound); mean with a 95% bootstrap CI per cell; "
            f"holds if every CI lies below {threshold}; does not hold if a mean is not below it; otherwise "
            "inconclusive")
    c = Claim(id, text, stat, {c: values.get(c, []) for c in cells},
              {f"{c}_{k}": v[k] for c, v in ci.items() for k in ("mean", "hi")}, False)
    if any(v["mean"] is None for v in ci.values()):
        return c.inconclusive("precondition", "a cell has no run with a value")
    high = [k for k, v in ci.items() if v["mean"] >= threshold]
    if high:
        c.note = f"the mean of {', '.join(high)} is not below {threshold}"
        return c
    bounded = sum(isinstance(x, Censored) for k in cells for x in values.get(k, []))
    if bounded:
        return c.inconclusive("censored", f"{bounded} runs never reached the event: their values are only bounded "
                                          "below, and the bounds lie below the threshold")
    if all(v["hi"] is not None and v["hi"] < threshold for v in ci.values()):
        c.holds = True
        return c
    return c.inconclusive("underpowered", f"a CI reaches {threshold} (n = {[ci[k]['n'] for k in cells]})")


def bounded_ratio(num, den, offset: float = 0.0):
    """(num - offset) / den for one run, where `num` may be censored (`Censored`: the event came later, so the
    ratio is only bounded below and stays `Censored`); None where either is undefined or `den` never came."""
    if num is None or den is None or isinstance(den, Censored):
        return None
    r = (float(num) - offset) / max(float(den), 1.0)
    return Censored(r) if isinstance(num, Censored) else r


def median_time(values: list) -> float | None:
    """The Kaplan-Meier median of censored values (None: not reached by half the runs, or no values)."""
    vals = [v for v in values if v is not None]
    return km_median(vals, max(map(float, vals)))["median"] if vals else None


def lag(t: dict, cells: list[str]) -> dict[str, list]:
    """(onset - t_train) / t_train per seed: < 0 when test accuracy starts rising before the training set is fit
    (no grokking gap), >> 0 when it waits; `Censored` (a lower bound) where the onset never came."""
    return {c: [bounded_ratio(o, f, offset=float(f)) if f is not None else None
                for o, f in zip(t["onset"].get(c, []), t["t_train"].get(c, []))]
            for c in cells}
