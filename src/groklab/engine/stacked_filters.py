"""Gradient filters on a stack's gradients, member by member, as optim/filters.py applies them to one run:
Grokfast-EMA (g <- g + lambda * EMA_alpha(g), the average starting at the first gradient) or Grokfast-MA (g <- g +
lambda * the mean of the last `window` gradients, once there are that many: a ring of `window` flat buffers and
their running sum, re-summed once a window), then ⊥Grad (each weight tensor's gradient loses its component along
the weight, keeping its norm). The operations are the solo ones on [M, ...] blocks, so a stacked member equals its
solo run. MA's position in its ring is a step count on the host, which a captured CUDA graph would freeze: an MA
stack runs eagerly.
"""
from __future__ import annotations

import torch

FILTER = "grokfast_ema"  # the EMA buffer's name among a stack's flat buffers (never an optimizer state)
MA = "grokfast_ma"  # the prefix of MA's ring buffers (MA + "0", "1", ...) and running sum (MA + "_sum") there
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
    if stack.grokfast_ma is not None:
        _moving_average(stack, grads)
    if stack.ortho:
        for n, g in zip(stack.names, grads):
            w, gf = stack.block(stack.theta, n), g.reshape(stack.M, -1)
            g_norm = gf.norm(dim=1, keepdim=True)
            proj = (w * gf).sum(1, keepdim=True) / ((w * w).sum(1, keepdim=True) + EPS)
            g_perp = gf - proj * w
            # into g itself: a gradient of a transposed use (the RNNs' weights) is not contiguous, and its
            # reshape above is a copy
            g.copy_((g_perp * (g_norm / (g_perp.norm(dim=1, keepdim=True) + EPS))).view(g.shape))


def _moving_average(stack, grads: list[torch.Tensor]) -> None:
    """GrokfastMA.__call__ on every member at once (its count is the stack's: members start together)."""
    window, lamb = stack.grokfast_ma
    if stack.ma is None:
        stack.ma = {"buf": [torch.zeros_like(stack.theta) for _ in range(window)],
                    "sum": torch.zeros_like(stack.theta), "count": 0}
    ma, i = stack.ma, stack.ma["count"] % window
    for n, g in zip(stack.names, grads):
        gf, s, b = g.reshape(stack.M, -1), stack.block(ma["sum"], n), stack.block(ma["buf"][i], n)
        s.add_(gf).sub_(b)
        b.copy_(gf)
        if i == window - 1:  # against drift, as the solo filter: the window summed in slot order
            torch.sum(torch.stack([stack.block(x, n) for x in ma["buf"]]), 0, out=s)
    ma["count"] += 1
    if ma["count"] >= window:
        for n, g in zip(stack.names, grads):
            g.add_(stack.block(ma["sum"], n).view_as(g), alpha=lamb / window)


def member_ma(stack, i: int, names: list[str]) -> dict | None:
    """Member i's MA state as GrokfastMA.state_dict() keeps it: buf [window, *shape] and sum per trained parameter
    (in `names`' order), and the count."""
    if stack.ma is None:
        return None
    cut = lambda x, n: stack.block(x, n)[i].view(stack.shapes[n]).clone()  # noqa: E731
    return {"buf": [torch.stack([cut(x, n) for x in stack.ma["buf"]]) for n in names],
            "sum": [cut(stack.ma["sum"], n) for n in names], "count": stack.ma["count"]}


def load_ma(stack, i: int, names: list[str], state: dict) -> None:
    """Set member i's MA state from a resumed solo filter's state_dict() (`names`: its trained parameters)."""
    window = stack.grokfast_ma[0]
    if stack.ma is None:
        stack.ma = {"buf": [torch.zeros_like(stack.theta) for _ in range(window)],
                    "sum": torch.zeros_like(stack.theta), "count": state["count"]}
    if stack.ma["count"] != state["count"]:
        raise ValueError(f"stacked members must resume at the same MA count ({stack.ma['count']} vs {state['count']})")
    with torch.no_grad():
        for n, buf, s in zip(names, state["buf"], state["sum"]):
            for j in range(window):
                stack.block(stack.ma["buf"][j], n)[i] = buf[j].reshape(-1).to(stack.theta)
            stack.block(stack.ma["sum"], n)[i] = s.reshape(-1).to(stack.theta)


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


__all__ = ["FILTER", "MA", "filter_grads", "load_ema", "load_ma", "member_ema", "member_ma"]
