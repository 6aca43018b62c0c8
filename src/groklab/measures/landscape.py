"""Loss-landscape slices: L(theta + a d1 + b d2) along random directions in chosen blocks (002 Fig 13e-f).

Directions are Gaussian, restricted to the chosen parameters (zero elsewhere). Filter-normalised
(Li et al. 2018): each filter (slice along dim 0) of d is rescaled to the norm of the same filter of
theta, and 1-D tensors (biases) get no direction. Plain: N(0, 1) entries, so `radius` is an absolute
perturbation scale ("Gaussian perturbation of chosen layers"). The model is evaluated through
functional_call; its parameters are never modified.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call

from groklab.measures.hessian import block_params
from groklab.measures.modes import eval_mode


def random_direction(params: Sequence[torch.Tensor], generator: torch.Generator,
                     filter_norm: bool = True) -> list[torch.Tensor]:
    """One direction per parameter tensor, same shapes."""
    out = []
    for t in params:
        d = torch.randn(t.shape, generator=generator, dtype=torch.float64).to(t.device, t.dtype)
        if filter_norm:
            if t.dim() <= 1:
                d = torch.zeros_like(t)
            else:
                dims = tuple(range(1, t.dim()))
                d = d * t.detach().norm(dim=dims, keepdim=True) / d.norm(dim=dims, keepdim=True).clamp_min(1e-12)
        out.append(d)
    return out


@torch.no_grad()
def loss_slice(model: nn.Module, X: torch.Tensor, y: torch.Tensor, params: Sequence[torch.Tensor],
               dirs: Sequence[Sequence[torch.Tensor]], coords: np.ndarray,
               loss_fn: Callable = F.cross_entropy) -> np.ndarray:
    """Loss at theta + sum_i c_i d_i for each coordinate row c in coords [n, len(dirs)]."""
    names = {id(t): n for n, t in model.named_parameters()}
    base = {k: v.detach() for k, v in model.state_dict(keep_vars=True).items()}
    keys = [names[id(t)] for t in params]
    out = np.empty(len(coords))
    with eval_mode(model):
        for i, c in enumerate(coords):
            moved = dict(base)
            for j, key in enumerate(keys):
                moved[key] = base[key] + sum(float(c[a]) * dirs[a][j] for a in range(len(dirs)))
            out[i] = loss_fn(functional_call(model, moved, (X,)), y).item()
    return out


def landscape_measures(model: nn.Module, X: torch.Tensor, y: torch.Tensor, blocks: Sequence[str] = ("all",),
                       dims: int = 2, n_points: int = 21, radius: float = 1.0, filter_norm: bool = True,
                       generator: torch.Generator | None = None,
                       loss_fn: Callable = F.cross_entropy) -> tuple[dict, dict]:
    """Arrays landscape/alphas [n] and landscape/loss [n] (1-D) or [n, n] (2-D); scalar landscape/sharpness
    = mean loss rise at the smallest nonzero |alpha| along the first direction."""
    params = [t for b in blocks for t in block_params(model, b)]
    params = list({id(t): t for t in params}.values())  # "all" + "E" would repeat E
    g = generator or torch.Generator().manual_seed(0)
    dirs = [random_direction(params, g, filter_norm) for _ in range(dims)]
    alphas = np.linspace(-radius, radius, n_points)
    if dims == 1:
        grid = alphas[:, None]
    else:
        A, B = np.meshgrid(alphas, alphas, indexing="ij")
        grid = np.stack([A.ravel(), B.ravel()], 1)
    loss = loss_slice(model, X, y, params, dirs, grid, loss_fn).reshape((n_points,) * dims)
    line = loss if dims == 1 else loss[:, n_points // 2]
    centre = loss_slice(model, X, y, params, dirs, np.zeros((1, dims)), loss_fn)[0]
    nz = np.argsort(np.abs(alphas))[1:3]  # the two smallest nonzero |alpha| (symmetric pair)
    return ({"landscape/loss0": float(centre), "landscape/sharpness": float(line[nz].mean() - centre)},
            {"landscape/alphas": alphas.astype(np.float32), "landscape/loss": loss.astype(np.float32)})


def singular_direction(W: torch.Tensor) -> torch.Tensor:
    """sigma_1 u_1 v_1^T: the top rank-1 component of a weight matrix (moving by a * it scales sigma_1 by 1 + a)."""
    U, S, Vh = torch.linalg.svd(W.detach().double(), full_matrices=False)
    return (S[0] * torch.outer(U[:, 0], Vh[0])).to(W.dtype)


def curvature(model: nn.Module, X: torch.Tensor, y: torch.Tensor, params: Sequence[torch.Tensor],
              direction: Sequence[torch.Tensor], loss_fn: Callable = F.cross_entropy) -> float:
    """d^T H d / d^T d: the loss's second derivative along `direction` (one tensor per param; scale-free)."""
    from groklab.measures.hessian import HVP

    d = torch.cat([t.reshape(-1) for t in direction]).double()
    hv = HVP(model, list(params), X, y, loss_fn)(d)
    return float(d @ hv / (d @ d))
