"""Gehan's permutation null, the pair loop it replaced against Mantel's row sums (survival.concordance), on the
same draws: a ratio of medians in one process (the verdict tutorial's time went mostly here).

    python benchmarks/bench_survival.py            # prints one line per size and the ratio
"""
from __future__ import annotations

import itertools
import math
import statistics
import time

import numpy as np

from groklab.survival import Censored, concordance


def _split(times, horizon):
    """(time, observed) as concordance reads them: None is no event by the horizon, Censored(t) none by t."""
    return (np.array([float(horizon) if v is None else float(v) for v in times]),
            np.array([v is not None and not isinstance(v, Censored) for v in times]))


def _gehan(a_t, a_o, b_t, b_o) -> float:
    """Sum over pairs of +1 (A's event first), -1 (B's first), 0 (a tie, or left open by censoring)."""
    score = 0.0
    for ta, oa in zip(a_t, a_o):
        for tb, ob in zip(b_t, b_o):
            if oa and ta < tb:
                score += 1
            elif ob and tb < ta:
                score -= 1
    return score


def pair_loop(a, b, horizon, max_exact=20000, reps=20000, seed=0) -> float:
    """The one-sided p of "A sooner" as concordance computed it until 2026-11-28: the pair loop per labelling
    (kept here, frozen, as the baseline)."""
    at, ao = _split(a, horizon)
    bt, bo = _split(b, horizon)
    na, nb = len(at), len(bt)
    t, o = np.concatenate([at, bt]), np.concatenate([ao, bo])

    def stat(chosen):
        mask = np.zeros(na + nb, dtype=bool)
        mask[list(chosen)] = True
        return _gehan(t[mask], o[mask], t[~mask], o[~mask])
    if math.comb(na + nb, na) <= max_exact:
        null, extra = np.array([stat(c) for c in itertools.combinations(range(na + nb), na)]), 0
    else:
        rng = np.random.default_rng(seed)
        null, extra = np.array([stat(rng.choice(na + nb, na, replace=False)) for _ in range(reps)]), 1
    score = _gehan(at, ao, bt, bo)
    return float((np.sum(null >= score - 1e-9) + extra) / (len(null) + extra))


def timed(fn, repeats: int = 5) -> float:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main() -> None:
    for n in (5, 8, 10):
        a = [100.0 + 50 * i for i in range(n)]
        b = [125.0 + 50 * i for i in range(n)]
        assert abs(pair_loop(a, b, 1e4) - concordance(a, b, 1e4)["p_a_sooner"]) < 1e-12  # the same null
        old, new = timed(lambda: pair_loop(a, b, 1e4)), timed(lambda: concordance(a, b, 1e4))
        print(f"{n} vs {n} runs: pair loop {old * 1e3:.1f} ms, row sums {new * 1e3:.1f} ms: {old / new:.1f}x")


if __name__ == "__main__":
    main()
