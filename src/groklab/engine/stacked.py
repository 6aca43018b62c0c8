"""M MLPs as one: parameters stacked member-major in a flat [M, P] buffer, batched matmuls, stacked Adam/AdamW/SGD.

Member i's parameter `name` is the view theta[i, off:off+numel].view(shape), in the order of the solo
model's named_parameters() (E first), so the solo state_dict is a slice of the buffer. Every block
starts at a multiple of ALIGN elements and P is one too (zero padding between). Per-member
lr / weight decay / embedding ratio c are [M, 1] columns that broadcast over a member's row; the
optimizer is ~10 whole-buffer ops per step whatever M is.
"""
from __future__ import annotations

import math
import os
from contextlib import contextmanager

import torch
import torch.nn.functional as F

from groklab.models.mlp import ACTS

# Block offsets and the member stride P are multiples of 64 elements (256 bytes). With an odd P (193761
# for the paper MLP) member i's weights start misaligned, and cuBLAS falls back to its slow unaligned
# batched kernels: measured on an H100, see benchmarks/results/.
ALIGN = 64


def _adam_fused(th, g, m, v, lr, lr_E, wd, t, nE: int, b1: float, b2: float, eps: float, decoupled: bool):
    """Adam/AdamW on whole [M, P] buffers in one pass; compiled into a single kernel on CUDA."""
    lr_full = torch.where(torch.arange(th.shape[1], device=th.device) < nE, lr_E, lr)
    if decoupled:
        th.mul_(1 - lr_full * wd)
    else:
        g = g + wd * th
    m.lerp_(g, 1 - b1)
    v.mul_(b2).addcmul_(g, g, value=1 - b2)
    bc1, bc2_sqrt = (1 - b1 ** t).to(th.dtype), torch.sqrt(1 - b2 ** t).to(th.dtype)  # t is float64, as torch's
    denom = v.sqrt() / bc2_sqrt + eps
    th.sub_(lr_full / bc1 * m / denom)


_adam_compiled = None


def _adam_kernel():
    global _adam_compiled
    if _adam_compiled is None:
        _adam_compiled = torch.compile(_adam_fused, dynamic=True)
    return _adam_compiled


@contextmanager
def _matmul_precision(precision: str | None):
    """Set torch's CUDA float32 matmul precision ("tf32" / "ieee") for the block; None leaves it alone."""
    if precision is None:
        yield
        return
    old = torch.backends.cuda.matmul.fp32_precision
    torch.backends.cuda.matmul.fp32_precision = precision
    try:
        yield
    finally:
        torch.backends.cuda.matmul.fp32_precision = old


class StackedMLP:
    """Flat buffers (theta, grad, optimizer state) for M members of one MLP shape; forward, loss, step."""

    def __init__(self, models: list, cfgs: list, device: torch.device):
        ref = models[0]
        self.M, self.device = len(models), device
        self.names = [n for n, _ in ref.named_parameters()]
        self.shapes = {n: t.shape for n, t in ref.named_parameters()}
        self.offsets, P = {}, 0
        for n in self.names:
            P = -(-P // ALIGN) * ALIGN
            self.offsets[n] = (P, P + self.shapes[n].numel())
            P += self.shapes[n].numel()
        P = -(-P // ALIGN) * ALIGN
        self.nE = self.offsets["E.weight"][1] if "E.weight" in self.offsets else 0  # E is first
        self.vocab = self.shapes["E.weight"][0] if self.nE else 0
        self.n_hidden = len(ref.hidden)
        self.act = ACTS[cfgs[0].model.act]()
        dtype = next(ref.parameters()).dtype
        self.theta = torch.zeros(self.M, P, dtype=dtype, device=device)
        with torch.no_grad():
            for i, m in enumerate(models):
                for n, t in m.named_parameters():
                    self.theta[i, slice(*self.offsets[n])] = t.detach().reshape(-1)
        self.grad = torch.zeros_like(self.theta)
        o = cfgs[0].optim
        self.base, self.betas, self.eps, self.momentum = o.base, tuple(o.betas), o.eps, o.momentum
        col = lambda xs: torch.tensor(xs, dtype=dtype, device=device).view(-1, 1)  # noqa: E731
        self.lr = col([c.optim.lr for c in cfgs])
        # the embedding's lr: c * lr (Adam-LR); 0 keeps a frozen embedding exactly at its init
        self.lr_E = col([0.0 if c.model.freeze_emb else c.optim.ratio * c.optim.lr for c in cfgs])
        self.wd = col([c.optim.weight_decay for c in cfgs])
        self.t = 0  # optimizer steps taken (the same for every member)
        self.t_dev = torch.zeros((), dtype=torch.float64, device=device)  # on the device: no host sync
        # GROKLAB_FUSED=0 turns the compiled CUDA optimizer off (e.g. without a working triton)
        self.fused = device.type == "cuda" and self.base != "sgd" and os.environ.get("GROKLAB_FUSED", "1") != "0"
        # TF32 matmuls for the training step on CUDA (float32): 1.7x faster at M=256, batch 512 on an H100,
        # ~1e-3 relative per matmul; GROKLAB_TF32=0 keeps full float32. Evaluation always runs in float32.
        tf32 = device.type == "cuda" and dtype == torch.float32 and os.environ.get("GROKLAB_TF32", "1") != "0"
        self.precision = "tf32" if tf32 else None
        self.state = {}  # exp_avg / exp_avg_sq (adam, adamw) or momentum_buffer (sgd), each [M, P]
        self._link()

    def _link(self) -> None:
        """Leaf views of theta, one per parameter: the optimizer's in-place updates are what forward reads."""
        self.params = {n: self.theta[:, slice(*self.offsets[n])].view(self.M, *self.shapes[n]).requires_grad_()
                       for n in self.names}

    # -- members in and out ------------------------------------------------------------------
    def keep(self, idx: list[int]) -> None:
        """Drop every member not in `idx` (finished runs), keeping the order of `idx`."""
        sel = torch.tensor(idx, dtype=torch.long, device=self.device)
        with torch.no_grad():
            self.theta = self.theta.index_select(0, sel)
            self.grad = torch.zeros_like(self.theta)
            self.state = {k: v.index_select(0, sel) for k, v in self.state.items()}
            self.lr, self.lr_E, self.wd = (x.index_select(0, sel) for x in (self.lr, self.lr_E, self.wd))
        self.M = len(idx)
        self._link()

    def member(self, i: int) -> dict:
        """Member i's parameters and optimizer state as {name: tensor} dicts in the solo shapes."""
        cut = lambda buf, n: buf[i, slice(*self.offsets[n])].view(self.shapes[n]).detach().clone()  # noqa: E731
        return {"params": {n: cut(self.theta, n) for n in self.names},
                "state": {k: {n: cut(v, n) for n in self.names} for k, v in self.state.items()}, "t": self.t}

    def load_state(self, i: int, t: int, state: dict) -> None:
        """Set member i's optimizer state from {kind: {name: tensor}} (a resumed solo checkpoint)."""
        self.t = t
        self.t_dev.fill_(t)
        with torch.no_grad():
            for kind, by_name in state.items():
                buf = self.state.setdefault(kind, torch.zeros_like(self.theta))
                for n, x in by_name.items():
                    buf[i, slice(*self.offsets[n])] = x.reshape(-1).to(buf)

    # -- compute -------------------------------------------------------------------------------
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: [M, R, n_ctx] tokens (or raw floats) -> logits [M, p, R].

        Activations are feature-major, h: [M, features, R], so every layer is baddbmm(b, W, h) and autograd
        returns each weight's gradient in the weight's own [out, in] layout (no transposed copies).
        """
        p, M = self.params, self.M
        if self.nE:
            E = p["E.weight"]  # [M, vocab, d_emb]; member i's tokens index rows i*vocab + token
            shift = torch.arange(M, device=x.device).view(M, 1, 1) * self.vocab
            h = F.embedding(x + shift, E.reshape(M * self.vocab, -1)).flatten(2)
        else:
            h = x
        h = h.transpose(1, 2)
        for layer in ["W"] + [f"hidden.{k}" for k in range(self.n_hidden)]:
            h = self.act(torch.baddbmm(p[f"{layer}.bias"].unsqueeze(-1), p[f"{layer}.weight"], h))
        return torch.baddbmm(p["U.bias"].unsqueeze(-1), p["U.weight"], h)

    def backward(self, x: torch.Tensor, y: torch.Tensor) -> None:
        """Write each member's gradient of its mean cross-entropy on (x [M, B, ...], y [M, B]) into self.grad."""
        with _matmul_precision(self.precision):
            logits = self.forward(x)
            loss = F.cross_entropy(logits, y, reduction="sum") / y.shape[1]  # member i's grad is its solo one
            grads = torch.autograd.grad(loss, list(self.params.values()))
        for n, g in zip(self.names, grads):  # padding columns stay zero
            self.grad[:, slice(*self.offsets[n])].copy_(g.view(self.M, -1))

    @torch.no_grad()
    def row_losses(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-member per-row cross-entropy and correctness for the shared rows x [R, n_ctx]."""
        logits = self.forward(x.expand(self.M, *x.shape))
        loss = F.cross_entropy(logits, y.expand(self.M, -1), reduction="none")
        return loss, logits.argmax(1) == y

    @torch.no_grad()
    def step(self) -> None:
        """One optimizer step for every member, following torch's Adam / AdamW / SGD formulas."""
        self.t += 1
        th, g, nE = self.theta, self.grad, self.nE
        b1, b2 = self.betas
        if self.fused:  # CUDA: one compiled kernel instead of ~25 memory passes over [M, P]; it applies wd
            m = self.state.setdefault("exp_avg", torch.zeros_like(th))
            v = self.state.setdefault("exp_avg_sq", torch.zeros_like(th))
            self.t_dev += 1
            _adam_kernel()(th, g, m, v, self.lr, self.lr_E, self.wd, self.t_dev, nE, b1, b2, self.eps,
                           self.base == "adamw")
            return
        if self.base in ("adam", "sgd"):
            g.addcmul_(th, self.wd)  # coupled weight decay: g + wd * theta
        if self.base == "sgd":
            if self.momentum:
                if "momentum_buffer" not in self.state:
                    self.state["momentum_buffer"] = g.clone()
                else:
                    self.state["momentum_buffer"].mul_(self.momentum).add_(g)
                g = self.state["momentum_buffer"]
            th[:, :nE].addcmul_(g[:, :nE], -self.lr_E)
            th[:, nE:].addcmul_(g[:, nE:], -self.lr)
            return
        if self.base == "adamw":  # decoupled: theta * (1 - lr * wd), with the embedding's own lr
            th[:, :nE].mul_(1 - self.lr_E * self.wd)
            th[:, nE:].mul_(1 - self.lr * self.wd)
        m = self.state.setdefault("exp_avg", torch.zeros_like(th))
        v = self.state.setdefault("exp_avg_sq", torch.zeros_like(th))
        m.lerp_(g, 1 - b1)
        v.mul_(b2).addcmul_(g, g, value=1 - b2)
        bc1, bc2_sqrt = 1 - b1 ** self.t, math.sqrt(1 - b2 ** self.t)
        u = m / v.sqrt().div_(bc2_sqrt).add_(self.eps)
        th[:, :nE].addcmul_(u[:, :nE], self.lr_E / -bc1)
        th[:, nE:].addcmul_(u[:, nE:], self.lr / -bc1)
