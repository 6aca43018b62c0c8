"""Finite groups beyond Z_p, as multiplication tables over element indices 0..order-1 (tasks dihedral, perm), and
sparse parity's labels (task parity).

- Dihedral group D_n of order 2n (n >= 3: non-abelian): index f*n + i is s^f r^i (r a rotation by 2 pi / n, s a
  reflection, f in {0, 1}, i in Z_n). From r^i s = s r^(-i): (s^f1 r^i1)(s^f2 r^i2) = s^(f1+f2) r^((-1)^f2 i1 + i2).
- Symmetric group S_m of order m! (m >= 3: non-abelian; S_5 has 120 elements): index = the rank of the
  permutation in lexicographic order (itertools.permutations of range(m)); the product a . b is the composition
  "b after a": (a . b)(x) = b(a(x)), a left-to-right reading of the two operands (the other convention, "a
  after b", is the same task with its operands swapped).
- Sparse parity (Barak et al. 2022): K bits, the label the parity of the first `support` of them. The model
  reads every bit, so which `support` positions matter is irrelevant to an MLP or a Transformer with learned
  positions (both are symmetric in the positions at init); ours the first ones, so a row reads at sight.
"""
from __future__ import annotations

import itertools
import math

import torch

from groklab.config.rules import factorial_root


def dihedral_table(order: int) -> torch.Tensor:
    """[order, order] long: the index of the product of elements a (row) and b (column) in D_(order / 2)."""
    n = order // 2
    e = torch.arange(order)
    f, i = e // n, e % n
    fa, ia, fb, ib = f[:, None], i[:, None], f[None, :], i[None, :]
    sign = 1 - 2 * fb  # (-1)^f2
    return ((fa + fb) % 2) * n + (sign * ia + ib) % n


def symmetric_table(order: int) -> torch.Tensor:
    """[order, order] long: the index of a . b (b after a) in S_m, m! = order, by lexicographic rank."""
    m = factorial_root(order)
    perms = torch.tensor(list(itertools.permutations(range(m))), dtype=torch.long)  # [m!, m], lexicographic
    # (a . b)(x) = b[a[x]]: gather b's entries at a's values, every pair at once
    prod = perms[None, :, :].expand(order, order, m).gather(2, perms[:, None, :].expand(order, order, m))
    # the lexicographic rank (Lehmer code): position j counts the later entries smaller than its own, times (m-1-j)!
    later = torch.ones(m, m, dtype=torch.bool).triu(1)  # [j, k]: k after j
    smaller = (prod[..., None, :] < prod[..., :, None]) & later  # [.., j, k]: prod[k] < prod[j], k > j
    weights = torch.tensor([math.factorial(m - 1 - j) for j in range(m)], dtype=torch.long)
    return (smaller.sum(-1) * weights).sum(-1)


def parity_labels(bits: torch.Tensor, support: int) -> torch.Tensor:
    """[N] long: the parity of the first `support` columns of [N, K] bits."""
    return bits[:, :support].sum(1) % 2
