"""Gradient filters applied between backward() and step(): Grokfast (EMA, MA) and ⊥Grad."""
from __future__ import annotations

import torch


class GrokfastEMA:
    """Lee et al. 2024, Grokfast-EMA: ema <- alpha ema + (1 - alpha) g; g <- g + lamb ema (ema starts at g_0)."""

    def __init__(self, params: list[torch.Tensor], alpha: float = 0.98, lamb: float = 2.0):
        self.params, self.alpha, self.lamb = params, alpha, lamb
        self.ema: list[torch.Tensor] | None = None

    @torch.no_grad()
    def __call__(self) -> None:
        grads = [t.grad for t in self.params]
        if self.ema is None:
            self.ema = [g.clone() for g in grads]
        else:
            torch._foreach_mul_(self.ema, self.alpha)
            torch._foreach_add_(self.ema, grads, alpha=1 - self.alpha)
        torch._foreach_add_(grads, self.ema, alpha=self.lamb)

    def state_dict(self) -> dict:
        return {"ema": self.ema}

    def load_state_dict(self, s: dict) -> None:
        self.ema = s["ema"]


class GrokfastMA:
    """Grokfast-MA: once `window` gradients are stored, g <- g + lamb * mean of the last `window` (incl. g).

    A running sum keeps it O(params) per step; it is re-summed exactly once per window against drift.
    """

    def __init__(self, params: list[torch.Tensor], window: int = 100, lamb: float = 5.0):
        self.params, self.window, self.lamb = params, window, lamb
        self.buf = [torch.zeros((window, *t.shape), dtype=t.dtype, device=t.device) for t in params]
        self.sum = [torch.zeros_like(t) for t in params]
        self.count = 0  # gradients seen

    @torch.no_grad()
    def __call__(self) -> None:
        i = self.count % self.window
        for g, buf, s in zip((t.grad for t in self.params), self.buf, self.sum):
            s.add_(g).sub_(buf[i])
            buf[i].copy_(g)
            if i == self.window - 1:
                torch.sum(buf, 0, out=s)
        self.count += 1
        if self.count >= self.window:
            torch._foreach_add_([t.grad for t in self.params], self.sum, alpha=self.lamb / self.window)

    def state_dict(self) -> dict:
        return {"buf": self.buf, "sum": self.sum, "count": self.count}

    def load_state_dict(self, s: dict) -> None:
        self.buf, self.sum, self.count = s["buf"], s["sum"], s["count"]


def make_grad_filter(o, params: list[torch.Tensor]):
    """The Grokfast filter named by optim.grokfast, or None."""
    if o.grokfast == "ema":
        return GrokfastEMA(params, o.grokfast_alpha, o.grokfast_lamb)
    if o.grokfast == "ma":
        return GrokfastMA(params, o.grokfast_window, o.grokfast_lamb)
    return None


@torch.no_grad()
def ortho_grad_(params: list[torch.Tensor], eps: float = 1e-30) -> None:
    """⊥Grad (Prieto et al. 2025), per tensor w with gradient g:
    g_perp = g - (w.g / w.w) w, then g <- g_perp * |g| / |g_perp| (the original norm)."""
    for w in params:
        g = w.grad
        if g is None:
            continue
        wf, gf = w.flatten(), g.flatten()
        g_norm = gf.norm()
        g_perp = gf - (torch.dot(wf, gf) / (torch.dot(wf, wf) + eps)) * wf
        g.copy_((g_perp * (g_norm / (g_perp.norm() + eps))).view_as(g))
