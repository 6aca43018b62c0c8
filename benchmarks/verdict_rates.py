"""How often the claim vocabulary's ordering rule gives each verdict when the truth is known.

    python benchmarks/verdict_rates.py                       # n = 3, 5, 10 seeds; true P = 0.5 ... 0.9; 1 and 4 cells
    python benchmarks/verdict_rates.py --n 3 5 --P 0.7 --cells 4 --json benchmarks/results/verdict_rates.json

Times of arm A and arm B are drawn per seed from unit normals, B shifted so that a run of A comes first with
probability P (P = 0.5: no effect). Each draw is judged by `claims.sooner` -- the rule every "A before B" claim
uses (Gehan P(A first) > 1/2 with an exact one-sided p <= 0.05: holds; the opposite order with p <= 0.05: does
not hold; otherwise inconclusive) -- and a claim over k cells by `claims.every` (every cell must hold; one that
fails decides). The table gives the share of each verdict: with a real effect (P > 1/2) every "does not hold" is
a false one. Under the rule before 2026-11-26 (P <= 1/2: does not hold) a true P = 0.7 gave "does not hold" for
20% of one-cell and 58% of four-cell claims at 3 seeds per arm (docs/results.md has both tables).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy.stats import norm


def rates(n: int, P: float, cells: int, reps: int, seed: int = 0) -> dict[str, float]:
    """Share of holds / does not hold / inconclusive for a claim over `cells` cells of n seeds per arm."""
    from groklab.experiments.claims import every, sooner

    rng = np.random.default_rng(seed)
    shift = norm.ppf(P) * np.sqrt(2)  # P(a < b) = P for a ~ N(0, 1), b ~ N(shift, 1)
    tally = {"holds": 0, "does not hold": 0, "inconclusive": 0}
    for _ in range(reps):
        verdicts = {}
        for k in range(cells):
            a = 1000 + 100 * rng.normal(0, 1, n)  # positive event times; every run reaches the event
            b = 1000 + 100 * rng.normal(shift, 1, n)
            verdicts[str(k)] = sooner(a.tolist(), b.tolist(), horizon=10_000)["verdict"]
        v = every(verdicts)[0]
        tally[{True: "holds", False: "does not hold"}.get(v, "inconclusive")] += 1
    return {k: round(x / reps, 4) for k, x in tally.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[3, 5, 10], help="seeds per arm")
    ap.add_argument("--P", type=float, nargs="+", default=[0.5, 0.7, 0.8, 0.9], help="true P(a run of A first)")
    ap.add_argument("--cells", type=int, nargs="+", default=[1, 4], help="cells the claim must hold in")
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--json", type=Path, help="also write the table here")
    args = ap.parse_args()
    rows = []
    print(f"{'n':>3} {'true P':>6} {'cells':>5} {'holds':>7} {'not':>7} {'inconcl':>7}")
    for cells in args.cells:
        for n in args.n:
            for P in args.P:
                r = rates(n, P, cells, args.reps)
                rows.append({"n": n, "P": P, "cells": cells, **r})
                print(f"{n:>3} {P:>6.2f} {cells:>5} {r['holds']:>7.3f} {r['does not hold']:>7.3f} "
                      f"{r['inconclusive']:>7.3f}", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"reps": args.reps, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
