"""Models by name; every model exposes `blocks()` -> {"E", "W", "rest"} parameter lists."""
from __future__ import annotations

import torch
from torch import nn

from groklab.config import MODELS
from groklab.models.embedding import circulant, make_embedding
from groklab.models.mlp import MLP
from groklab.models.rnn import RNN
from groklab.models.transformer import Transformer


def build_model(cfg, n_ctx: int, vocab: int) -> nn.Module:
    """Build the model named by cfg.model, initialised from cfg.seed without touching global RNG."""
    m = cfg.model
    emb = dict(emb_init_std=m.emb_init_std, emb_init=m.emb_init, freeze_emb=m.freeze_emb)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(cfg.seed)
        if m.name in ("mlp", "mlp_emb"):
            model = MLP(cfg.p, n_ctx, vocab if m.name == "mlp_emb" else None, d_emb=m.d_emb,
                        d_hidden=m.d_hidden, depth=m.depth, act=m.act, dropout=m.dropout, **emb)
        elif m.name == "transformer":
            model = Transformer(cfg.p, n_ctx, vocab, d_model=m.d_emb, n_heads=m.n_heads, d_mlp=m.d_hidden,
                                n_layers=m.depth, norm=m.norm, act=m.act, dropout=m.dropout, bias=m.bias,
                                init=m.init, **emb)
        else:
            model = RNN(cfg.p, vocab, kind="lstm" if m.name == "lstm" else "rnn", d_emb=m.d_emb,
                        d_hidden=m.d_hidden, n_layers=m.depth, bidirectional=m.name == "birnn",
                        dropout=m.dropout, **emb)
    return model.to(dtype=getattr(torch, cfg.dtype))


__all__ = ["MLP", "MODELS", "RNN", "Transformer", "build_model", "circulant", "make_embedding"]
