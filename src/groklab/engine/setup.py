"""Config -> everything a run needs (data on the device, model, optimizer, sampler), before any disk write."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import torch
import torch.nn.functional as F
from torch import nn

from groklab.config import Config
from groklab.data import make_split, make_table
from groklab.data.encoding import encode, seq_len, vocab_size
from groklab.data.sampling import make_sampler
from groklab.errors import ConfigError
from groklab.engine.loss import make_loss
from groklab.models import build_model
from groklab.optim import AdaptiveC, build_optimizer, make_grad_filter
from groklab.track import check_sinks


@dataclass
class Experiment:
    cfg: Config
    device: torch.device
    X_train: torch.Tensor  # [n_train, n_ctx] tokens (or raw floats for model=mlp)
    y_train: torch.Tensor  # [n_train]
    X_test: torch.Tensor
    y_test: torch.Tensor
    model: nn.Module
    optimizer: torch.optim.Optimizer
    sampler: object
    table: object
    split: object
    loss_fn: Callable = F.cross_entropy  # loss(logits, y, reduction="mean")
    adapt: Optional[AdaptiveC] = None  # adaptive Adam-LR ratio, when optim.c_adaptive
    grad_filter: Optional[Callable] = None  # Grokfast filter, when optim.grokfast != none


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device", name, "no CUDA device is available here; use device=cpu or device=auto")
    return torch.device(name)


def check(cfg: Config) -> None:
    """Cross-field rules that a single field's type cannot express."""
    t, s = cfg.task, cfg.split
    if t.name == "poly" and not t.expr:
        raise ConfigError("task.expr", t.expr, "task=poly needs an expression in a and b, e.g. task.expr='a^2+b'")
    if t.name != "poly" and t.expr is not None:
        raise ConfigError("task.expr", t.expr, f"only used with task=poly (task is '{t.name}')")
    if s.name in ("square", "strip") and s.test_reserve is not None:
        raise ConfigError("split.test_reserve", s.test_reserve, f"not used with split={s.name}; leave it unset")
    check_sinks(cfg)
    m, o = cfg.model, cfg.optim
    if m.name == "transformer" and m.d_emb % m.n_heads:
        raise ConfigError("model.n_heads", m.n_heads, f"must divide model.d_emb={m.d_emb}")
    if m.name == "mlp":  # raw values: no embedding to scale, sample by or initialise
        for key, value, on in (("optim.c_adaptive", o.c_adaptive, o.c_adaptive),
                               ("sampler", cfg.sampler, cfg.sampler == "entropy"),
                               ("model.emb_init", m.emb_init, m.emb_init != "normal")):
            if on:
                raise ConfigError(key, value, "needs a model with an embedding (model=mlp reads raw values)")
    if o.c_adaptive and m.freeze_emb:
        raise ConfigError("optim.c_adaptive", True, "a frozen embedding has no learning rate to adapt")
    if cfg.sampler == "entropy" and m.freeze_emb:
        raise ConfigError("sampler", "entropy", "needs embedding gradients; the embedding is frozen")
    if not 0 < o.c_range[0] <= o.c_range[1]:
        raise ConfigError("optim.c_range", list(o.c_range), "must be [lo, hi] with 0 < lo <= hi")
    if o.schedule == "exp" and o.final_frac <= 0:
        raise ConfigError("optim.final_frac", o.final_frac, "must be > 0 for schedule=exp")
    n_operands = t.K if t.name == "sum" else 2
    if cfg.sampler == "balanced" and n_operands != 2:
        raise ConfigError("sampler", "balanced", f"needs 2 operands (task.K={n_operands})")


def build(cfg: Config) -> Experiment:
    check(cfg)
    device = resolve_device(cfg.device)
    if device.type == "cpu":
        torch.set_flush_denormal(cfg.flush_denormal)
    table = make_table(cfg.task.name, cfg.p, expr=cfg.task.expr, K=cfg.task.K)
    s = cfg.split
    split = make_split(table, s.name, frac_train=s.frac_train, seed=s.seed, test_reserve=s.test_reserve,
                       unused_to_test=s.unused_to_test, skew=s.skew, k=s.k)
    raw = cfg.model.name == "mlp"
    X = encode(table.operands, cfg.p, cfg.encoding, raw=raw)
    if raw:
        X = X.to(getattr(torch, cfg.dtype))
    model = build_model(cfg, seq_len(table.n_operands, cfg.encoding), vocab_size(cfg.p, cfg.encoding)).to(device)
    optimizer = build_optimizer(cfg, model)
    n_train = len(split.train)
    sampler = make_sampler(cfg.sampler, n_train, cfg.batch_size, cfg.seed, device,
                           operands=table.operands[split.train].numpy(), p=cfg.p, gamma=cfg.sampler_gamma,
                           beta=cfg.sampler_beta)
    o = cfg.optim
    adapt = (AdaptiveC(model, vocab_size(cfg.p, cfg.encoding), o.c_every, *o.c_range, c0=o.ratio)
             if o.c_adaptive else None)
    grad_filter = make_grad_filter(o, [t for t in model.parameters() if t.requires_grad])
    put = lambda t: t.to(device)  # noqa: E731
    return Experiment(cfg, device, put(X[split.train]), put(table.y[split.train]), put(X[split.test]),
                      put(table.y[split.test]), model, optimizer, sampler, table, split,
                      make_loss(cfg.loss, cfg.loss_float64), adapt, grad_filter)
