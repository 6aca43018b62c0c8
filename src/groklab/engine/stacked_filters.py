"""Gradient filters on a stack's gradients, member by member, as optim/filters.py applies them to one run:
Grokfast-EMA (g <- g + lambda * EMA_alpha(g), the average starting at the first gradient), then ⊥Grad (each
weight tensor's gradient loses its component along the weight, keeping its norm). The operations are the solo
ones on [M, ...] blocks, so a stacked member equals its solo run; Grokfast-MA keeps a step counter on the host,
which a captured CUDA graph would freeze, and does not stack.
"""
from __future__ import annotations

import torch

FILTER = "grokfast_ema"  # the EMA buffer's name among a stack's flat buffers (never an optimizer state)
EPS = 1e-30  # as optim.filters.ortho_grad_


@torch.no_grad()
def filter_grads(stack, grads: list[torch.Tensor]) -> None:
    """Filter `grads` ([M, *shape] per parameter name, in stack.names' order) in place."""
    if stack.grokfast is not None:
        alpha, lamb = stack.grokfast
        if stack.ema is None:
            stack.ema = torch.zeros_like(stack.theta)
            for n, g in zip(stack.names, grads):
                stack.block(stack.ema, n).copy_(g.reshape(stack.M, -1))
        else:
            ema = [stack.block(stack.ema, n) for n in stack.names]
            torch._foreach_mul_(ema, alpha)
            torch._foreach_add_(ema, [g.reshape(stack.M, -1) for g in grads], alpha=1 - alpha)
        for n, g in zip(stack.names, grads):
            g.add_(stack.block(stack.ema, n).view_as(g), alpha=lamb)
    if stack.ortho:
        for n, g in zip(stack.names, grads):
            w, gf = stack.block(stack.theta, n), g.reshape(stack.M, -1)
            g_norm = gf.norm(dim=1, keepdim=True)
            proj = (w * gf).sum(1, keepdim=True) / ((w * w).sum(1, keepdim=True) + EPS)
            g_perp = gf - proj * w
            # into g itself: a gradient of a transposed use (the RNNs' weights) is not contiguous, and its
            # reshape above is a copy
            g.copy_((g_perp * (g_norm / (g_perp.norm(dim=1, keepdim=True) + EPS))).view(g.shape))


def member_ema(stack, i: int, names: list[str]) -> list[torch.Tensor] | None:
    """Member i's EMA as the solo filter keeps it: one tensor per trained parameter, in `names`' order."""
    if stack.ema is None:
        return None
    return [stack.block(stack.ema, n)[i].view(stack.shapes[n]).clone() for n in names]


def load_ema(stack, i: int, by_name: dict[str, torch.Tensor]) -> None:
    """Set member i's EMA from a resumed solo filter's ({name: tensor}); the others' stay as they are."""
    if stack.ema is None:
        stack.ema = torch.zeros_like(stack.theta)
    with torch.no_grad():
        for n, x in by_name.items():
            stack.block(stack.ema, n)[i] = x.reshape(-1).to(stack.ema)


__all__ = ["FILTER", "filter_grads", "load_ema", "member_ema"]
