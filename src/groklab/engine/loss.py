"""Training losses: softmax cross-entropy and StableMax cross-entropy (Prieto et al. 2025)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def stablemax_s(x: torch.Tensor) -> torch.Tensor:
    """s(x) = x + 1 for x >= 0, 1 / (1 - x) for x < 0: grows linearly where exp explodes."""
    return torch.where(x >= 0, x + 1, 1 / (1 - x.clamp(max=0)))


def log_stablemax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """log StableMax(x)_i = log s(x_i) - log sum_j s(x_j) over `dim` (the classes)."""
    s = stablemax_s(x)
    return s.log() - s.sum(dim, keepdim=True).log()


def stablemax_cross_entropy(logits: torch.Tensor, y: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    """As F.cross_entropy, classes on dim 1: logits [N, C] (a run) or [M, C, R] (a stack of M members)."""
    return F.nll_loss(log_stablemax(logits, 1), y, reduction=reduction)


def make_loss(name: str = "ce", float64: bool = False):
    """loss(logits, y, reduction="mean"); with float64 the logits are cast first (Prieto et al.:
    float32 softmax saturates, 'softmax collapse', long before float64 does)."""
    base = F.cross_entropy if name == "ce" else stablemax_cross_entropy
    if not float64:
        return base
    return lambda logits, y, reduction="mean": base(logits.double(), y, reduction=reduction)
