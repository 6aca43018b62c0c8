"""Coverage ceilings of a run's split (004 Thm 3.10-3.12, Remark 3.11).

A test pair can only be imitated from training pairs nearby (Thm 3.10): the share of test pairs within
Manhattan distance < n of a training pair bounds the test accuracy grokking can reach. We use the torus
(the proof of Thm 3.12 needs every point to cover exactly C = 2n^2 - 2n + 1 points), n = 5 (the smallest n
whose bound ln(p^2)/C lies below 004's 30% at p = 97; the paper never states n), and, when the operands share
token ids (004's model) and the task is symmetric (a + b), a training pair (a, b) also covers from (b, a).
Uncovered pairs can still be right by chance (1/p): ceiling = cov + (1 - cov) / p. Reported: the exact coverage of each
run's actual split, and the expected coverage over random training sets of the same size (exact
hypergeometric form of Thm 3.12's estimate).
"""
from __future__ import annotations

from functools import lru_cache

import pandas as pd
import torch

from groklab.data import coverage, expected_coverage, make_split, make_table

N_COVER = 5
N_RANGE = tuple(range(1, 21))  # the distances n the ceiling is also reported at (004 never fixes n)


def split_of(row) -> tuple:
    """The (table, split) a run trained on, rebuilt from its config columns."""
    expr = row.get("task.expr")
    table = make_table(row["task.name"], int(row["p"]), expr=expr if isinstance(expr, str) else None)
    k = row.get("split.k")
    split = make_split(table, row["split.name"], frac_train=float(row["split.frac_train"]),
                       seed=int(row["split.seed"]), k=None if pd.isna(k) else int(k),
                       frac_of=row.get("split.frac_of", "table"))
    return table, split


def ceilings(row, n: int = N_COVER) -> dict:
    """Exact and expected coverage ceilings (chance-corrected) of one run's split; mirror pairs count when the
    operands share token ids (encoding eq / op / no_op) and the task is symmetric."""
    table, s = split_of(row)
    grid = table.y.view(table.p, -1) if len(table) == table.p ** 2 else None  # y[a, b] (div lacks b = 0)
    symmetric = row.get("encoding") not in ("sep", "offset") and grid is not None and bool((grid == grid.T).all())
    p = table.p
    exact = coverage(table, s.train, s.test, n, wrap=True, symmetric=symmetric)
    pool = torch.ones(len(table), dtype=torch.bool)
    pool[s.holdout] = False
    expected = expected_coverage(table, torch.nonzero(pool).flatten(), len(s.train), n, wrap=True,
                                 symmetric=symmetric)
    lift = lambda c: c + (1 - c) / p  # noqa: E731
    return {"ceiling": lift(exact), "ceiling_expected": lift(expected), "coverage": exact,
            "n_train": len(s.train), "n_test": len(s.test), "symmetric": symmetric}


@lru_cache(maxsize=4096)
def expected_ceiling(name: str, k: int | None, p: int, n: int, frac: float = 0.3, task: str = "add",
                     symmetric: bool = True) -> float:
    """Chance-corrected expected coverage ceiling at distance n for a random training set of frac * p^2 rows
    drawn outside a SQUARE/STRIP holdout (k None: the random split), as 004's code draws it."""
    table = make_table(task, p)
    s = make_split(table, name, frac_train=frac, seed=0, k=k)
    pool = torch.ones(len(table), dtype=torch.bool)
    pool[s.holdout] = False
    rows = torch.nonzero(pool).flatten()
    c = expected_coverage(table, rows, len(s.train), n, wrap=True, symmetric=symmetric)
    return c + (1 - c) / p


def smallest_n(u: dict, ceiling, ns=N_RANGE) -> int | None:
    """The smallest n of ns at which every row's U-Acc (row -> value) lies at or below ceiling(row, n): the
    distance a coverage bound needs to be consistent with those numbers; None if no n is. A row that fails is
    tried first at the next n, so most (row, n) ceilings are never computed."""
    order = list(u)
    for n in ns:
        bad = next((r for r in order if u[r] > ceiling(r, n) + 1e-9), None)
        if bad is None:
            return n
        order.remove(bad)
        order.insert(0, bad)
    return None


def holdout_share(split: str, k, p: int, n_test: int) -> float | None:
    """The holdout's share of the test set: (k+1)^2 rows for SQUARE (a, b <= k), (k+1) p for STRIP (a <= k)."""
    if split.startswith("square"):
        return (int(k) + 1) ** 2 / n_test
    if split.startswith("strip"):
        return (int(k) + 1) * p / n_test
    return None
