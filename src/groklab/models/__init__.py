"""Models by name; every model exposes `blocks()` -> {"E", "W", "rest"} parameter lists."""
from __future__ import annotations

import torch
from torch import nn

from groklab.config import MODELS
from groklab.models.embedding import circulant, make_embedding
from groklab.models.mlp import MLP
from groklab.models.resnet import ResNet18
from groklab.models.rnn import RNN
from groklab.models.transformer import Transformer


def build_model(cfg, task) -> nn.Module:
    """Build the model named by cfg.model for `task` (its n_classes; a token task's n_ctx and vocab),
    initialised from cfg.seed without touching the global RNG."""
    m, n_classes = cfg.model, task.n_classes
    n_ctx, vocab = getattr(task, "n_ctx", None), getattr(task, "vocab", None)
    emb = dict(emb_init_std=m.emb_init_std, emb_init=m.emb_init, freeze_emb=m.freeze_emb)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(cfg.seed)
        if m.name in ("mlp", "mlp_emb"):
            model = MLP(n_classes, n_ctx, vocab if m.name == "mlp_emb" else None, d_emb=m.d_emb,
                        d_hidden=m.d_hidden, depth=m.depth, act=m.act, dropout=m.dropout, tied=m.tied, init=m.init,
                        **emb)
        elif m.name == "transformer":
            model = Transformer(n_classes, n_ctx, vocab, d_emb=m.d_emb, n_heads=m.n_heads, d_hidden=m.d_hidden,
                                depth=m.depth, norm=m.norm, act=m.act, dropout=m.dropout, bias=m.bias,
                                init=m.init, **emb)
        elif m.name == "resnet18":
            model = ResNet18(n_classes, m.width, small=cfg.task.image <= 64)
        else:
            model = RNN(n_classes, vocab, kind="lstm" if m.name == "lstm" else "rnn", d_emb=m.d_emb,
                        d_hidden=m.d_hidden, depth=m.depth, bidirectional=m.name == "birnn",
                        dropout=m.dropout, value=m.input == "value", **emb)
    return model.to(dtype=getattr(torch, cfg.dtype))


__all__ = ["MLP", "MODELS", "RNN", "ResNet18", "Transformer", "build_model", "circulant", "make_embedding"]
