"""Singular values and ranks of the embedding E, the first layer W and their product EW (000 Fig 10).

Numerical rank: #{sigma_i > rtol * sigma_max}; with rtol=None the LAPACK/numpy convention
rtol = max(m, n) * eps(dtype). Effective rank (Roy & Vetterli 2007): exp of the Shannon entropy of
sigma_i / sum(sigma). Stable rank: ||A||_F^2 / sigma_max^2. All three are <= min(m, n).
"""
from __future__ import annotations

import math
from typing import Optional

import torch
from torch import nn


def numerical_rank(s: torch.Tensor, shape: tuple[int, int], rtol: Optional[float] = None,
                   dtype: torch.dtype = torch.float32) -> int:
    """Count of singular values above rtol * sigma_max (rtol None: max(m, n) * eps(dtype))."""
    if s.numel() == 0 or s[0] == 0:
        return 0
    if rtol is None:
        rtol = max(shape) * torch.finfo(dtype).eps
    return int((s > rtol * s[0]).sum())


def effective_rank(s: torch.Tensor) -> float:
    """exp(H(p)) with p_i = sigma_i / sum(sigma): 1 for rank one, n for n equal singular values."""
    s = s.double()
    p = s[s > 0] / s.sum()
    return math.exp(-(p * p.log()).sum().item()) if p.numel() else 0.0


def stable_rank(s: torch.Tensor) -> float:
    s = s.double()
    return (s.square().sum() / s[0] ** 2).item() if s.numel() and s[0] > 0 else 0.0


def first_weight(model: nn.Module) -> Optional[torch.Tensor]:
    """The first layer's weight matrix: the first 2-D tensor in model.blocks()["W"]."""
    return next((t for t in model.blocks()["W"] if t.dim() == 2), None)


def embedding_product(E: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """EW: token -> first-layer pre-activation, [vocab, n_ctx * d_out].

    W's input is n_ctx concatenated embeddings (MLP: in = n_ctx * d_emb) or one (Transformer:
    in = d_emb); position j's slice W_j [d_out, d_emb] gives the block E W_j^T, blocks side by side.
    """
    d = E.shape[1]
    if W.shape[1] % d:
        raise ValueError(f"first layer input {W.shape[1]} is not a multiple of d_emb {d}")
    n_ctx = W.shape[1] // d
    W_j = W.reshape(W.shape[0], n_ctx, d).permute(1, 2, 0)  # [n_ctx, d_emb, d_out]
    return torch.cat(list(E @ W_j), 1)


@torch.no_grad()
def sv_measures(model: nn.Module, rtol: Optional[float] = None) -> tuple[dict, dict]:
    """Scalars sv/<M>_max, rank/<M>, erank/<M>, srank/<M> and arrays sv/<M> for M in E, W, EW."""
    E = model.blocks()["E"]
    W = first_weight(model)
    mats = {}
    if E:
        mats["E"] = E[0].detach()
    if W is not None:
        mats["W"] = W.detach()
    if E and W is not None:
        mats["EW"] = embedding_product(E[0].detach(), W.detach())
    scalars, arrays = {}, {}
    for name, A in mats.items():
        s = torch.linalg.svdvals(A.double())
        scalars[f"sv/{name}_max"] = s[0].item()
        scalars[f"rank/{name}"] = numerical_rank(s, tuple(A.shape), rtol, A.dtype)
        scalars[f"erank/{name}"] = effective_rank(s)
        scalars[f"srank/{name}"] = stable_rank(s)
        arrays[f"sv/{name}"] = s.float().cpu().numpy()
    return scalars, arrays
