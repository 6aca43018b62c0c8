"""The token embedding every model starts with: N(0, std^2), or circulant (004 App. E); optionally frozen."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from groklab.config import EMB_INITS
from groklab.errors import ConfigError


def circulant(v: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    """C[i, j] = v[(j - i) mod n], n = len(v): row i is v rolled right by i (top-left rows x cols block)."""
    n = len(v)
    i = torch.arange(rows).unsqueeze(1)
    j = torch.arange(cols).unsqueeze(0)
    return v[(j - i) % n]


def stacked_embed(E: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """M members' embeddings E [M, vocab, d] looked up by their own tokens x [M, ...] -> [M, ..., d]: member i's
    token indexes row i * vocab + token of the members' tables laid end to end (one gather for all)."""
    M, vocab = E.shape[:2]
    shift = torch.arange(M, device=x.device).view(M, *[1] * (x.dim() - 1)) * vocab
    return F.embedding(x + shift, E.reshape(M * vocab, -1))


def make_embedding(vocab: int, d: int, std: float = 1.0, init: str = "normal", freeze: bool = False) -> nn.Embedding:
    """nn.Embedding(vocab, d) drawn from the global RNG (the caller seeds it)."""
    E = nn.Embedding(vocab, d)
    with torch.no_grad():
        if init == "normal":
            nn.init.normal_(E.weight, std=std)
        elif init == "circulant":
            # one random vector of length max(vocab, d), so no two token rows coincide
            v = torch.randn(max(vocab, d)) * std
            E.weight.copy_(circulant(v, vocab, d))
        elif init == "toeplitz":  # 004's code: scipy.linalg.toeplitz(r, r)[:, :vocab] / sqrt(d), r ~ U[0, 1)
            if vocab > d:
                raise ConfigError("model.emb_init", init, f"needs vocab ({vocab}) <= d_emb ({d})")
            r = torch.rand(d)
            t, i = torch.arange(vocab).unsqueeze(1), torch.arange(d).unsqueeze(0)
            E.weight.copy_(r[(i - t).abs()] / d ** 0.5)
        else:
            raise ValueError(f"unknown embedding init {init!r}; allowed: {', '.join(EMB_INITS)}")
    E.weight.requires_grad_(not freeze)
    return E
