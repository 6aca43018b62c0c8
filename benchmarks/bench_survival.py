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

from groklab.survival import _gehan, _split, concordance


def pair_loop(a, b, horizon, max_exact=20000, reps=20000, seed=0) -> float:
    """The one-sided p of "A sooner" as concordance computed it until 2026-11-28: the pair loop per labelling."""
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
