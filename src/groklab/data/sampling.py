"""Batch samplers: shuffled epochs, i.i.d., full batch, and the frequency-aware samplers of 000 App. A.

Each batch is a pure function of (seed, step) -- the entropy sampler's also of its saved L -- so a
resumed run draws the same batches. `block(start, K)` gives the positions of K consecutive steps at once
([K, B], equal to `batch(step)` for each), for the stacked engine's host-side batch assembly.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np
import torch

from groklab.config import Config
from groklab.data.splits import max_flow


def stream_rng(seed: int, key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, key]))


class EpochSampler:
    """Shuffled epochs: positions [step*B, (step+1)*B) of the endless stream perm_0 ++ perm_1 ++ ..."""

    def __init__(self, n: int, batch_size: int, seed: int, device="cpu"):
        self.n, self.B, self.seed, self.device = n, batch_size, seed, device
        self._perms: dict[int, torch.Tensor] = {}

    def _perm(self, epoch: int) -> torch.Tensor:
        if epoch not in self._perms:
            if len(self._perms) > 4:
                self._perms.pop(min(self._perms))
            perm = stream_rng(self.seed, epoch).permutation(self.n)
            self._perms[epoch] = torch.from_numpy(perm).to(self.device)
        return self._perms[epoch]

    def batch(self, step: int) -> torch.Tensor:
        start = step * self.B
        e0, e1 = start // self.n, (start + self.B - 1) // self.n
        off = start - e0 * self.n
        if e0 == e1:
            return self._perm(e0)[off:off + self.B]
        stream = torch.cat([self._perm(e) for e in range(e0, e1 + 1)])
        return stream[off:off + self.B]

    def block(self, start: int, K: int) -> np.ndarray:
        n, B = self.n, self.B
        s0, s1 = start * B, (start + K) * B
        e0, e1 = s0 // n, (s1 - 1) // n
        stream = np.concatenate([stream_rng(self.seed, e).permutation(n) for e in range(e0, e1 + 1)])
        return stream[s0 - e0 * n: s1 - e0 * n].reshape(K, B)


class ReplacementSampler:
    """i.i.d. uniform indices with replacement, drawn in chunks of steps for speed."""

    CHUNK = 256

    def __init__(self, n: int, batch_size: int, seed: int, device="cpu"):
        self.n, self.B, self.seed, self.device = n, batch_size, seed, device
        self._chunk, self._idx = -1, None

    def batch(self, step: int) -> torch.Tensor:
        chunk = step // self.CHUNK
        if chunk != self._chunk:
            idx = stream_rng(self.seed, chunk).integers(0, self.n, size=(self.CHUNK, self.B))
            self._chunk, self._idx = chunk, torch.from_numpy(idx).to(self.device)
        return self._idx[step % self.CHUNK]

    def block(self, start: int, K: int) -> np.ndarray:
        C = self.CHUNK
        c0, c1 = start // C, (start + K - 1) // C
        idx = np.concatenate([stream_rng(self.seed, c).integers(0, self.n, size=(C, self.B))
                              for c in range(c0, c1 + 1)])
        return idx[start - c0 * C: start - c0 * C + K]


class FullSampler:
    """Full batch: every step sees the whole training set (the loop skips the gather)."""

    def __init__(self, n: int, batch_size: int = 0, seed: int = 0, device="cpu"):
        self.n = n

    def batch(self, step: int) -> None:
        return None


# -- frequency-aware samplers (000 App. A) ---------------------------------------------------
def even_counts(tokens: np.ndarray, B: int, seed: int, key: int, step: int) -> np.ndarray:
    """B slots over `tokens`: each B // n times, plus the r = B % n extras: r consecutive tokens of one
    fixed shuffled cycle, advancing r per step, so they are distinct within a batch and, over any T
    steps, every token got its extra floor or ceil of T r / n times."""
    n = len(tokens)
    base, r = divmod(B, n)
    cycle = tokens[stream_rng(seed, 1_000_003 + key).permutation(n)]
    extras = cycle[(step * r + np.arange(r)) % n]
    return np.concatenate([np.repeat(tokens, base), extras])


class BalancedSampler:
    """Every operand token appears as evenly as B allows, in each operand position (±1 per batch).

    Per step the counts per token are fixed (even_counts, for a and for b); a maximum flow
    source -> a (cap count_a) -> b (cap 1 per training row (a, b)) -> sink (cap count_b) picks B
    distinct training rows meeting both counts (node order shuffled per step, so the rows vary).
    Where the split makes that infeasible, the leftover a-slots take the row with the rarest b so far.
    A pure function of (seed, step): resuming needs no state.
    """

    def __init__(self, operands: np.ndarray, p: int, batch_size: int, seed: int, device="cpu"):
        operands = np.asarray(operands)
        if operands.shape[1] != 2:
            raise ValueError("the balanced sampler needs 2 operands")
        self.B, self.p, self.seed, self.device = batch_size, p, seed, device
        self.a, self.b = operands[:, 0], operands[:, 1]
        self.row = np.full((p, p), -1, dtype=np.int64)
        self.row[self.a, self.b] = np.arange(len(self.a))
        self.tok_a, self.tok_b = np.unique(self.a), np.unique(self.b)
        self.rows_of_a = {t: np.flatnonzero(self.a == t) for t in self.tok_a}

    def batch(self, step: int) -> torch.Tensor:
        p, rng = self.p, stream_rng(self.seed, 2 * 1_000_003 + step)
        cnt_a = np.bincount(even_counts(self.tok_a, self.B, self.seed, 0, step), minlength=p)
        cnt_b = np.bincount(even_counts(self.tok_b, self.B, self.seed, 1, step), minlength=p)
        # nodes: 0 source, 1 + perm_a[a] for token a, 1 + p + perm_b[b] for token b, 2p + 1 sink
        na, nb = 1 + rng.permutation(p), 1 + p + rng.permutation(p)
        sink, tok = 2 * p + 1, np.arange(p)
        src = np.concatenate([np.zeros(p, np.int64), na[self.a], nb])
        dst = np.concatenate([na, nb[self.b], np.full(p, sink)])
        cap = np.concatenate([cnt_a, np.ones(len(self.a), np.int64), cnt_b])
        flow = max_flow(src, dst, cap, 0, sink)
        used = (flow.data > 0) & (flow.row >= 1) & (flow.row <= p) & (flow.col > p) & (flow.col <= 2 * p)
        inv_a, inv_b = np.empty(p + 1, np.int64), np.empty(p + 1, np.int64)
        inv_a[na - 1], inv_b[nb - 1 - p] = tok, tok
        idx = self.row[inv_a[flow.row[used] - 1], inv_b[flow.col[used] - 1 - p]]
        if len(idx) < self.B:  # infeasible counts: keep a's counts, give each leftover the rarest b so far
            left = cnt_a - np.bincount(self.a[idx], minlength=p)
            b_count = np.bincount(self.b[idx], minlength=p)
            extra = []
            for t in np.repeat(tok, left):
                rows = rng.permutation(self.rows_of_a[t])
                extra.append(rows[np.argmin(b_count[self.b[rows]])])
                b_count[self.b[extra[-1]]] += 1
            idx = np.concatenate([idx, np.array(extra, dtype=np.int64)])
        return torch.from_numpy(rng.permutation(idx)).to(self.device)


class EntropySampler:
    """Rows drawn i.i.d. so that token i is picked with p_i = softmax(L_i^2 / gamma) (000 App. A eq. 19).

    L_i is a running (EMA, decay beta) bound on token i's embedding gradient norm per occurrence,
    fed by `observe` after each backward. gamma is relative by default, tau * mean_i L_i^2 over the tokens
    in training: the L_i^2 shrink by orders of magnitude as the loss falls, so any absolute gamma is either far
    above them early (p uniform) or far below them late (p one-hot on the largest L_i). An absolute `gamma` is
    kept for App. A's literal form. Before any L is observed p is uniform over the tokens in training.
    A row is drawn by picking a token i ~ p, then one of the
    training occurrences of i uniformly: q_row ∝ sum over its operands t of p_t / occ_t.
    The batch is a pure function of (seed, step, L); L is saved in the checkpoint.
    """

    def __init__(self, operands: np.ndarray, p: int, batch_size: int, seed: int, gamma: Optional[float],
                 beta: float, device="cpu", tau: float = 0.3):
        self.B, self.seed, self.gamma, self.beta, self.p, self.device = batch_size, seed, gamma, beta, p, device
        self.tau = tau
        self.ops = torch.as_tensor(np.asarray(operands), dtype=torch.long, device=device)  # [n, K]
        occ = torch.bincount(self.ops.flatten(), minlength=p).double()
        self.inv_occ = torch.where(occ > 0, 1 / occ.clamp(min=1), torch.zeros_like(occ))
        self.L = torch.zeros(p, dtype=torch.float64, device=device)

    def probs(self) -> torch.Tensor:
        """p_i* = exp(L_i^2 / gamma) / sum_j exp(L_j^2 / gamma), over tokens present in training."""
        present = self.inv_occ > 0
        L2 = self.L ** 2
        gamma = self.gamma if self.gamma is not None else self.tau * L2[present].mean()
        if gamma <= 0:  # nothing observed yet (relative gamma): every token alike
            L2, gamma = torch.zeros_like(L2), 1.0
        logits = torch.where(present, L2 / gamma, torch.full_like(self.L, -torch.inf))
        return torch.softmax(logits, 0)

    def entropy(self) -> float:
        """H(p*) / log(#tokens in training): 1 for uniform sampling, 0 for one token."""
        pr = self.probs()
        pr = pr[pr > 0]
        n = int((self.inv_occ > 0).sum())
        return max(0.0, float(-(pr * pr.log()).sum() / math.log(n))) if n > 1 else 0.0  # no -0.0 from rounding

    def batch(self, step: int) -> torch.Tensor:
        q = (self.probs() * self.inv_occ)[self.ops].sum(1)
        g = torch.Generator(device=self.device).manual_seed(int(stream_rng(self.seed, step).integers(2**62)))
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


def make_sampler(cfg: Config, n: int, operands=None, device="cpu"):
    """The sampler `cfg.sampler` over n training rows, from the run's config (batch_size, seed, p and the
    entropy sampler's sampler_tau / sampler_gamma / sampler_beta): as build_model and build_optimizer, the
    builder reads its own fields. `operands` [n, K] (the training rows' operand values) feed the
    frequency-aware samplers."""
    name, b, seed = cfg.sampler, cfg.batch_size, cfg.seed
    if name == "balanced":
        return BalancedSampler(operands, cfg.p, b, seed, device)
    if name == "entropy":
        return EntropySampler(operands, cfg.p, b, seed, cfg.sampler_gamma, cfg.sampler_beta, device, cfg.sampler_tau)
    cls = {"epoch": EpochSampler, "replacement": ReplacementSampler, "full": FullSampler}[name]
    return cls(n, b, seed, device)
