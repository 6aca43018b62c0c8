"""Token frequencies of a split and its Manhattan coverage of the (a, b) grid (004 Thm 3.12)."""
from __future__ import annotations

import math

import torch

from groklab.data.tables import Table
from groklab.errors import ConfigError


def token_counts(table: Table, idx: torch.Tensor) -> torch.Tensor:
    """[n_operands, p] counts of each value in each operand column among rows idx."""
    ops = table.operands[idx]
    return torch.stack([torch.bincount(ops[:, j], minlength=table.p) for j in range(table.n_operands)])


def token_rows(table: Table, idx: torch.Tensor) -> torch.Tensor:
    """[p] number of rows among idx in which each value appears as any operand (a row with a = b = t counts
    once): with one embedding table shared by the operand positions, how many training rows update token t."""
    seen = torch.zeros(len(idx), table.p, dtype=torch.bool)
    seen.scatter_(1, table.operands[idx], True)
    return seen.sum(0)


def _check_n(n) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ConfigError("n", n, "must be an integer ≥ 1 (cover = Manhattan distance < n)")


def _dilate(mask: torch.Tensor, wrap: bool) -> torch.Tensor:
    """One step of 4-neighbour growth on the last two (p x p) dims (a torus if wrap)."""
    out = mask.clone()
    if wrap:
        for dim in (-2, -1):
            out |= mask.roll(1, dim) | mask.roll(-1, dim)
    else:
        out[..., 1:, :] |= mask[..., :-1, :]
        out[..., :-1, :] |= mask[..., 1:, :]
        out[..., :, 1:] |= mask[..., :, :-1]
        out[..., :, :-1] |= mask[..., :, 1:]
    return out


def coverage(table: Table, train: torch.Tensor, test: torch.Tensor, n: int, wrap: bool = False,
             symmetric: bool = False, same_class: bool = False) -> float:
    """Fraction of test rows within Manhattan distance < n of some training row on the (a, b) grid.

    wrap=True measures distance on the torus Z_p x Z_p (004's proof of Thm 3.12 needs it: "each training
    point covers exactly C points"); the default is the plain grid. symmetric: a training row (a, b) also
    covers from (b, a) (a model with shared operand ids sees both orders of a symmetric task). same_class:
    only training rows with the test row's answer count (the equivalence classes of 004 Def 3.1).
    """
    if table.n_operands != 2:
        raise ConfigError("task.name", table.name, "coverage needs a 2-operand task")
    _check_n(n)
    if len(test) == 0:
        return 1.0  # vacuous: nothing to cover (a NaN here would stop a run for no reason)
    p, ops = table.p, table.operands
    a, b = ops[train, 0], ops[train, 1]
    if symmetric:
        a, b = torch.cat([a, b]), torch.cat([b, a])
    classes = torch.cat([table.y[train]] * (2 if symmetric else 1)) if same_class else torch.zeros_like(a)
    covered = torch.zeros(int(classes.max()) + 1 if len(classes) else 1, p, p, dtype=torch.bool)
    covered[classes, a, b] = True
    # Multi-source BFS: after s steps the mask holds every cell at distance <= s from train.
    # Beyond 2(p-1) steps nothing changes (the diameter of the grid).
    for _ in range(min(n - 1, 2 * (p - 1))):
        covered = _dilate(covered, wrap)
    test_class = table.y[test] if same_class else torch.zeros(len(test), dtype=torch.long)
    ok = test_class < covered.shape[0]
    hit = torch.zeros(len(test), dtype=torch.bool)
    hit[ok] = covered[test_class[ok], ops[test[ok], 0], ops[test[ok], 1]]
    return hit.float().mean().item()


def coverage_bound(p: int, frac_train: float, n: int) -> dict:
    """Thm 3.12 of 004: a point is uncovered w.p. ~exp(-alpha C); full coverage needs alpha >~ ln(p^2)/C.

    C = 2n^2 - 2n + 1 counts the points at Manhattan distance < n from one point (infinite grid).
    """
    _check_n(n)
    C = 2 * n * n - 2 * n + 1
    p_uncovered = math.exp(-frac_train * C)
    return {"C": C, "p_uncovered": p_uncovered, "expected_uncovered": p * p * p_uncovered,
            "alpha_needed": math.log(p * p) / C}


def covered_probability(table: Table, pool: torch.Tensor, n_train: int, cells: torch.Tensor, n: int,
                        wrap: bool = False, symmetric: bool = False) -> torch.Tensor:
    """P(cell is covered) for each of `cells` when train is n_train rows drawn uniformly without replacement
    from `pool`; a cell that is itself in the pool is taken as not drawn (it is a test cell).

    Exact: with m the pool cells that would cover it (distance < n, or the mirror within distance < n when
    symmetric) and P the pool size, P(uncovered) = C(P - m, n_train) / C(P, n_train).
    """
    if table.n_operands != 2:
        raise ConfigError("task.name", table.name, "coverage needs a 2-operand task")
    _check_n(n)
    p, ops = table.p, table.operands
    in_pool = torch.zeros(p * p, dtype=torch.bool)
    in_pool[ops[pool, 0] * p + ops[pool, 1]] = True
    offs = torch.tensor([(x, y) for x in range(-(n - 1), n) for y in range(-(n - 1 - abs(x)), n - abs(x))])
    a = ops[cells, 0, None] + offs[:, 0]  # [n_cells, C]
    b = ops[cells, 1, None] + offs[:, 1]
    if wrap:
        a, b, valid = a % p, b % p, torch.ones_like(a, dtype=torch.bool)
    else:
        valid = (a >= 0) & (a < p) & (b >= 0) & (b < p)
    codes = torch.where(valid, a * p + b, -1)
    if symmetric:
        codes = torch.cat([codes, torch.where(valid, b * p + a, -1)], 1)
    self_code = ops[cells, 0] * p + ops[cells, 1]
    codes = torch.where(codes == self_code[:, None], -1, codes).sort(1).values  # a test cell is not drawn
    fresh = torch.ones_like(codes, dtype=torch.bool)
    fresh[:, 1:] = codes[:, 1:] != codes[:, :-1]
    m = (fresh & (codes >= 0) & in_pool[codes.clamp(min=0)]).sum(1).tolist()
    own = in_pool[self_code].tolist()
    lg, out = math.lgamma, []
    for k, o in zip(m, own):
        P = len(pool) - int(o)  # the other pool cells
        out.append(1.0 - (math.exp(lg(P - k + 1) - lg(P - k - n_train + 1) - lg(P + 1) + lg(P - n_train + 1))
                          if P - k >= n_train else 0.0))
    return torch.tensor(out, dtype=torch.float64)


def expected_coverage(table: Table, pool: torch.Tensor, n_train: int, n: int, wrap: bool = False,
                      symmetric: bool = False) -> float:
    """Expected share of test rows covered when train is n_train uniform rows of `pool` and test is every
    other row (the holdout outside the pool, and the pool rows not drawn): sum of P(covered) over the
    expected test set, divided by its size. For a random split of the whole table this is 004 Thm 3.12's
    estimate without its approximations (finite grid, no independence, no union bound)."""
    rest = torch.ones(len(table), dtype=torch.bool)
    rest[pool] = False
    held = torch.nonzero(rest).flatten()
    h = covered_probability(table, pool, n_train, held, n, wrap, symmetric).sum().item() if len(held) else 0.0
    r = covered_probability(table, pool, n_train, pool, n, wrap, symmetric).sum().item()
    w = 1 - n_train / len(pool)  # each pool row is a test row with this probability
    return (h + w * r) / (len(held) + w * len(pool))
