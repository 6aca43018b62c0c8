"""Steppers: the arithmetic of training, for one model (SoloStep) or M stacked members (StackedStep).

The loop asks a stepper for one optimisation step of every active member, for their evaluation, and for
each member's state in the solo checkpoint format; it never knows how many models it trains.
"""
from __future__ import annotations

import math
from typing import Protocol

import numpy as np
import torch
import torch.nn.functional as F

from groklab.engine.batches import Batches
from groklab.engine.budget import MAX_EVAL_INPUTS
from groklab.engine.precision import fp32_precision
from groklab.engine.setup import RunSetup
from groklab.engine.stacked import Stacked
from groklab.engine.stacked_filters import load_ema, load_ma, member_ema, member_ma
from groklab.measures import run_measures
from groklab.optim import lr_factor, ortho_grad_, set_c, set_lr
from groklab.optim.adaptive import spectral_ratio


class Stepper(Protocol):
    M: int  # members trained now
    device: torch.device  # where the members live

    def step(self, step: int) -> None: ...  # one optimizer step of every member
    def evaluate(self) -> np.ndarray: ...  # [M, 4]: train loss, train acc, test loss, test acc
    # (a member with a SQUARE/STRIP holdout: its accuracy there is in extras, as holdout/acc)
    def state(self, i: int) -> dict: ...  # member i's checkpoint state (model, optimizer, ...)
    def extras(self, i: int) -> dict: ...  # member i's extra metrics for the eval row
    def measure(self, i: int, step: int, names: list) -> tuple[dict, dict]: ...  # (scalars, arrays)
    def model(self, i: int) -> torch.nn.Module: ...  # member i's model holding its current parameters
    def keep(self, idx: list[int]) -> None: ...  # drop every member not in idx (finished runs)




@torch.inference_mode()
def evaluate(model, X: torch.Tensor, y: torch.Tensor, chunk: int, loss_fn=F.cross_entropy,
             mask: torch.Tensor | None = None) -> tuple[float, ...]:
    """Mean loss (cross-entropy by default, in the model's dtype or float64) and accuracy; with a boolean
    `mask` over the rows, also the accuracy on the masked rows alone (a SQUARE/STRIP holdout within test)."""
    chunk = min(chunk, max(1, MAX_EVAL_INPUTS // max(1, X[0].numel())))  # 224 px images: ~330 rows a chunk
    was_training = model.training
    model.eval()
    loss_sum = torch.zeros((), dtype=torch.float64, device=X.device)
    correct = torch.zeros((), dtype=torch.long, device=X.device)
    held = torch.zeros((), dtype=torch.long, device=X.device)
    for i in range(0, len(X), chunk):
        logits = model(X[i:i + chunk])
        loss_sum += loss_fn(logits, y[i:i + chunk], reduction="sum").double()
        hit = logits.argmax(-1) == y[i:i + chunk]
        correct += hit.sum()
        if mask is not None:
            held += (hit & mask[i:i + chunk]).sum()
    model.train(was_training)
    n = max(len(X), 1)
    out = (loss_sum.item() / n, correct.item() / n)
    return out if mask is None else (*out, held.item() / max(int(mask.sum()), 1))


class SoloStep:
    """One nn.Module with its optimizer and recipes: lr schedule, adaptive c, Grokfast, ⊥Grad, samplers."""

    M = 1

    def __init__(self, exp: RunSetup):
        self.exp, self.device = exp, exp.device
        o = exp.cfg.optim
        self.lr_on = o.schedule != "constant" or o.warmup > 0 or exp.adapt is not None  # else lrs never change
        self.decay_end = o.decay_steps or exp.cfg.steps
        self.params = [t for t in exp.model.parameters() if t.requires_grad]
        E = exp.model.blocks()["E"]
        self.E = E[0] if E else None
        self.E_w = self.E if exp.cfg.sampler == "entropy" else None  # its grad feeds the sampler
        self.holdout_acc = None  # accuracy on a SQUARE/STRIP holdout at the last evaluation
        # CUDA: TF32 or full float32 in the training step as the config says (cuDNN's own default is TF32)
        self.tf32 = exp.cfg.tf32 and exp.cfg.dtype == "float32" if self.device.type == "cuda" else None
        self.amp = exp.cfg.amp == "bf16"  # forward and loss in bfloat16 autocast (config `amp`)

    def step(self, step: int) -> None:
        e, o = self.exp, self.exp.cfg.optim
        idx = e.sampler.batch(step)
        xb, yb = (e.X_train, e.y_train) if idx is None else (e.X_train[idx], e.y_train[idx])
        if self.lr_on:
            if e.adapt is not None:
                set_c(e.optimizer, e.adapt.observe(step, xb))
            set_lr(e.optimizer, o.lr * lr_factor(step, o.schedule, o.warmup, self.decay_end, o.final_frac))
        if self.tf32 is None and not self.amp:  # a CPU step in float32: no context to enter (each costs microseconds)
            loss = e.loss_fn(e.model(xb), yb)
            e.optimizer.zero_grad(set_to_none=True)
            loss.backward()
        else:
            with fp32_precision(self.tf32):  # forward and backward; autocast around the forward only, as torch asks
                with torch.autocast(self.device.type, torch.bfloat16, enabled=self.amp):
                    loss = e.loss_fn(e.model(xb), yb)
                e.optimizer.zero_grad(set_to_none=True)
                loss.backward()
        if e.grad_filter is not None:
            e.grad_filter()  # Grokfast: amplify the slow gradient component
        if o.ortho_grad:
            ortho_grad_(self.params)
        if self.E_w is not None:
            e.sampler.observe(xb, self.E_w.grad)
        rows = e.adapt is not None and e.adapt.scale is not None  # per-row c: rescale E's update after the step
        before = self.E.detach().clone() if rows else None
        e.optimizer.step()
        if rows:
            e.adapt.rescale(self.E, before)

    def evaluate(self) -> np.ndarray:
        e, chunk = self.exp, self.exp.cfg.eval.chunk
        with fp32_precision(None if self.tf32 is None else False):  # evaluation in full float32
            test = evaluate(e.model, e.X_test, e.y_test, chunk, e.loss_fn, e.holdout_mask)
            train = evaluate(e.model, e.X_train, e.y_train, chunk, e.loss_fn)
        self.holdout_acc = test[2] if len(test) > 2 else None
        return np.array([[*train, *test[:2]]])

    def state(self, i: int) -> dict:
        return self.exp.state()

    def extras(self, i: int) -> dict:
        a = self.exp.adapt  # the ratio in effect for the steps up to this one
        held = {} if self.holdout_acc is None else {"holdout/acc": self.holdout_acc}
        if a is None:
            return held
        out = {**held, "optim/c": a.c, "optim/f_E": a.f_E}
        if a.scale is not None:  # per-row c: its spread
            out.update({"optim/c_min": a.c * a.scale.min().item(), "optim/c_max": a.c * a.scale.max().item()})
        return out

    def measure(self, i: int, step: int, names: list) -> tuple[dict, dict]:
        return run_measures(self.exp, step, names)

    def model(self, i: int) -> torch.nn.Module:
        return self.exp.model

    def keep(self, idx: list[int]) -> None:
        pass  # one member: the loop ends when it finishes


class StackedStep:
    """M members of one model shape as batched tensors (Stacked), each on its own split, batches, lr, wd and c.

    Member i's state is written back into its solo model and optimizer on demand (checkpoints,
    measures, the end), so every member keeps the solo checkpoint format.
    """

    def __init__(self, exps: list[RunSetup], start: int):
        self.exps, self.active = exps, list(range(len(exps)))
        self.device = device = exps[0].device
        gens = [e.rng.generator(device) for e in exps] if exps[0].rng is not None else None  # dropout masks
        for e, g in zip(exps, gens or []):
            e.rng.member = g  # its checkpoints hold this generator's state, in the solo format
        self.stack = Stacked([e.model for e in exps], [e.optimizer for e in exps], [e.cfg for e in exps], device, gens)
        for i, e in enumerate(exps):  # a resumed member's optimizer state, from its solo checkpoint
            names = {id(t): n for n, t in e.model.named_parameters()}
            state = {}
            for t, st in e.optimizer.state.items():
                for k, v in st.items():
                    if k != "step" and v is not None:
                        state.setdefault(k, {})[names[id(t)]] = v
            if state:
                self.stack.load_state(i, start, state)
            f = e.grad_filter
            trained = [n for n, t in e.model.named_parameters() if t.requires_grad]
            if getattr(f, "ema", None) is not None:  # a resumed Grokfast-EMA member
                load_ema(self.stack, i, dict(zip(trained, f.ema)))
            if getattr(f, "count", 0):  # a resumed Grokfast-MA member
                load_ma(self.stack, i, trained, f.state_dict())
        self.X, self.y = exps[0].task.inputs.to(device), exps[0].task.labels.to(device)
        N, n_train = len(self.y), [len(e.y_train) for e in exps]
        self.n_train = n_train
        rows = torch.zeros(len(exps), max(n_train), dtype=torch.long)
        masks = torch.zeros(3, len(exps), N, dtype=torch.bool)  # train, test, the holdout within test
        for i, e in enumerate(exps):
            rows[i, :n_train[i]] = e.split.train
            masks[0, i, e.split.train] = True
            masks[1, i, e.split.test] = True
            masks[2, i, e.split.holdout] = True
        self.rows_all, self.masks_all = rows.to(device), masks.to(device)
        self.chunk = max(1, 4 * exps[0].cfg.eval.chunk // len(exps))
        o = exps[0].cfg.optim  # schedule, warm-up and final_frac are shared; decay_end follows each member's steps
        # steps whose lr factors can change: every step of a decay, only the warm-up's of a constant schedule
        # (its last warm-up step already sets factor 1; a run resumed after it starts at the base lr)
        self.lr_until = math.inf if o.schedule != "constant" else o.warmup
        self.factors = None
        self.holdout_acc = [None] * len(exps)  # per member, at the last evaluation (None: no holdout)
        # adaptive c: each member's own AdaptiveC counts its batches and recomputes its c from its own E and W
        ref = {id(t): n for n, t in exps[0].model.named_parameters()}
        self.E_W = None if exps[0].adapt is None else [[ref[id(t)] for t in exps[0].model.blocks()[b]] for b in "EW"]
        self.c_now = None
        self._select()

    @property
    def M(self) -> int:
        return len(self.active)

    def _select(self) -> None:
        sel = torch.tensor(self.active, device=self.rows_all.device)
        self.masks = self.masks_all.index_select(1, sel)
        n = [self.n_train[k] for k in self.active]
        rows = self.rows_all.index_select(0, sel)[:, :max(n)]
        self.batches = Batches([self.exps[k].sampler for k in self.active], rows,
                               max(self.exps[k].cfg.steps for k in self.active))
        self.weights = None  # full batches of unequal sizes (fractions, holdouts): padded rows weigh 0
        if self.batches.full and len(set(n)) > 1:
            dt, dev = self.stack.theta.dtype, self.rows_all.device
            count = torch.tensor(n, dtype=dt, device=dev).unsqueeze(1)
            self.weights = (torch.arange(max(n), device=dev).unsqueeze(0) < count).to(dt) / count

    def step(self, step: int) -> None:
        if step < self.lr_until:  # each member's lr at this step, as SoloStep's; copied only when a factor changes
            o = self.exps[0].cfg.optim
            f = [lr_factor(step, o.schedule, o.warmup, o.decay_steps or self.exps[k].cfg.steps, o.final_frac)
                 for k in self.active]
            if f != self.factors:
                self.stack.scale_lr(torch.tensor(f, dtype=self.stack.base_lr.dtype).view(-1, 1).to(self.X.device))
                self.factors = f
        idx = self.batches.idx(step)
        if self.E_W is not None:  # as SoloStep: observe this step's batch, then train at the c it gives
            xb = self.X[idx]
            c = [self.exps[k].adapt.observe(step, xb[j], lambda j=j: self._sigma_ratio(j))
                 for j, k in enumerate(self.active)]
            if c != self.c_now:
                self.stack.set_ratio(self.E_W[0][0], c)
                self.c_now = c
        self.stack.train_step(self.X, self.y, idx, self.weights)

    def _sigma_ratio(self, j: int) -> float:
        """sigma_max(E) / sigma_max(W) of member j, read from its stacked parameters (AdaptiveC.sigma_ratio)."""
        P = self.stack.params
        return spectral_ratio([P[n][j] for n in self.E_W[0]], [P[n][j] for n in self.E_W[1]])

    def evaluate(self) -> np.ndarray:
        sums = torch.zeros(3, self.M, 2, dtype=torch.float64, device=self.X.device)  # [train/test/holdout, M, 2]
        for a in range(0, len(self.y), self.chunk):
            loss, correct = self.stack.row_losses(self.X[a:a + self.chunk], self.y[a:a + self.chunk])
            mk = self.masks[..., a:a + self.chunk]
            sums[..., 0] += (loss.double() * mk).sum(-1)
            sums[..., 1] += (correct & mk).sum(-1).double()
        counts = self.masks.sum(-1)
        means = (sums / counts.clamp(min=1).double().unsqueeze(-1)).cpu().numpy()
        self.holdout_acc = [float(means[2, i, 1]) if n else None for i, n in enumerate(counts[2].tolist())]
        return means[:2].transpose(1, 0, 2).reshape(self.M, 4)

    def model(self, i: int) -> torch.nn.Module:
        """Write member i's stacked parameters and optimizer state into its solo model and optimizer."""
        s, e = self.stack.member(i), self.exps[self.active[i]]
        with torch.no_grad():
            for n, t in e.model.named_parameters():
                t.copy_(s["params"][n])
        names = {id(t): n for n, t in e.model.named_parameters()}
        if e.adapt is not None:
            set_c(e.optimizer, e.adapt.c)  # its embedding group's ratio, as the solo step keeps it
        for group in e.optimizer.param_groups:
            for t in group["params"]:
                st = {k: v[names[id(t)]] for k, v in s["state"].items()}
                if st:  # torch keeps its step count (NAdam: its mu product) only beside tensors it keeps
                    st.update({k: v.clone() for k, v in s["scalars"].items()})
                e.optimizer.state[t] = st
        trained = [n for n, t in e.model.named_parameters() if t.requires_grad]
        if e.grad_filter is not None and hasattr(e.grad_filter, "ema"):  # its Grokfast-EMA, in the solo format
            e.grad_filter.ema = member_ema(self.stack, i, trained)
        if e.grad_filter is not None and hasattr(e.grad_filter, "buf") and self.stack.ma is not None:  # its MA
            e.grad_filter.load_state_dict(member_ma(self.stack, i, trained))
        return e.model

    def state(self, i: int) -> dict:
        self.model(i)
        return self.exps[self.active[i]].state()

    def extras(self, i: int) -> dict:
        a = self.exps[self.active[i]].adapt  # the ratio in effect for the steps up to this one, as SoloStep's
        held = {} if self.holdout_acc[i] is None else {"holdout/acc": self.holdout_acc[i]}
        return held if a is None else {**held, "optim/c": a.c, "optim/f_E": a.f_E}

    def measure(self, i: int, step: int, names: list) -> tuple[dict, dict]:
        self.model(i)
        return run_measures(self.exps[self.active[i]], step, names)

    def keep(self, idx: list[int]) -> None:
        self.stack.keep(idx)
        self.active = [self.active[i] for i in idx]
        self._select()
