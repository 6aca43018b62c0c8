"""Config -> everything a run needs (data on the device, model, optimizer, sampler), before any disk write."""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from groklab.config import Config
from groklab.data import make_split, make_table
from groklab.data.encoding import encode, seq_len, vocab_size
from groklab.data.sampling import make_sampler
from groklab.errors import ConfigError
from groklab.models import build_model
from groklab.optim import build_optimizer
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


def build(cfg: Config) -> Experiment:
    check(cfg)
    device = resolve_device(cfg.device)
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
    sampler = make_sampler(cfg.sampler, n_train, cfg.batch_size, cfg.seed, device)
    put = lambda t: t.to(device)  # noqa: E731
    return Experiment(cfg, device, put(X[split.train]), put(table.y[split.train]), put(X[split.test]),
                      put(table.y[split.test]), model, optimizer, sampler, table, split)
