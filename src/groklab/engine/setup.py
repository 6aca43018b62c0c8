"""Config -> everything a run needs (data on the device, model, optimizer, sampler), before any disk write."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import torch
import torch.nn.functional as F
from torch import nn

from groklab.config import Config
from groklab.data import TokenTask, make_task, split_of
from groklab.data.sampling import make_sampler
from groklab.engine.budget import check_memory, check_work
from groklab.engine.loss import make_loss
from groklab.engine.rng import GlobalRNG
from groklab.engine.track import check_sinks
from groklab.errors import ConfigError
from groklab.models import build_model
from groklab.optim import AdaptiveC, build_optimizer, make_grad_filter, restore_c


@dataclass
class RunSetup:
    """A run built and on its device (model, optimizer, data, sampler): what a step reads; nothing on disk.
    (An experiment is a paper figure: experiments/.)"""
    cfg: Config
    device: torch.device
    X_train: torch.Tensor  # [n_train, n_ctx] tokens (or raw floats for model=mlp)
    y_train: torch.Tensor  # [n_train]
    X_test: torch.Tensor
    y_test: torch.Tensor
    model: nn.Module
    optimizer: torch.optim.Optimizer
    sampler: object
    task: TokenTask  # the whole task: operands, inputs, labels, n_classes, show(i)
    split: object
    loss_fn: Callable = F.cross_entropy  # loss(logits, y, reduction="mean")
    adapt: Optional[AdaptiveC] = None  # adaptive embedding lr ratio, when optim.c_mode=adaptive
    grad_filter: Optional[Callable] = None  # Grokfast filter, when optim.grokfast != none
    rng: Optional[GlobalRNG] = None  # torch's global RNG, when dropout draws from it
    holdout_mask: Optional[torch.Tensor] = None  # [n_test] bool: test rows in the SQUARE/STRIP holdout

    @property
    def table(self):
        return self.task.table

    def stateful(self) -> dict:
        """The pieces besides model and optimizer whose state a checkpoint must hold for exact resume."""
        parts = (("adapt", self.adapt), ("grad_filter", self.grad_filter), ("sampler", self.sampler), ("rng", self.rng))
        return {k: v for k, v in parts if hasattr(v, "state_dict")}

    def state(self) -> dict:
        """Model, optimizer and stateful pieces, in torch's own formats."""
        return {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                **{k: v.state_dict() for k, v in self.stateful().items()}}

    def restore(self, ckpt: dict) -> None:
        """Load `state()` back (from a checkpoint)."""
        self.model.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        restore_c(self.optimizer, self.cfg.optim.c)
        for k, v in self.stateful().items():
            v.load_state_dict(ckpt[k])


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device", name, "no CUDA device is available here; use device=cpu or device=auto")
    return torch.device(name)


def check(cfg: Config) -> None:
    """What the config model cannot check: the machine (packages of the sinks; the device in build), and work
    bounds a typo could exceed by orders of magnitude (budget.check_work)."""
    check_sinks(cfg)
    check_work(cfg)


def preflight(cfgs: list[Config]) -> None:
    """What `build` would refuse, checked for every config before any run trains: the task, the split's sizes,
    the memory estimate, and the model's shapes (built on torch's meta device: no memory, no time). A sweep or
    reproduction with one bad point is then refused whole, with that point's one-line error, instead of
    failing after the others trained. Configs differing only in seeds are checked once."""
    seen = set()
    for cfg in cfgs:
        key = cfg.model_copy(update={"seed": 0, "split": cfg.split.model_copy(update={"seed": 0})}).to_dict()
        key = repr(sorted(key.items()))
        if key in seen:
            continue
        seen.add(key)
        check(cfg)
        device = resolve_device(cfg.device)
        task = make_task(cfg)
        split = split_of(task.table, cfg.split)
        check_memory(cfg, task, len(split.train), device)
        with torch.device("meta"):
            build_model(cfg, task)


def build(cfg: Config) -> RunSetup:
    check(cfg)
    device = resolve_device(cfg.device)
    if device.type == "cpu":
        torch.set_flush_denormal(cfg.flush_denormal)
    task = make_task(cfg)
    table = task.table
    split = split_of(table, cfg.split)
    X, y = task.inputs, task.labels
    check_memory(cfg, task, len(split.train), device)  # before the model is allocated
    model = build_model(cfg, task).to(device)
    optimizer = build_optimizer(cfg, model)
    n_train = len(split.train)
    sampler = make_sampler(cfg, n_train, table.operands[split.train].numpy(), device)
    o = cfg.optim
    adapt = (AdaptiveC(model, getattr(task, "vocab", 0), o.c_every, *o.c_range, c0=o.c, per_row=o.c_freq == "row")
             if o.c_mode == "adaptive" else None)
    grad_filter = make_grad_filter(o, [t for t in model.parameters() if t.requires_grad])
    rng = GlobalRNG(cfg.seed, device) if cfg.model.dropout > 0 else None  # dropout masks
    put = lambda t: t.to(device)  # noqa: E731
    held = put(torch.isin(split.test, split.holdout)) if len(split.holdout) else None
    return RunSetup(cfg, device, put(X[split.train]), put(y[split.train]), put(X[split.test]),
                      put(y[split.test]), model, optimizer, sampler, task, split,
                      make_loss(cfg.loss, cfg.loss_float64), adapt, grad_filter, rng, held)
