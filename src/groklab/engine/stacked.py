"""M models of one shape as one: each parameter stacked over members, batched matmuls (MLPs) or vmap (others),
stacked Adam/AdamW/SGD.

Parameter-major layout: every buffer (theta, exp_avg, ...) is flat, and parameter `name` of all M members
is one contiguous block of it, viewed [M, *shape] (blocks in the solo model's named_parameters() order,
each starting at a multiple of ALIGN elements). Member i's solo tensor is block[i]. Contiguous blocks
make cuBLAS's batched kernels fast, give autograd's gradients the same layout (no copies), and let the
optimizer run block by block with the per-member lr / weight decay / Adam-LR c as [M, 1] columns.
On CUDA (Adam/AdamW) the whole training step is captured once as a CUDA graph and replayed.
"""
from __future__ import annotations

from contextlib import contextmanager

import torch
import torch.nn.functional as F

from groklab.models.mlp import ACTS

ALIGN = 64  # elements (256 bytes): block starts aligned for vectorized loads and cuBLAS


def _adam_fused(th, g, m, v, lr, wd, t, b1: float, b2: float, eps: float, decoupled: bool):
    """Adam/AdamW on one [M, k] block in one pass; compiled into a single kernel on CUDA."""
    if decoupled:
        th.mul_(1 - lr * wd)
    else:
        g = g + wd * th
    m.lerp_(g, 1 - b1)
    v.mul_(b2).addcmul_(g, g, value=1 - b2)
    bc1, bc2_sqrt = (1 - b1 ** t).to(th.dtype), torch.sqrt(1 - b2 ** t).to(th.dtype)  # t is float64, as torch's
    denom = v.sqrt() / bc2_sqrt + eps
    th.sub_(lr / bc1 * m / denom)


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


class Stacked:
    """Flat parameter-major buffers (theta, optimizer state) for M members of one model shape; forward, step.

    MLPs run a hand-written batched forward (baddbmm); any other model (the Transformer) runs its own forward
    on each member's parameters through torch.func.functional_call, vectorised over members by vmap.
    """

    def __init__(self, models: list, cfgs: list, device: torch.device):
        ref = models[0]
        self.device = device
        self.names = [n for n, _ in ref.named_parameters()]
        self.shapes = {n: t.shape for n, t in ref.named_parameters()}
        self.vocab = self.shapes["E.weight"][0] if "E.weight" in self.shapes else 0
        self.mlp = hasattr(ref, "hidden")
        self.order = list(ref.order) if self.mlp else []  # hidden layers in applied order (tied: one, reused)
        self.act = ACTS[cfgs[0].model.act]()
        self.module = ref  # its forward, for the functional path (its own parameters are not used)
        for m in ref.modules():  # fused attention kernels have no vmap batching rule: plain matmuls instead
            if hasattr(m, "fused_attention"):
                m.fused_attention = False
        dtype = next(ref.parameters()).dtype
        self._layout(len(models))
        self.theta = torch.zeros(self.size, dtype=dtype, device=device)
        with torch.no_grad():
            for n in self.names:
                self.block(self.theta, n).copy_(torch.stack([dict(m.named_parameters())[n].detach().reshape(-1)
                                                             for m in models]))
        o = cfgs[0].optim
        self.base = "sgd" if o.name == "sgd" else ("adamw" if o.decoupled else "adam")  # the update rule
        self.betas, self.eps, self.momentum = tuple(o.betas), o.eps, o.momentum
        col = lambda xs: torch.tensor(xs, dtype=dtype, device=device).view(-1, 1)  # noqa: E731
        self.lr = col([c.optim.lr for c in cfgs])
        # the embedding's lr: c * lr (Adam-LR); 0 keeps a frozen embedding exactly at its init
        self.lr_E = col([0.0 if c.model.freeze_emb else c.optim.c * c.optim.lr for c in cfgs])
        self.wd = col([c.optim.weight_decay for c in cfgs])
        self.lr0, self.lr_E0 = self.lr.clone(), self.lr_E.clone()  # before any schedule (scale_lr)
        self.t = 0  # optimizer steps taken (the same for every member)
        self.t_dev = torch.zeros((), dtype=torch.float64, device=device)  # on the device: no host sync
        # The fast CUDA path for Adam/AdamW: compiled one-pass optimizer and the step as a CUDA graph; TF32
        # matmuls only when asked (config fields `fused`, `tf32`, shared by a stack: population.stack_key).
        # Evaluation always runs in float32.
        self.fused = device.type == "cuda" and self.base != "sgd" and cfgs[0].fused
        tf32 = device.type == "cuda" and dtype == torch.float32 and cfgs[0].tf32
        self.precision = "tf32" if tf32 else None
        self.state = {}  # exp_avg / exp_avg_sq (adam, adamw) or momentum_buffer (sgd), each laid out as theta
        self._link()

    def _layout(self, M: int) -> None:
        """Block offsets for M members: parameter n's block is [start, start + M * numel)."""
        self.M, self.starts, end = M, {}, 0
        for n in self.names:
            self.starts[n] = -(-end // ALIGN) * ALIGN
            end = self.starts[n] + M * self.shapes[n].numel()
        self.size = end

    def block(self, buf: torch.Tensor, n: str) -> torch.Tensor:
        """Parameter n's block of a flat buffer as [M, numel]."""
        a = self.starts[n]
        return buf[a:a + self.M * self.shapes[n].numel()].view(self.M, -1)

    def _link(self) -> None:
        """Leaf views [M, *shape] of theta: the optimizer's in-place updates are what forward reads."""
        self.params = {n: self.block(self.theta, n).view(self.M, *self.shapes[n]).requires_grad_()
                       for n in self.names}
        self._graph, self._graph_shape = None, None  # buffers changed: capture again

    # -- members in and out ------------------------------------------------------------------
    def keep(self, idx: list[int]) -> None:
        """Drop every member not in `idx` (finished runs), keeping the order of `idx`."""
        sel = torch.tensor(idx, dtype=torch.long, device=self.device)
        bufs = {"theta": self.theta, **self.state}
        blocks = {k: {n: self.block(b, n).index_select(0, sel) for n in self.names} for k, b in bufs.items()}
        self._layout(len(idx))
        new = {}
        with torch.no_grad():
            for k, by_name in blocks.items():
                new[k] = torch.zeros(self.size, dtype=self.theta.dtype, device=self.device)
                for n, x in by_name.items():
                    self.block(new[k], n).copy_(x)
            self.lr, self.lr_E, self.wd, self.lr0, self.lr_E0 = (
                x.index_select(0, sel) for x in (self.lr, self.lr_E, self.wd, self.lr0, self.lr_E0))
        self.theta = new.pop("theta")
        self.state = new
        self._link()

    @torch.no_grad()
    def scale_lr(self, f: torch.Tensor) -> None:
        """Every member's lr (and the embedding's c * lr) at its schedule's factor f [M, 1]; written in place,
        so a captured CUDA graph reads the new values on its next replay."""
        torch.mul(self.lr0, f, out=self.lr)
        torch.mul(self.lr_E0, f, out=self.lr_E)

    def member(self, i: int) -> dict:
        """Member i's parameters and optimizer state as {name: tensor} dicts in the solo shapes."""
        cut = lambda buf, n: self.block(buf, n)[i].view(self.shapes[n]).detach().clone()  # noqa: E731
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
                    self.block(buf, n)[i] = x.reshape(-1).to(buf)

    # -- compute -------------------------------------------------------------------------------
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: [M, R, n_ctx] tokens (or raw floats) -> logits [M, p, R].

        Activations are feature-major, h: [M, features, R], so every layer is baddbmm(b, W, h) and autograd
        returns each weight's gradient in the weight's own [out, in] layout (no transposed copies).
        """
        p, M = self.params, self.M
        if not self.mlp:
            return self._functional_forward(x)
        if self.vocab:
            E = p["E.weight"]  # [M, vocab, d_emb]; member i's tokens index rows i*vocab + token
            shift = torch.arange(M, device=x.device).view(M, 1, 1) * self.vocab
            h = F.embedding(x + shift, E.view(M * self.vocab, -1)).flatten(2)
        else:
            h = x
        h = h.transpose(1, 2)
        for layer in ["W"] + [f"hidden.{k}" for k in self.order]:
            h = self.act(torch.baddbmm(p[f"{layer}.bias"].unsqueeze(-1), p[f"{layer}.weight"], h))
        return torch.baddbmm(p["U.bias"].unsqueeze(-1), p["U.weight"], h)

    def _functional_forward(self, x: torch.Tensor) -> torch.Tensor:
        """Any model: vmap over members of functional_call(module, member's parameters, x_i) -> [M, p, R]."""
        from torch.func import functional_call, vmap

        one = lambda params, xi: functional_call(self.module, params, (xi,))  # noqa: E731
        return vmap(one)(self.params, x).transpose(1, 2)

    def grads(self, x: torch.Tensor, y: torch.Tensor, w: torch.Tensor | None = None) -> list[torch.Tensor]:
        """Each parameter's [M, *shape] gradient of each member's mean cross-entropy on (x [M, B, ...], y [M, B]);
        `w` [M, B], row weights: full batches of unequal sizes padded to B, 1 / n_i on member i's rows, 0 after."""
        with _matmul_precision(self.precision):
            if w is None:
                loss = F.cross_entropy(self.forward(x), y, reduction="sum") / y.shape[1]  # each grad its solo one
            else:
                loss = (F.cross_entropy(self.forward(x), y, reduction="none") * w).sum()
            return list(torch.autograd.grad(loss, list(self.params.values())))

    def train_step(self, X: torch.Tensor, y: torch.Tensor, idx: torch.Tensor, w: torch.Tensor | None = None) -> None:
        """One optimizer step of every member on its batch of table rows idx [M, B] (row weights `w`: grads).

        Fast CUDA path: the first step after a (re)layout runs eagerly (warm-up), the next is captured as
        a CUDA graph, and every later one copies idx into the graph's input and replays it: one launch
        instead of ~80, so the host keeps ahead of the device.
        """
        if not self.fused:
            self.step(self.grads(X[idx], y[idx], w))
            return
        if self._graph_shape != idx.shape:
            self._graph, self._graph_shape = None, idx.shape
            side = torch.cuda.Stream()  # warm-up off the capture's stream, as torch's CUDA graph notes ask
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                self.step(self.grads(X[idx], y[idx], w))
            torch.cuda.current_stream().wait_stream(side)
            return
        if self._graph is None:
            self._idx, self._graph = idx.clone(), torch.cuda.CUDAGraph()
            with torch.cuda.graph(self._graph):
                self.step(self.grads(X[self._idx], y[self._idx], w))  # recorded, not run; counts self.t
        else:
            self._idx.copy_(idx)
            self.t += 1
        self._graph.replay()

    @torch.no_grad()
    def row_losses(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-member per-row cross-entropy and correctness for the shared rows x [R, n_ctx]."""
        logits = self.forward(x.expand(self.M, *x.shape))
        loss = F.cross_entropy(logits, y.expand(self.M, -1), reduction="none")
        return loss, logits.argmax(1) == y

    @torch.no_grad()
    def step(self, grads: list[torch.Tensor]) -> None:
        """One optimizer step for every member, block by block, following torch's Adam / AdamW / SGD formulas."""
        self.t += 1
        kinds = {"sgd": ["momentum_buffer"] if self.momentum else []}.get(self.base, ["exp_avg", "exp_avg_sq"])
        first = not all(k in self.state for k in kinds)
        for k in kinds:
            self.state.setdefault(k, torch.zeros_like(self.theta))
        if self.fused:
            self.t_dev += 1
        b1, b2 = self.betas
        # CUDA: one compiled kernel per block instead of ~10 memory passes; elsewhere the same function eagerly
        adam = _adam_kernel() if self.fused else _adam_fused
        t = self.t_dev if self.fused else torch.tensor(float(self.t), dtype=torch.float64)
        for n, g in zip(self.names, grads):
            th, g, lr = self.block(self.theta, n), g.reshape(self.M, -1), self.lr_E if n == "E.weight" else self.lr
            if self.base != "sgd":
                adam(th, g, self.block(self.state["exp_avg"], n), self.block(self.state["exp_avg_sq"], n),
                     lr, self.wd, t, b1, b2, self.eps, self.base == "adamw")
                continue
            g = g + self.wd * th  # coupled weight decay, as torch's SGD
            if self.momentum:
                buf = self.block(self.state["momentum_buffer"], n)
                if first:
                    buf.copy_(g)
                else:
                    buf.mul_(self.momentum).add_(g)
                g = buf
            th.addcmul_(g, -lr)
