"""Train/test splits of a task table; each is a pure function of (table, arguments, seed)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import torch
from scipy.sparse.csgraph import maximum_flow

from groklab.config import SPLITS
from groklab.config.rules import split_rules
from groklab.data.tables import Table
from groklab.errors import ConfigError

UNIFORM_TRIES = 5


@dataclass(frozen=True)
class Split:
    """Row indices into a table, each sorted ascending; holdout is the SQUARE/STRIP part of test."""

    train: torch.Tensor
    test: torch.Tensor
    unused: torch.Tensor
    holdout: torch.Tensor
    note: str = ""  # what the split did that the arguments alone do not say (e.g. a capped training set)


def _sorted(idx: torch.Tensor, N: int) -> torch.Tensor:
    """Distinct row indices in ascending order, via a mask (O(N); torch.sort is slow on CPU)."""
    mask = torch.zeros(N, dtype=torch.bool)
    mask[idx] = True
    return torch.nonzero(mask).flatten()


def _empty() -> torch.Tensor:
    return torch.zeros(0, dtype=torch.long)


def _check(table: Table, name, frac_train, test_reserve, skew, k) -> None:
    """The split's rules (config/rules.py owns them; a direct call from Python is checked by the same code)."""
    if name not in SPLITS:
        raise ConfigError("split.name", name, f"must be one of {', '.join(SPLITS)}")
    split_rules(name, table.p, table.n_operands, frac_train, test_reserve, skew, k)


def _random(pool: torch.Tensor, n_train: int, g: torch.Generator) -> torch.Tensor:
    return pool[torch.randperm(len(pool), generator=g)[:n_train]]


def _skewed(table: Table, pool: torch.Tensor, n_train: int, skew: float, g: torch.Generator,
            by: str = "a") -> torch.Tensor:
    """Weighted sampling without replacement, w = exp(-skew x/(p-1)) with x = a or a + b (Efraimidis–Spirakis).
    Skewing a alone leaves every token ~n/p rows as b, so none is rare; a + b makes the tokens near p - 1 rare."""
    ops = table.operands[pool].double()
    x = ops[:, 0] if by == "a" else ops[:, 0] + ops[:, 1]
    w = torch.exp(-skew * x / (table.p - 1))
    u = torch.rand(len(pool), generator=g, dtype=torch.float64)
    # log(u**(1/w)) = log(u)/w has the same order and does not underflow for tiny w.
    keys = torch.log(u) / w
    return pool[torch.topk(keys, n_train).indices]


def _caps(n_train: int, m: int, g: torch.Generator) -> np.ndarray:
    """Per-value quotas floor(n/m) or ceil(n/m) summing to n; the ceil values are chosen at random."""
    caps = np.full(m, n_train // m, dtype=np.int64)
    caps[torch.randperm(m, generator=g)[: n_train % m].numpy()] += 1
    return caps


def max_flow(src: np.ndarray, dst: np.ndarray, cap: np.ndarray, source: int, sink: int):
    """Maximum flow on the graph of edges src -> dst with integer capacities (nodes 0..sink); the flow as COO."""
    n = max(int(sink), int(source)) + 1
    graph = sp.csr_array((cap.astype(np.int32), (src, dst)), shape=(n, n))
    return maximum_flow(graph, source, sink, method="dinic").flow.tocoo()


def _balanced(ia: np.ndarray, ib: np.ndarray, cap_a: np.ndarray, cap_b: np.ndarray,
              order: np.ndarray, perm_a: np.ndarray, perm_b: np.ndarray) -> np.ndarray:
    """Boolean mask of pool pairs with exactly cap_a[a] per a and cap_b[b] per b, if the flow allows."""
    # Greedy pass in random order: a random maximal set, usually a few pairs short.
    chosen = np.zeros(len(ia), dtype=bool)
    left_a, left_b = cap_a.tolist(), cap_b.tolist()
    ia_l, ib_l, picked = ia.tolist(), ib.tolist(), []
    for r in order.tolist():
        x, y = ia_l[r], ib_l[r]
        if left_a[x] and left_b[y]:
            picked.append(r)
            left_a[x] -= 1
            left_b[y] -= 1
    chosen[picked] = True
    if not any(left_a):
        return chosen
    # Augment along the residual graph: s -> a (quota left) -> b (unchosen pair), b -> a (undo a
    # chosen pair), b -> t (quota left). Node labels are shuffled so ties break at random.
    m_a, m_b = len(cap_a), len(cap_b)
    s, t = 0, 1 + m_a + m_b
    na, nb = 1 + perm_a, 1 + m_a + perm_b
    pair_src = np.where(chosen, nb[ib], na[ia])
    pair_dst = np.where(chosen, na[ia], nb[ib])
    src = np.concatenate([np.full(m_a, s), pair_src, nb])
    dst = np.concatenate([na, pair_dst, np.full(m_b, t)])
    cap = np.concatenate([left_a, np.ones(len(ia), dtype=np.int64), left_b]).astype(np.int32)
    keep = cap > 0  # exhausted quotas are not edges at all
    flow = max_flow(src[keep], dst[keep], cap[keep], s, t)
    pos = flow.data > 0
    used = flow.row[pos].astype(np.int64) * (t + 1) + flow.col[pos]
    edge = pair_src.astype(np.int64) * (t + 1) + pair_dst
    return chosen ^ np.isin(edge, used)


def _uniform(table: Table, pool: torch.Tensor, n_train: int, frac_train: float,
             g: torch.Generator) -> torch.Tensor:
    """Each value of a and of b gets floor or ceil of n_train/(number of values) training rows."""
    ops = table.operands.numpy()
    vals_a, vals_b = np.unique(ops[:, 0]), np.unique(ops[:, 1])  # div: b has only p-1 values
    pool_np = pool.numpy()
    ia = np.searchsorted(vals_a, ops[pool_np, 0])
    ib = np.searchsorted(vals_b, ops[pool_np, 1])
    for _ in range(UNIFORM_TRIES):
        cap_a, cap_b = _caps(n_train, len(vals_a), g), _caps(n_train, len(vals_b), g)
        order = torch.randperm(len(pool), generator=g).numpy()
        perm_a = torch.randperm(len(vals_a), generator=g).numpy()
        perm_b = torch.randperm(len(vals_b), generator=g).numpy()
        chosen = _balanced(ia, ib, cap_a, cap_b, order, perm_a, perm_b)
        counts_ok = (np.bincount(ia[chosen], minlength=len(cap_a)) == cap_a).all() and \
            (np.bincount(ib[chosen], minlength=len(cap_b)) == cap_b).all()
        if counts_ok:
            return pool[torch.from_numpy(chosen)]
    # The flow is exact for given quotas, so only the random choice of ceil values can be retried.
    raise ConfigError("split.frac_train", frac_train,
                      f"no training set of {n_train} rows balanced (±1) in both a and b fits the available "
                      f"rows ({UNIFORM_TRIES} choices of quotas tried); use a smaller frac_train")


def _holdout_mask(table: Table, name: str, k: int) -> torch.Tensor:
    """SQUARE: a <= k and b <= k; STRIP: a <= k (004 §6.1)."""
    a = table.operands[:, 0]
    return (a <= k) & (table.operands[:, 1] <= k) if name == "square" else a <= k


def split_of(table: Table, s) -> Split:
    """The split a run's `split` config section (config.schema's SplitConfig) asks for: its fields unpacked once."""
    return make_split(table, s.name, frac_train=s.frac_train, seed=s.seed, test_reserve=s.test_reserve,
                      unused_to_test=s.unused_to_test, skew=s.skew, k=s.k, frac_of=s.frac_of,
                      skew_by=s.skew_by)


def make_split(table: Table, name: str = "random", frac_train: float = 0.3, seed: int = 0,
               test_reserve: float | None = None, unused_to_test: bool = False, skew: float = 3.0,
               k: int | None = None, frac_of: str = "table", skew_by: str = "a") -> Split:
    """Split the table's rows into train/test(/unused); frac_train is a fraction of the WHOLE table.

    SQUARE/STRIP (004 §6.1): the holdout goes to test; then ⌊frac_train · N⌋ rows of the rest (frac_of=table,
    004's code) or ⌊frac_train · |rest|⌋ (frac_of=remainder, 004's prose) train, capped at |rest| -- 004's code
    trains on the whole remainder then (STRIP k=67 at p=97: 2,813 < 2,822 rows); the cap is stated in `note`.
    """
    _check(table, name, frac_train, test_reserve, skew, k)
    if skew_by not in ("a", "a+b"):
        raise ConfigError("split.skew_by", skew_by, "must be a or a+b")
    g = torch.Generator().manual_seed(seed)
    N = len(table)
    n_train = math.floor(frac_train * N + 1e-9)  # floor, as papers/README fixes for SQUARE/STRIP
    if n_train < 1:
        raise ConfigError("split.frac_train", frac_train,
                          f"gives {n_train} training rows out of {N}; use a larger frac")

    note = ""
    if name in ("square", "strip"):
        held = _holdout_mask(table, name, k)
        holdout, rest = torch.nonzero(held).flatten(), torch.nonzero(~held).flatten()
        if frac_of == "remainder":
            n_train = math.floor(frac_train * len(rest) + 1e-9)
        if n_train > len(rest):
            note = (f"split: {n_train} training rows asked (frac_train={frac_train:g} of {N}) but only {len(rest)} "
                    f"remain outside the {name} holdout (k={k}); training on all {len(rest)}, as 004's code does")
            n_train = len(rest)
        if n_train < 1:
            raise ConfigError("split.k", k, f"leaves no training rows outside the {name} holdout")
        rest = rest[torch.randperm(len(rest), generator=g)]
        train, test = rest[:n_train], torch.cat([holdout, rest[n_train:]])
        unused = _empty()
    else:
        if test_reserve is None:
            reserve, pool = _empty(), torch.arange(N)
        else:
            perm = torch.randperm(N, generator=g)
            n_reserve = math.floor(test_reserve * N + 1e-9)
            reserve, pool = perm[:n_reserve], _sorted(perm[n_reserve:], N)
        if n_train > len(pool):
            raise ConfigError("split.frac_train", frac_train, f"needs {n_train} training rows but only "
                              f"{len(pool)} remain after the test reserve")
        if name == "random":
            train = _random(pool, n_train, g)
        elif name == "skewed":
            train = _skewed(table, pool, n_train, skew, g, skew_by)
        else:
            train = _uniform(table, pool, n_train, frac_train, g)
        is_train = torch.zeros(N, dtype=torch.bool)
        is_train[train] = True
        rest = pool[~is_train[pool]]
        if test_reserve is None or unused_to_test:
            test, unused = torch.cat([reserve, rest]), _empty()
        else:
            test, unused = reserve, rest
        holdout = _empty()
    if len(test) == 0:
        raise ConfigError("split.frac_train", frac_train,
                          f"leaves no test rows out of {N}; use a smaller frac")
    return Split(*(_sorted(idx, N) for idx in (train, test, unused, holdout)), note=note)
