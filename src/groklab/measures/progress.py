"""Progress measures: MED (004 Def 4.2), weight and gradient norms per block, per-token embedding gradients.

Gradients are of the run's training loss (cross-entropy by default; no weight-decay term), taken with
torch.autograd.grad so no `.grad` is written; the model runs in eval mode and its modes are restored.
"""
from __future__ import annotations

import math
from typing import Callable, Optional, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from groklab.measures.modes import eval_mode

BLOCKS = ("E", "W", "rest")


@torch.no_grad()
def med(E: torch.Tensor, p: int, start: int = 0) -> float:
    """Main embedding diff: mean over i = 0..p-2 of ||e_{i+1} - e_i||_2 over the operand tokens, whose
    embeddings are rows start..start+p-1. (004's code averages i = 0..p-3: it leaves out the last pair.)"""
    return consecutive_diffs(E, p, start).mean().item()


@torch.no_grad()
def consecutive_diffs(E: torch.Tensor, p: int, start: int = 0) -> torch.Tensor:
    """||e_{i+1} - e_i||_2 for i = 0..p-2 over the operand rows start..start+p-1 (float64)."""
    e = E[start:start + p].double()
    return (e[1:] - e[:-1]).norm(dim=1)


@torch.no_grad()
def norm_measures(model: nn.Module) -> dict:
    """norm/<block> = l2 norm of all the block's parameters together, and norm/total."""
    out, total = {}, 0.0
    for name, params in model.blocks().items():
        sq = sum(t.detach().double().square().sum().item() for t in params)
        if params:
            out[f"norm/{name}"] = math.sqrt(sq)
        total += sq
    out["norm/total"] = math.sqrt(total)
    return out


def _grads(model: nn.Module, X: torch.Tensor, y: torch.Tensor, params: Sequence[torch.Tensor],
           loss_fn: Callable = F.cross_entropy):
    with eval_mode(model), torch.enable_grad():
        loss = loss_fn(model(X), y)
        return torch.autograd.grad(loss, list(params))


def grad_measures(model: nn.Module, X: torch.Tensor, y: torch.Tensor, loss_fn: Callable = F.cross_entropy) -> dict:
    """grad/<block> = l2 norm of dL/d(block) on (X, y), grad/total, and grad_rms/<block> = the block's norm over the
    square root of its entry count (the typical entry: blocks of different sizes compared per weight)."""
    blocks = {k: [t for t in v if t.requires_grad] for k, v in model.blocks().items()}
    flat = [t for v in blocks.values() for t in v]
    if not flat:
        return {}
    g = iter(_grads(model, X, y, flat, loss_fn))
    out, total = {}, 0.0
    for name, params in blocks.items():
        sq = sum(next(g).double().square().sum().item() for _ in params)
        if params:
            out[f"grad/{name}"] = math.sqrt(sq)
            out[f"grad_rms/{name}"] = math.sqrt(sq / sum(t.numel() for t in params))
        total += sq
    out["grad/total"] = math.sqrt(total)
    return out


def token_grad_norms(model: nn.Module, X: torch.Tensor, y: torch.Tensor,
                     loss_fn: Callable = F.cross_entropy) -> Optional[np.ndarray]:
    """||dL/de_t||_2 per vocabulary token t (000 Fig 3 heat-map rows); None without an embedding."""
    E = [t for t in model.blocks()["E"] if t.requires_grad]
    if not E:
        return None
    (g,) = _grads(model, X, y, E[:1], loss_fn)
    return g.detach().double().norm(dim=1).float().cpu().numpy()


def token_counts(X: torch.Tensor, vocab: int) -> np.ndarray:
    """Occurrences of each token in a batch of token sequences (000 Fig 8), int32 [vocab]."""
    return torch.bincount(X.reshape(-1), minlength=vocab).cpu().numpy().astype(np.int32)
