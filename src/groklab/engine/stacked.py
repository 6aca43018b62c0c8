"""M models of one shape as one: each parameter stacked over members; the model's own batched forward
(`stacked_forward`: MLP, LSTM / RNN) or vmap over functional_call (any other, the Transformer); each member's
torch optimizer (SGD, Adam, AdamW, NAdam, RMSprop) applied block by block (optim/rules.py); the MLP's dropout
with each member's own generator (engine/rng.py).

Parameter-major layout: every buffer (theta, exp_avg, ...) is flat, and parameter `name` of all M members
is one contiguous block of it, viewed [M, *shape] (blocks in the solo model's named_parameters() order,
each starting at a multiple of ALIGN elements). Member i's solo tensor is block[i]. Contiguous blocks
make cuBLAS's batched kernels fast, give autograd's gradients the same layout (no copies), and let the
optimizer run block by block with each member's lr and weight decay as [M, 1] columns, read off the member's own
parameter groups (Adam-LR's c lives there, optim.param_groups, and nowhere else).
On CUDA (Adam/AdamW) the whole training step is captured once as a CUDA graph and replayed.
"""
from __future__ import annotations

import torch

from groklab.engine.loss import make_loss
from groklab.engine.precision import fp32_precision
from groklab.engine.stacked_filters import FILTER, MA, filter_grads
from groklab.optim import rules

ALIGN = 64  # elements (256 bytes): block starts aligned for vectorized loads and cuBLAS


_adam_compiled = None


def _adam_kernel():
    global _adam_compiled
    if _adam_compiled is None:
        _adam_compiled = torch.compile(rules.adam_, dynamic=True)
    return _adam_compiled


class Stacked:
    """Flat parameter-major buffers (theta, optimizer state) for M members of one model shape; forward, step.

    models, optimizers: the members' solo models and torch optimizers (their parameter groups give each
    parameter's lr and weight decay; the optimizer's class and defaults give the rule, shared by the stack).
    gens: with dropout, each member's generator for its masks (engine/rng.py), drawn in its solo run's order.
    """

    def __init__(self, models: list, optimizers: list, cfgs: list, device: torch.device, gens: list | None = None):
        ref = models[0]
        self.device = device
        self.names = [n for n, _ in ref.named_parameters()]
        self.shapes = {n: t.shape for n, t in ref.named_parameters()}
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
        self.rule = rules.rule_of(optimizers[0])
        self.kinds = rules.kinds(self.rule)
        adaptive = cfgs[0].optim.c_mode == "adaptive"  # the embedding's ratio c changes: a column of its own
        self._columns(models, optimizers, [c.optim.lr for c in cfgs], dtype, adaptive)
        self.t = 0  # optimizer steps taken (the same for every member)
        self.t_dev = torch.zeros((), dtype=torch.float64, device=device)  # on the device: no host sync
        self.mu_product = torch.tensor(1.0, dtype=rules.scalar_dtype())  # NAdam's running product, as torch keeps it
        # The fast CUDA path for Adam/AdamW: compiled one-pass optimizer and the step as a CUDA graph; TF32
        # matmuls only when asked (config fields `fused`, `tf32`, shared by a stack: population.stack_key).
        # Evaluation always runs in float32.
        self.p_drop, self.gens = cfgs[0].model.dropout, gens
        # (dropout runs eagerly: member generators would need registering with the captured graph)
        self.fused = (device.type == "cuda" and self.rule["name"] in ("adam", "adamw") and cfgs[0].fused and not gens
                      and cfgs[0].optim.grokfast != "ma")  # MA: a host-side count (stacked_filters)
        # TF32 or IEEE float32 in the training step on CUDA (engine/precision.py); None leaves a CPU alone
        self.tf32 = (dtype == torch.float32 and cfgs[0].tf32) if device.type == "cuda" else None
        self.state = {}  # the rule's per-parameter state (rules.STATE), each laid out as theta
        o = cfgs[0].optim  # gradient filters, shared by a stack (population.stack_key): Grokfast-EMA, then ⊥Grad
        self.ema = None  # Grokfast-EMA's average, laid out as theta; None until the first gradient (it starts there)
        self.grokfast = (o.grokfast_alpha, o.grokfast_lamb) if o.grokfast == "ema" else None
        self.grokfast_ma = (o.grokfast_window, o.grokfast_lamb) if o.grokfast == "ma" else None
        self.ma = None  # Grokfast-MA's ring and sum, laid out as theta, and its count (stacked_filters)
        self.ortho = o.ortho_grad
        self.loss_fn = make_loss(cfgs[0].loss, cfgs[0].loss_float64)  # the runs' loss, shared by a stack
        self._link()

    def _columns(self, models: list, optimizers: list, lrs: list, dtype, adaptive: bool = False) -> None:
        """Each parameter's [M, 1] columns: its group's ratio c to the member's lr (0: not trained, a frozen
        embedding) and its weight decay. Parameters with equal columns share one tensor, so a schedule
        rewrites a handful of columns in place (a captured CUDA graph reads them on its next replay)."""
        col = lambda xs: torch.tensor(xs, dtype=dtype, device=self.device).view(-1, 1)  # noqa: E731
        per, own = {n: ([], []) for n in self.names}, set()
        for model, opt in zip(models, optimizers):
            group = {id(t): g for g in opt.param_groups for t in g["params"]}
            for n, t in model.named_parameters():
                g = group.get(id(t))
                per[n][0].append(0.0 if g is None else g.get("c", 1.0))
                per[n][1].append(0.0 if g is None else g["weight_decay"])
                if adaptive and g is not None and g.get("role") == "E":
                    own.add(n)
        self.base_lr = col(lrs)  # each member's lr before its schedule
        self.factor = torch.ones_like(self.base_lr)  # each member's schedule factor now
        self.ratio, self.lr, self.wd, self.key = {}, {}, {}, {}
        for n, (ratio, wd) in per.items():
            k = self.key[n] = ("E" if n in own else "", tuple(ratio), tuple(wd))
            if k not in self.ratio:
                self.ratio[k], self.wd[k] = col(ratio), col(wd)
                self.lr[k] = self.base_lr * self.ratio[k]

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
        bufs = {"theta": self.theta, **self.state, **({FILTER: self.ema} if self.ema is not None else {})}
        if self.ma is not None:
            bufs.update({f"{MA}{j}": x for j, x in enumerate(self.ma["buf"])}, **{f"{MA}_sum": self.ma["sum"]})
        blocks = {k: {n: self.block(b, n).index_select(0, sel) for n in self.names} for k, b in bufs.items()}
        self._layout(len(idx))
        new = {}
        with torch.no_grad():
            for k, by_name in blocks.items():
                new[k] = torch.zeros(self.size, dtype=self.theta.dtype, device=self.device)
                for n, x in by_name.items():
                    self.block(new[k], n).copy_(x)
            pick = lambda d: {k: x.index_select(0, sel) for k, x in d.items()}  # noqa: E731
            self.base_lr, self.factor, self.ratio, self.lr, self.wd = (
                x.index_select(0, sel) if torch.is_tensor(x) else pick(x)
                for x in (self.base_lr, self.factor, self.ratio, self.lr, self.wd))
        self.gens = [self.gens[i] for i in idx] if self.gens else self.gens
        self.theta, self.ema = new.pop("theta"), new.pop(FILTER, None)
        if self.ma is not None:
            self.ma = {"buf": [new.pop(f"{MA}{j}") for j in range(len(self.ma["buf"]))], "sum": new.pop(f"{MA}_sum"),
                       "count": self.ma["count"]}
        self.state = new
        self._link()

    @torch.no_grad()
    def scale_lr(self, f: torch.Tensor) -> None:
        """Every member's lrs at its schedule's factor f [M, 1] (each group at its ratio c); written in place,
        so a captured CUDA graph reads the new values on its next replay."""
        self.factor = f
        for k, lr in self.lr.items():
            torch.mul(self.base_lr * f, self.ratio[k], out=lr)

    @torch.no_grad()
    def set_ratio(self, name: str, c: list[float]) -> None:
        """Adaptive c: parameter `name`'s group (the embedding's) at ratio c[i] for member i, in place."""
        k = self.key[name]
        self.ratio[k].copy_(torch.tensor(c, dtype=self.ratio[k].dtype).view(-1, 1))
        torch.mul(self.base_lr * self.factor, self.ratio[k], out=self.lr[k])

    def member(self, i: int) -> dict:
        """Member i's parameters and optimizer state as {name: tensor} dicts in the solo shapes; `scalars`: the
        per-parameter numbers torch's optimizer keeps beside them (its step count, NAdam's mu product)."""
        cut = lambda buf, n: self.block(buf, n)[i].view(self.shapes[n]).detach().clone()  # noqa: E731
        return {"params": {n: cut(self.theta, n) for n in self.names},
                "state": {k: {n: cut(v, n) for n in self.names} for k, v in self.state.items()}, "t": self.t,
                "scalars": self.scalars()}

    def scalars(self) -> dict:
        """What torch's optimizer keeps per parameter beside the tensors, as it keeps it (its dtype and device)."""
        if not self.kinds or self.rule["name"] == "sgd":
            return {}
        if self.rule["name"] in ("adam", "adamw"):  # fused: the step count on the parameter's device
            return {"step": torch.tensor(float(self.t), dtype=torch.float32, device=self.device)}
        out = {"step": torch.tensor(float(self.t), dtype=rules.scalar_dtype())}
        return {**out, "mu_product": self.mu_product.clone()} if self.rule["name"] == "nadam" else out

    def load_state(self, i: int, t: int, state: dict) -> None:
        """Set member i's optimizer state from {kind: {name: tensor}} (a resumed solo checkpoint)."""
        self.t = t
        self.t_dev.fill_(t)
        with torch.no_grad():
            for kind, by_name in state.items():
                if kind == "mu_product":  # one number, equal for every parameter and member at step t
                    self.mu_product.copy_(next(iter(by_name.values())))
                    continue
                buf = self.state.setdefault(kind, torch.zeros_like(self.theta))
                for n, x in by_name.items():
                    self.block(buf, n)[i] = x.reshape(-1).to(buf)

    # -- compute -------------------------------------------------------------------------------
    def forward(self, x: torch.Tensor, train: bool = False) -> torch.Tensor:
        """x: [M, R, ...] tokens (or raw floats) -> logits [M, p, R]: the model's own batched forward where it
        has one, else its forward per member under vmap; `train`: with each member's dropout masks."""
        if hasattr(self.module, "stacked_forward"):
            if train and self.gens:
                return self.module.stacked_forward(self.params, x, self._drop)
            return self.module.stacked_forward(self.params, x)
        return self._functional_forward(x)

    def _drop(self, h: torch.Tensor) -> torch.Tensor:
        """Dropout on feature-major h [M, d, R]: member m's mask drawn [R, d] from its generator, as its solo run's
        nn.Dropout draws one on [R, d] rows (bernoulli, then / (1 - p)), so a member equals its solo run."""
        q = 1 - self.p_drop
        mask = torch.stack([torch.empty(h.shape[2], h.shape[1], dtype=h.dtype, device=h.device).bernoulli_(
            q, generator=g) for g in self.gens])
        return h * mask.div_(q).transpose(1, 2)

    def _functional_forward(self, x: torch.Tensor) -> torch.Tensor:
        """Any model: vmap over members of functional_call(module, member's parameters, x_i) -> [M, p, R]."""
        from torch.func import functional_call, vmap

        one = lambda params, xi: functional_call(self.module, params, (xi,))  # noqa: E731
        return vmap(one)(self.params, x).transpose(1, 2)

    def grads(self, x: torch.Tensor, y: torch.Tensor, w: torch.Tensor | None = None) -> list[torch.Tensor]:
        """Each parameter's [M, *shape] gradient of each member's mean cross-entropy on (x [M, B, ...], y [M, B]);
        `w` [M, B], row weights: full batches of unequal sizes padded to B, 1 / n_i on member i's rows, 0 after."""
        with fp32_precision(self.tf32):
            if w is None:
                loss = self.loss_fn(self.forward(x, True), y, reduction="sum") / y.shape[1]  # each grad its solo one
            else:
                loss = (self.loss_fn(self.forward(x, True), y, reduction="none") * w).sum()
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
        loss = self.loss_fn(logits, y.expand(self.M, -1), reduction="none")
        return loss, logits.argmax(1) == y

    @torch.no_grad()
    def step(self, grads: list[torch.Tensor]) -> None:
        """One optimizer step for every member, block by block, following torch's formulas (optim/rules.py)."""
        self.t += 1
        filter_grads(self, grads)
        first = not all(k in self.state for k in self.kinds)
        for k in self.kinds:
            self.state.setdefault(k, torch.zeros_like(self.theta))
        if self.fused:
            self.t_dev += 1
        r, name = self.rule, self.rule["name"]
        # CUDA: one compiled kernel per block instead of ~10 memory passes; elsewhere the same function eagerly
        adam = _adam_kernel() if self.fused else rules.adam_
        t = self.t_dev if self.fused else torch.tensor(float(self.t), dtype=torch.float64)
        nadam = rules.nadam_scalars(r, self.t, self.mu_product) if name == "nadam" else None
        for n, g in zip(self.names, grads):
            th, g, key = self.block(self.theta, n), g.reshape(self.M, -1), self.key[n]
            lr, wd = self.lr[key], self.wd[key]
            st = [self.block(self.state[k], n) for k in self.kinds]
            if name in ("adam", "adamw"):
                adam(th, g, *st, lr, wd, t, *r["betas"], r["eps"], r["decoupled"])
            elif name == "nadam":
                rules.nadam_(th, g, *st, lr, wd, r, nadam)
            elif name == "rmsprop":
                rules.rmsprop_(th, g, *st, lr, wd, r)
            else:
                rules.sgd_(th, g, st[0] if st else None, lr, wd, r["momentum"], first)
