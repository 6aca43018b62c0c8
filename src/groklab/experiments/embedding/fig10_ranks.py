"""Ranks of E, W and EW from their stored singular values (Fig. 10 of paper 000): four definitions, the curves,
and the points the claims read."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from groklab.store import array_series

DEFS = {"rtol1e-2": 1e-2, "rtol1e-3": 1e-3, "rtol1e-4": 1e-4, "stable": None}  # None: stable rank
MATS = ("E", "W", "EW")


def rank_of(s: np.ndarray, definition: str) -> float:
    """The rank of a matrix with singular values `s` (descending) under one of DEFS."""
    s = np.asarray(s, dtype=np.float64)
    if s.size == 0 or s[0] <= 0:
        return 0.0
    rtol = DEFS[definition]
    return float((s ** 2).sum() / s[0] ** 2) if rtol is None else float((s > rtol * s[0]).sum())


def rank_curves(out: Path, run: str) -> dict:
    """(definition, matrix) -> (steps, ranks) from the run's stored singular values."""
    curves = {}
    for m in MATS:
        steps, sv = array_series(out / run, f"sv/{m}") if (out / run).is_dir() else ([], [])
        for d in DEFS:
            curves[d, m] = (np.asarray(steps), np.array([rank_of(s, d) for s in sv]))
    return curves


LATER = 1000  # steps after t_test from which the later reading of "after generalization" starts (a fresh read)


def settled(steps: np.ndarray, r: np.ndarray, tol: float) -> float:
    """The first step from which every later rank stays within tol of the last one (relative): where a curve
    settles, read off the curve rather than its endpoints (a fresh read, 2026-12-07)."""
    off = np.abs(r - r[-1]) > tol * max(abs(r[-1]), 1e-12)
    return float(steps[np.flatnonzero(off)[-1] + 1]) if off.any() else float(steps[0])


def rank_points(curves: dict, t_test, tol: float = 0.1) -> dict:
    """(definition, matrix) -> (rank at the first measure, at t_test (None if never), at the last, the largest
    |rank - first| over every measure: how far it strayed "throughout", and at the first measure from t_test +
    LATER on (None if never): after a collapse that runs past t_test), the steps from t_test + LATER to the last
    measure (None without t_test; < 0 where the run ends before it), the step it settles at (settled, within tol)
    and the last measure's step."""
    pts = {}
    for key, (steps, r) in curves.items():
        if len(r):
            seen = t_test is not None and t_test == t_test
            before = r[steps <= t_test] if seen else []
            late = r[steps >= t_test + LATER] if seen else []
            window = float(steps[-1] - t_test - LATER) if seen else None  # steps the later reading spans
            pts[key] = (float(r[0]), float(before[-1]) if len(before) else None, float(r[-1]),
                        float(np.abs(r - r[0]).max()), float(late[0]) if len(late) else None, window,
                        settled(steps, r, tol), float(steps[-1]))
    return pts


def _span(xs: list) -> str:
    lo, hi = min(xs), max(xs)
    return f"{lo:,.0f}" if lo == hi else f"{lo:,.0f}-{hi:,.0f}"


def settle_text(curve: dict, tol: float) -> str:
    """What the rank(EW) curves do after t_test, per setup (name -> rank_points tuples, None where missing): from
    the first rank and the rank at t_test to the end rank, the steps where it settles (within tol of its end value
    from then on) and how long it holds there; where every run holds for at least a tenth of its steps, that the
    change after t_test is the collapse ending (a fresh read, 2026-12-07: "too soon to show" hid flat stretches)."""
    parts, held, ends = [], [], []
    for n, vs in curve.items():
        vs = [v for v in vs if v is not None]
        if not vs:
            continue
        at = [v[1] for v in vs if v[1] is not None]
        parts.append(f"{n}: {_span([v[0] for v in vs])} -> {_span(at) + ' at t_test -> ' if at else ''}"
                     f"{_span([v[2] for v in vs])}, settled from step {_span([v[6] for v in vs])}")
        held += [v[7] - v[6] for v in vs]
        ends += [v[7] for v in vs]
    if not parts:
        return ""
    flat = all(h >= 0.1 * e for h, e in zip(held, ends))
    return (f"the rank(EW) curves instead (settled: within {tol:.0%} of the end value from then on): "
            + "; ".join(parts)
            + f"; each run holds its end rank for its last {_span(held)} steps"
            + (": a change after t_test is the collapse ending, in every setup, not a rank that keeps changing"
               if flat else ""))
