"""Frequency-aware samplers of 000 App. A: balanced token coverage, and p_i ∝ exp(L_i^2 / gamma)."""
from __future__ import annotations

import numpy as np
import torch
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from groklab.data.sampling import _rng


def even_counts(tokens: np.ndarray, B: int, seed: int, key: int, step: int) -> np.ndarray:
    """B slots over `tokens`: each B // n times, plus the r = B % n extras: r consecutive tokens of one
    fixed shuffled cycle, advancing r per step, so they are distinct within a batch and, over any T
    steps, every token got its extra floor or ceil of T r / n times."""
    n = len(tokens)
    base, r = divmod(B, n)
    cycle = tokens[_rng(seed, 1_000_003 + key).permutation(n)]
    extras = cycle[(step * r + np.arange(r)) % n]
    return np.concatenate([np.repeat(tokens, base), extras])


class BalancedSampler:
    """Every operand token appears as evenly as B allows, in each operand position (±1 per batch).

    Per step: the a-slots and b-slots are fixed multisets (even_counts); a maximum bipartite matching
    pairs a-slot with b-slot wherever (a, b) is a training row (randomised by shuffling the slots).
    Where no perfect matching exists (sparse splits), the leftover a-slots take random rows with that a.
    A pure function of (seed, step): resuming needs no state.
    """

    def __init__(self, operands: np.ndarray, p: int, batch_size: int, seed: int, device="cpu"):
        operands = np.asarray(operands)
        if operands.shape[1] != 2:
            raise ValueError("the balanced sampler needs 2 operands")
        self.B, self.seed, self.device = batch_size, seed, device
        a, b = operands[:, 0], operands[:, 1]
        self.row = np.full((p, p), -1, dtype=np.int64)
        self.row[a, b] = np.arange(len(a))
        self.mask = self.row >= 0
        self.tok_a, self.tok_b = np.unique(a), np.unique(b)
        self.rows_of_a = {t: np.flatnonzero(a == t) for t in self.tok_a}
        self.b = b

    def batch(self, step: int) -> torch.Tensor:
        rng = _rng(self.seed, 2 * 1_000_003 + step)
        sa = rng.permutation(even_counts(self.tok_a, self.B, self.seed, 0, step))
        sb = rng.permutation(even_counts(self.tok_b, self.B, self.seed, 1, step))
        match = maximum_bipartite_matching(csr_matrix(self.mask[np.ix_(sa, sb)]), perm_type="column")
        ok = match >= 0
        idx = np.empty(self.B, dtype=np.int64)
        idx[ok] = self.row[sa[ok], sb[match[ok]]]
        if not ok.all():  # no perfect matching: keep a's counts, give each leftover the rarest b so far
            b_count = np.bincount(self.b[idx[ok]], minlength=len(self.mask))
            for i in np.flatnonzero(~ok):
                rows = rng.permutation(self.rows_of_a[sa[i]])
                idx[i] = rows[np.argmin(b_count[self.b[rows]])]
                b_count[self.b[idx[i]]] += 1
        return torch.from_numpy(idx).to(self.device)


class EntropySampler:
    """Rows drawn i.i.d. so that token i is picked with p_i = softmax(L_i^2 / gamma) (000 App. A eq. 19).

    L_i is a running (EMA, decay beta) bound on token i's embedding gradient norm per occurrence,
    fed by `observe` after each backward. A row is drawn by picking a token i ~ p, then one of the
    training occurrences of i uniformly: q_row ∝ sum over its operands t of p_t / occ_t.
    The batch is a pure function of (seed, step, L); L is saved in the checkpoint.
    """

    def __init__(self, operands: np.ndarray, p: int, batch_size: int, seed: int, gamma: float, beta: float,
                 device="cpu"):
        self.B, self.seed, self.gamma, self.beta, self.p, self.device = batch_size, seed, gamma, beta, p, device
        self.ops = torch.as_tensor(np.asarray(operands), dtype=torch.long, device=device)  # [n, K]
        occ = torch.bincount(self.ops.flatten(), minlength=p).double()
        self.inv_occ = torch.where(occ > 0, 1 / occ.clamp(min=1), torch.zeros_like(occ))
        self.L = torch.zeros(p, dtype=torch.float64, device=device)

    def probs(self) -> torch.Tensor:
        """p_i* = exp(L_i^2 / gamma) / sum_j exp(L_j^2 / gamma), over tokens present in training."""
        logits = torch.where(self.inv_occ > 0, self.L ** 2 / self.gamma, torch.full_like(self.L, -torch.inf))
        return torch.softmax(logits, 0)

    def batch(self, step: int) -> torch.Tensor:
        q = (self.probs() * self.inv_occ)[self.ops].sum(1)
        g = torch.Generator(device=self.device).manual_seed(int(_rng(self.seed, step).integers(2**62)))
        return torch.multinomial(q, self.B, replacement=True, generator=g)

    @torch.no_grad()
    def observe(self, xb: torch.Tensor, E_grad: torch.Tensor) -> None:
        """Update L_i for the operand tokens in the batch from the embedding gradient rows (mean loss)."""
        count = torch.bincount(xb.flatten(), minlength=E_grad.shape[0])[: self.p].double()
        seen = count > 0
        # row i of the mean-loss gradient sums count_i per-example terms / B: per occurrence, * B / count_i
        per_occ = E_grad[: self.p].double().norm(dim=1) * len(xb) / count.clamp(min=1)
        self.L = torch.where(seen, self.beta * self.L + (1 - self.beta) * per_occ, self.L)

    def state_dict(self) -> dict:
        return {"L": self.L}

    def load_state_dict(self, s: dict) -> None:
        self.L = s["L"].to(self.L)
