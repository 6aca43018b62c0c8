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

import pandas as pd
import torch

from groklab.data import coverage, expected_coverage, make_split, make_table

N_COVER = 5


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
            "n_train": len(s.train), "n_test": len(s.test)}
