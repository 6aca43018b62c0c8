"""Helpers for studies that compare a few variants over seeds: run names `<variant>/s<seed>`."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from groklab.plots.curves import acc_grid


def events(df: pd.DataFrame) -> pd.DataFrame:
    """Per run: the run table's events plus `u_or_max` -- U-Acc, or when grokking never took off, the
    highest test accuracy after the training set was fit (what 004's table reports for STRIP k=67) --,
    `l_or_min` likewise (L-Acc, or the lowest test accuracy from that highest one's first eval on), and
    `h_or_max`, the holdout accuracy (holdout/acc, SQUARE/STRIP runs) at that same eval (None without one)."""
    from groklab.experiments.stats import run_table

    t = run_table(df)
    if t.empty:
        return t
    best, held, low = {}, {}, {}
    go_at = dict(zip(t["run"], t["go_step"])) if "go_step" in t else {}
    for run, g in df.dropna(subset=["test/acc"]).groupby("run"):
        g = g.sort_values("step")
        fit = g[g["train/acc"] >= 0.99]
        after = g[g["step"] >= fit["step"].min()] if len(fit) else g
        go = go_at.get(run)
        if go is not None and pd.notna(go):  # U-Acc: the first highest test accuracy from GO on
            after = g[g["step"] >= go]
        top = after["test/acc"].idxmax()
        row = after.loc[top]
        best[run] = float(row["test/acc"])
        low[run] = float(after["test/acc"].iloc[after.index.get_loc(top):].min())  # from the highest's first eval
        h = row.get("holdout/acc")
        held[run] = float(h) if h is not None and pd.notna(h) else None
    t["u_or_max"] = [u if pd.notna(u) else best[r] for r, u in zip(t["run"], t["u_acc"])]
    t["l_or_min"] = [v if pd.notna(v) else low[r] for r, v in zip(t["run"], t["l_acc"])]
    t["h_or_max"] = [held.get(r) for r in t["run"]]
    return t


def variant_of(run: str) -> str:
    return run.rsplit("/s", 1)[0]


def per_variant(df: pd.DataFrame, col: str, order=None) -> dict[str, list]:
    """{variant: [value of `col` per seed]} from the events table (None where undefined)."""
    return by_variant(events(df), col, order)


def by_variant(t: pd.DataFrame, col: str, order=None) -> dict[str, list]:
    """per_variant on an events table computed once (several columns read without rebuilding it)."""
    if t.empty:
        return {}
    t = t.assign(variant=t["run"].map(variant_of)).sort_values("seed")
    out = {v: [None if pd.isna(x) else float(x) for x in g[col]] for v, g in t.groupby("variant", sort=False)}
    return {v: out[v] for v in (order or out) if v in out}


def curves(df: pd.DataFrame, path: Path, title: str, order: list[str]) -> list[Path]:
    """Train (dashed) / test (solid) accuracy per variant, median over seeds with a min-max band."""
    if df.empty:
        return []
    df = df.assign(variant=df["run"].map(variant_of), panel="accuracy")
    return acc_grid(df, path, rows=None, cols="panel", line="variant", title=title, order={"variant": order})


def after_go(df: pd.DataFrame, col: str = "test/acc") -> dict[str, list]:
    """run -> `col` at each eval from the run's go_step on, in step order (empty where it has no GO)."""
    t = events(df).set_index("run")
    out = {}
    for run, g in df.dropna(subset=[col]).groupby("run"):
        go = t.loc[run, "go_step"] if run in t.index else None
        out[run] = g[g["step"] >= go].sort_values("step")[col].tolist() if pd.notna(go) else []
    return out


def drops_after_go(df: pd.DataFrame, drop: float = 0.05) -> dict[str, int]:
    """run -> number of test-accuracy drops of at least `drop` between consecutive evals from go_step on (the
    run summary's `drops` counts them over the whole run)."""
    return {run: int(sum(a - b >= drop for a, b in zip(acc[:-1], acc[1:]))) for run, acc in after_go(df).items()}
