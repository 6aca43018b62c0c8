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


def rank_points(curves: dict, t_test) -> dict:
    """(definition, matrix) -> (rank at the first measure, at t_test (None if never), at the last, the largest
    |rank - first| over every measure: how far it strayed "throughout", and at the first measure from t_test +
    LATER on (None if never): after a collapse that runs past t_test), and the steps from t_test + LATER to the last
    measure (None without t_test; < 0 where the run ends before it)."""
    pts = {}
    for key, (steps, r) in curves.items():
        if len(r):
            seen = t_test is not None and t_test == t_test
            before = r[steps <= t_test] if seen else []
            late = r[steps >= t_test + LATER] if seen else []
            window = float(steps[-1] - t_test - LATER) if seen else None  # steps the later reading spans
            pts[key] = (float(r[0]), float(before[-1]) if len(before) else None, float(r[-1]),
                        float(np.abs(r - r[0]).max()), float(late[0]) if len(late) else None, window)
    return pts
