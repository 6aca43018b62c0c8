"""Batch samplers: each batch is a pure function of (seed, step), so resuming needs no state."""
from __future__ import annotations

import numpy as np
import torch

SAMPLERS = ("epoch", "replacement", "full", "balanced", "entropy")


def _rng(seed: int, key: int) -> np.random.Generator:
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
            perm = _rng(self.seed, epoch).permutation(self.n)
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


class ReplacementSampler:
    """i.i.d. uniform indices with replacement, drawn in chunks of steps for speed."""

    CHUNK = 256

    def __init__(self, n: int, batch_size: int, seed: int, device="cpu"):
        self.n, self.B, self.seed, self.device = n, batch_size, seed, device
        self._chunk, self._idx = -1, None

    def batch(self, step: int) -> torch.Tensor:
        chunk = step // self.CHUNK
        if chunk != self._chunk:
            idx = _rng(self.seed, chunk).integers(0, self.n, size=(self.CHUNK, self.B))
            self._chunk, self._idx = chunk, torch.from_numpy(idx).to(self.device)
        return self._idx[step % self.CHUNK]


class FullSampler:
    """Full batch: every step sees the whole training set (the loop skips the gather)."""

    def __init__(self, n: int, batch_size: int = 0, seed: int = 0, device="cpu"):
        self.n = n

    def batch(self, step: int) -> None:
        return None


def make_sampler(name: str, n: int, batch_size: int, seed: int, device="cpu", operands=None, p: int = 0,
                 gamma: float = 1e-4, beta: float = 0.9):
    """`operands` [n, K] (training rows' operand values) and `p` feed the frequency-aware samplers."""
    from groklab.data.frequency import BalancedSampler, EntropySampler  # they build on this module

    if name == "balanced":
        return BalancedSampler(operands, p, batch_size, seed, device)
    if name == "entropy":
        return EntropySampler(operands, p, batch_size, seed, gamma, beta, device)
    cls = {"epoch": EpochSampler, "replacement": ReplacementSampler, "full": FullSampler}[name]
    return cls(n, batch_size, seed, device)
