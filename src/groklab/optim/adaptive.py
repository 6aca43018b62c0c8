"""Adaptive Adam-LR ratio (000 Prop. 4.1): c = sigma_max(E)/sigma_max(W) * f_W/f_E, clipped."""
from __future__ import annotations

import torch
from torch import nn


def sigma_max(blocks: list[torch.Tensor]) -> float:
    """Largest singular value of a block's weight matrices stacked row-wise (biases ignored)."""
    M = torch.cat([t.detach().double().flatten(1) for t in blocks if t.ndim >= 2])
    return torch.linalg.matrix_norm(M, ord=2).item()


class AdaptiveC:
    """Tracks f_E, the mean fraction of embedding rows that receive gradient per step (rows whose token
    occurs in the batch), and recomputes c every `every` steps from the current E and W; f_W = 1."""

    def __init__(self, model: nn.Module, vocab: int, every: int, lo: float, hi: float, c0: float):
        self.model, self.vocab, self.every, self.lo, self.hi = model, vocab, every, lo, hi
        self.c = c0
        self.f_E = float("nan")  # of the last recompute
        self.rows = torch.zeros((), dtype=torch.float64, device=next(model.parameters()).device)
        self.n = 0  # steps accumulated in `rows` since the last recompute

    def compute(self, f_E: float) -> float:
        b = self.model.blocks()
        c = sigma_max(b["E"]) / sigma_max(b["W"]) * (1.0 / f_E)
        return min(max(c, self.lo), self.hi)

    def observe(self, step: int, xb: torch.Tensor) -> float:
        """Count this batch's embedding rows; on a recompute step set c from the mean since the last one."""
        self.rows += (torch.bincount(xb.flatten(), minlength=self.vocab) > 0).sum()
        self.n += 1
        if step % self.every == 0:
            self.f_E = self.rows.item() / (self.n * self.vocab)
            self.c = self.compute(self.f_E)
            self.rows.zero_()
            self.n = 0
        return self.c

    def state_dict(self) -> dict:
        return {"c": self.c, "f_E": self.f_E, "rows": self.rows.item(), "n": self.n}

    def load_state_dict(self, s: dict) -> None:
        self.c, self.f_E, self.n = s["c"], s["f_E"], s["n"]
        self.rows.fill_(s["rows"])
