"""Models by name; every model exposes `blocks()` -> {"E", "W", "rest"} parameter lists."""
from __future__ import annotations

import torch
from torch import nn

from groklab.models.mlp import MLP

MODELS = ("mlp", "mlp_emb")


def build_model(cfg, n_ctx: int, vocab: int) -> nn.Module:
    """Build the model named by cfg.model, initialised from cfg.seed without touching global RNG."""
    m = cfg.model
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(cfg.seed)
        if m.name in ("mlp", "mlp_emb"):
            model = MLP(cfg.p, n_ctx, vocab if m.name == "mlp_emb" else None, d_emb=m.d_emb,
                        d_hidden=m.d_hidden, depth=m.depth, act=m.act,
                        emb_init_std=m.emb_init_std, freeze_emb=m.freeze_emb)
    return model.to(dtype=getattr(torch, cfg.dtype))


__all__ = ["MLP", "MODELS", "build_model"]
