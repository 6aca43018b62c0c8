"""Adaptive Adam-LR ratio (000 Prop. 4.1): c = sigma_max(E)/sigma_max(W) * f_W/f_E, clipped.

f_E, "the update frequency of E", has two readings (App. B: "E is updated less frequently than W because not
all tokens appear in every batch"), both measured as the share of steps in which an embedding row receives
gradient (its token is in the batch), f_W = 1:
- mean: one f_E, the mean over rows, and one c for the whole embedding (the default);
- row: each row its own f_i and c_i = sigma ratio / f_i (a row never seen since the last recompute gets the
  top of the range), so the rows of rare tokens train faster. The embedding group runs at the mean c and each
  row's Adam update (weight decay included) is rescaled by c_i / c after the step: Adam's moments do not
  depend on the learning rate, so this is exactly a per-row learning rate c_i * lr.
At batch 512 every row is in nearly every batch, f_i ~ 1, and both readings give c ~ sigma ratio; they part
where tokens are rare (small batches, skewed splits).
"""
from __future__ import annotations

import math
from typing import Callable, Optional

import torch
from torch import nn


def sigma_max(blocks: list[torch.Tensor]) -> float:
    """Largest singular value of a block's weight matrices stacked row-wise (biases ignored)."""
    M = torch.cat([t.detach().double().flatten(1) for t in blocks if t.ndim >= 2])
    return torch.linalg.matrix_norm(M, ord=2).item()


def spectral_ratio(E: list[torch.Tensor], W: list[torch.Tensor]) -> float:
    """sigma_max(E) / sigma_max(W); a W decayed to zero gives inf (c goes to the top of its range, the formula's
    limit), both at zero nan (c keeps its value): a GrokBench tuning draw at a large weight decay zeroed W."""
    e, w = sigma_max(E), sigma_max(W)
    return e / w if w > 0 else (float("inf") if e > 0 else float("nan"))


class AdaptiveC:
    """Counts, per embedding row, the steps whose batch holds its token, and every `every` steps recomputes c
    (and, per row, the factors `scale` on the embedding update) from the current E and W."""

    def __init__(self, model: nn.Module, vocab: int, every: int, lo: float, hi: float, c0: float,
                 per_row: bool = False):
        self.model, self.vocab, self.every, self.lo, self.hi = model, vocab, every, lo, hi
        self.per_row, self.c = per_row, c0
        self.f_E = float("nan")  # of the last recompute (per row: the mean of the f_i)
        device = next(model.parameters()).device
        self.rows = torch.zeros(vocab, dtype=torch.float64, device=device)  # steps with each row present
        self.n = 0  # steps accumulated in `rows` since the last recompute
        self.scale: Optional[torch.Tensor] = None  # per row: c_i / c, applied by `rescale`

    def sigma_ratio(self) -> float:
        """sigma_max(E) / sigma_max(W): the spectral part of c (not c itself)."""
        b = self.model.blocks()
        return spectral_ratio(b["E"], b["W"])

    def compute(self, f_E: float, ratio: float | None = None) -> float:
        ratio = self.sigma_ratio() if ratio is None else ratio
        return min(max(ratio * (1.0 / f_E), self.lo), self.hi)

    def observe(self, step: int, xb: torch.Tensor, sigma_ratio: Optional[Callable[[], float]] = None) -> float:
        """Count this batch's embedding rows; on a recompute step set c from the counts since the last one. The
        first recompute waits for a full window (c0 until then): f_i from one batch is 0 or 1, which sent every
        row absent from step 0's batch to the top of the range for a whole window. `sigma_ratio`: where E and W
        are read (a stacked member's own views of them); default this model's."""
        self.rows += torch.bincount(xb.flatten(), minlength=self.vocab)[: self.vocab] > 0
        self.n += 1
        if step % self.every == 0 and self.n >= self.every:
            f = self.rows / self.n
            self.f_E = f.mean().item()
            ratio = (sigma_ratio or self.sigma_ratio)()
            if math.isnan(ratio):  # E and W both zero: no spectral ratio to read, c stays
                pass
            elif self.per_row:
                c_i = torch.where(f > 0, ratio / f, torch.full_like(f, self.hi)).clamp(self.lo, self.hi)
                self.c = c_i.mean().item()
                self.scale = (c_i / self.c).to(self.model.blocks()["E"][0].dtype)
            else:
                self.c = self.compute(self.f_E, ratio)
            self.rows.zero_()
            self.n = 0
        return self.c

    @torch.no_grad()
    def rescale(self, E: torch.Tensor, before: torch.Tensor) -> None:
        """E <- before + scale_i * (E - before): the per-row learning rate on this step's update."""
        if self.scale is not None:
            E.copy_(before + self.scale[:, None] * (E - before))

    def state_dict(self) -> dict:
        return {"c": self.c, "f_E": self.f_E, "rows": self.rows.clone(), "n": self.n, "scale": self.scale}

    def load_state_dict(self, s: dict) -> None:
        self.c, self.f_E, self.n = s["c"], s["f_E"], s["n"]
        rows = s["rows"]
        if isinstance(rows, torch.Tensor):
            self.rows.copy_(rows)
        else:  # a checkpoint from before per-row counts kept only their sum: spread it (mean mode reads the sum)
            self.rows.fill_(float(rows) / self.vocab)
        self.scale = None if s.get("scale") is None else s["scale"].to(self.rows.device)
