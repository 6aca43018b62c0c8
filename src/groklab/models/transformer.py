"""Decoder-only Transformer of Power et al. (2022) and its replications: logits at the last position."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from groklab.models.embedding import make_embedding
from groklab.models.mlp import ACTS


class Block(nn.Module):
    """Causal self-attention + MLP, each with a residual; LayerNorm before (pre), after (post) or none."""

    def __init__(self, d_emb: int, n_heads: int, d_hidden: int, norm: str, act: str, dropout: float,
                 bias: bool = True):
        super().__init__()
        self.n_heads, self.norm, self.dropout = n_heads, norm, dropout
        self.fused_attention = True  # scaled_dot_product_attention; False: plain matmuls (stacked members)
        self.W_qkv = nn.Linear(d_emb, 3 * d_emb, bias=bias)  # W_Q, W_K, W_V stacked: one matmul
        self.W_O = nn.Linear(d_emb, d_emb, bias=bias)
        self.mlp = nn.Sequential(nn.Linear(d_emb, d_hidden), ACTS[act](), nn.Linear(d_hidden, d_emb))
        make_norm = nn.LayerNorm if norm != "none" else lambda d: nn.Identity()
        self.ln_attn, self.ln_mlp = make_norm(d_emb), make_norm(d_emb)
        # dropout modules only when used: nn.Dropout(0) still launches a kernel in training mode
        self.drop = nn.Dropout(dropout) if dropout > 0 else nn.Identity()

    def attend(self, x: torch.Tensor, last_only: bool) -> torch.Tensor:
        B, T, D = x.shape
        H = self.n_heads
        q, k, v = self.W_qkv(x).view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)  # each [B, H, T, d_head]
        drop = self.dropout if self.training else 0.0
        if last_only:
            q = q[:, :, -1:]  # the last query sees every key: no mask needed, only one query row computed
        if self.fused_attention:
            a = F.scaled_dot_product_attention(q, k, v, dropout_p=drop, is_causal=not last_only)
        else:  # the same attention in plain ops (vmap over stacked members; no dropout there)
            s = (q @ k.transpose(-1, -2)) * (D // H) ** -0.5
            if not last_only:
                s = s.masked_fill(torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
            a = s.softmax(-1) @ v
        return self.drop(self.W_O(a.transpose(1, 2).reshape(B, a.shape[2], D)))

    def forward(self, x: torch.Tensor, last_only: bool = False) -> torch.Tensor:
        """x [B, T, d_emb] -> [B, T, d_emb], or [B, 1, d_emb] (last position) if last_only."""
        res = x[:, -1:] if last_only else x
        if self.norm == "pre":
            x = res + self.attend(self.ln_attn(x), last_only)
            return x + self.drop(self.mlp(self.ln_mlp(x)))
        x = self.ln_attn(res + self.attend(x, last_only))  # post (or none: identity norms)
        return self.ln_mlp(x + self.drop(self.mlp(x)))


class Transformer(nn.Module):
    """tokens [B, T] -> W_E + W_pos -> blocks -> LayerNorm -> W_U at the last position -> logits [B, p].

    The last block computes only the last position (its query, MLP and output): the logits are
    read there, and causal attention makes the earlier positions' outputs irrelevant.
    004's model (and Nanda et al.'s) is norm="none", bias=False (no Q/K/V/O or unembedding biases; the MLP
    keeps its biases), init="scaled" (every weight and both embeddings N(0, 1/d_emb), biases 0), act relu.
    """

    def __init__(self, p: int, n_ctx: int, vocab: int, d_emb: int = 128, n_heads: int = 4, d_hidden: int = 512,
                 depth: int = 2, norm: str = "post", act: str = "gelu", dropout: float = 0.0,
                 emb_init_std: float = 1.0, emb_init: str = "normal", freeze_emb: bool = False,
                 bias: bool = True, init: str = "torch"):
        super().__init__()
        if d_emb % n_heads:
            raise ValueError(f"d_emb={d_emb} must be divisible by n_heads={n_heads}")
        std = d_emb ** -0.5 if init == "scaled" else emb_init_std
        self.E = make_embedding(vocab, d_emb, std, emb_init, freeze_emb)  # W_E
        self.pos = nn.Embedding(n_ctx, d_emb)  # learned positions
        self.blocks_ = nn.ModuleList(Block(d_emb, n_heads, d_hidden, norm, act, dropout, bias) for _ in range(depth))
        self.ln_final = nn.LayerNorm(d_emb) if norm != "none" else nn.Identity()
        self.U = nn.Linear(d_emb, p, bias=bias)  # W_U
        self.drop = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        if init == "scaled":
            with torch.no_grad():
                for name, t in self.named_parameters():
                    if name == "E.weight" or ".ln_" in name or name.startswith("ln_"):
                        continue  # the embedding has its own init; LayerNorms keep weight 1, bias 0
                    if t.dim() >= 2:
                        t.normal_(0.0, d_emb ** -0.5)
                    else:
                        t.zero_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.drop(self.E(x) + self.pos.weight[: x.shape[1]])
        last = len(self.blocks_) - 1
        for i, block in enumerate(self.blocks_):
            h = block(h, last_only=i == last)
        return self.U(self.ln_final(h[:, -1]))

    def blocks(self) -> dict[str, list[nn.Parameter]]:
        """E: token embedding W_E; W: the first attention's Q/K/V projection (it reads E); rest: all else.

        Positions go to "rest": every position is present in every batch, so they update like W.
        """
        E = [self.E.weight]
        W = list(self.blocks_[0].W_qkv.parameters())
        taken = {id(t) for t in E + W}
        return {"E": E, "W": W, "rest": [t for t in self.parameters() if id(t) not in taken]}
