"""Helpers for 004 studies that compare a few variants over seeds: run names `<variant>/s<seed>`."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from groklab.experiments.beyond.ceiling import events
from groklab.plots.curves import acc_grid


def variant_of(run: str) -> str:
    return run.rsplit("/s", 1)[0]


def per_variant(df: pd.DataFrame, col: str, order=None) -> dict[str, list]:
    """{variant: [value of `col` per seed]} from the events table (None where undefined)."""
    t = events(df)
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


def oscillation(df: pd.DataFrame, drop: float = 0.05) -> dict[str, int]:
    """run -> number of test-accuracy drops of at least `drop` between consecutive evals after go_step."""
    t = events(df).set_index("run")
    out = {}
    for run, g in df.dropna(subset=["test/acc"]).groupby("run"):
        go = t.loc[run, "go_step"] if run in t.index else None
        acc = g[g["step"] >= go].sort_values("step")["test/acc"].to_numpy() if pd.notna(go) else []
        out[run] = int(sum(a - b >= drop for a, b in zip(acc[:-1], acc[1:])))
    return out
