"""Claims of paper 002 as comparisons over seeds: a difference of means with a bootstrap CI, or a rank trend.

A comparison holds only when its whole 95% interval lies on the claimed side of zero -- an effect larger than
seed-to-seed noise. Event times a run never reached count as the run's horizon (a lower bound; the statistic
says so).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from groklab.experiments.spec import Claim
from groklab.experiments.stats import boot_diff, boot_mean, censor, spearman_boot
from groklab.experiments.variants import by_variant, curves, events, variant_of

TIMES = ("t_train", "t_test", "gap", "go_step", "onset", "t_90", "rise_time")


def table(df: pd.DataFrame, cols=TIMES + ("drops", "final_test", "max_test", "u_acc")) -> dict[str, dict]:
    """{col: {cell: [value per seed]}}; times never reached are censored at the run's last step."""
    ev = events(df)  # one run table for every column
    out = {c: by_variant(ev, c) for c in cols}
    last = by_variant(ev, "last_step")
    for c in set(cols) & set(TIMES):
        out[c] = {v: censor(vals, max(x for x in last.get(v, [0]) if x is not None)) for v, vals in out[c].items()}
    return out


def contrast(id: str, text: str, what: str, values: dict[str, list], a: str, b: str, sign: int,
             floor: float | None = None) -> Claim:
    """Holds when mean(values[a]) - mean(values[b]) has the sign `sign` (+1 or -1) beyond seed noise (at least
    2 seeds each), and with `floor` the mean of a reaches it (better than a dead run is not "generalizes")."""
    va, vb = values.get(a, []), values.get(b, [])
    d = boot_diff(va, vb)
    rel = {1: ">", -1: "<"}[sign]
    stat = (f"{what} per seed; difference of means {a} - {b} with a 95% percentile-bootstrap CI over seeds; "
            f"holds if the whole CI is {rel} 0" + ("" if floor is None else f" and the mean of {a} is >= {floor}"))
    agg = {f"mean_{a}": boot_mean(va)["mean"], f"mean_{b}": boot_mean(vb)["mean"], "diff": d["diff"],
           "lo": d["lo"], "hi": d["hi"]}
    ok = d["sign"] == sign and (floor is None or (agg[f"mean_{a}"] or 0.0) >= floor)
    return Claim(id, text, stat, {a: va, b: vb}, agg, ok)


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
    return Claim(id, text, stat, {a: va, b: vb}, {"diff": d["diff"], "lo": d["lo"], "hi": d["hi"], "margin": margin},
                 ok)


def trend(id: str, text: str, what: str, values: dict[str, list], xs: dict[str, float], sign: int) -> Claim:
    """Holds when Spearman rho between x and the per-cell mean has the sign `sign` with a bootstrap CI
    excluding 0 (seeds resampled within each cell; at least 2 seeds per cell)."""
    groups = {xs[c]: values[c] for c in xs if values.get(c)}
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
    """Holds when, in every cell, the bootstrap CI of the mean lies wholly below `threshold`."""
    ci = {c: boot_mean(values.get(c, [])) for c in cells}
    ok = all(v["hi"] is not None and v["hi"] < threshold for v in ci.values())
    stat = f"{what} per seed; mean with a 95% bootstrap CI per cell; holds if every CI lies below {threshold}"
    return Claim(id, text, stat, {c: values.get(c, []) for c in cells},
                 {f"{c}_{k}": v[k] for c, v in ci.items() for k in ("mean", "hi")}, ok)


def lag(t: dict, cells: list[str]) -> dict[str, list]:
    """(onset - t_train) / t_train per seed: < 0 when test accuracy starts rising before the training set is fit
    (no grokking gap), >> 0 when it waits (times censored at the horizon)."""
    return {c: [(o - f) / max(f, 1.0) for o, f in zip(t["onset"].get(c, []), t["t_train"].get(c, []))]
            for c in cells}
