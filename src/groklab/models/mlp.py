"""The MLPs of paper 000: eq. 1 reads raw operand values, eq. 2 reads learned token embeddings."""
from __future__ import annotations

import torch
from torch import nn

from groklab.models.embedding import make_embedding, stacked_embed

ACTS = {"relu": nn.ReLU, "gelu": nn.GELU, "tanh": nn.Tanh, "silu": nn.SiLU}


class MLP(nn.Module):
    """x -> [E] -> W -> act -> (hidden -> act)* -> U -> logits over Z_p.

    With `vocab` the input is a LongTensor of tokens [B, n_ctx] looked up in E (d_emb each,
    concatenated); without it the input is the float vector of raw token values [B, n_ctx].
    """

    def __init__(self, p: int, n_ctx: int, vocab: int | None, d_emb: int = 128, d_hidden: int = 512,
                 depth: int = 1, act: str = "relu", emb_init_std: float = 1.0, freeze_emb: bool = False,
                 emb_init: str = "normal", dropout: float = 0.0, tied: bool = False, init: str = "torch"):
        super().__init__()
        self.E = None
        if vocab is not None:
            # kaiming (002's code): the embedding as xavier_normal_ draws a [vocab, d_emb] matrix
            std = (2 / (vocab + d_emb)) ** 0.5 if init == "kaiming" else emb_init_std
            self.E = make_embedding(vocab, d_emb, std, emb_init, freeze_emb)
        d_in = n_ctx * d_emb if vocab is not None else n_ctx
        self.W = nn.Linear(d_in, d_hidden)  # "first layer" W of the bilinear pair (E, W)
        # tied: one hidden d_hidden x d_hidden layer applied depth - 1 times (002's released MLP reuses its
        # `linear2` num_layers times); untied: depth - 1 layers of their own
        n_own = min(1, depth - 1) if tied else depth - 1
        self.hidden = nn.ModuleList(nn.Linear(d_hidden, d_hidden) for _ in range(n_own))
        self.order = [0] * (depth - 1) if tied else list(range(depth - 1))
        self.U = nn.Linear(d_hidden, p)
        self.act = ACTS[act]()
        self.drop = nn.Dropout(dropout) if dropout > 0 else None  # after each hidden activation
        if init == "kaiming":  # 002's released MLP: N(0, 2 / fan_in) weights, zero biases, its output layer too
            with torch.no_grad():
                for lin in [self.W, *self.hidden, self.U]:
                    nn.init.kaiming_normal_(lin.weight, nonlinearity="relu")
                    nn.init.zeros_(lin.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.E(x).flatten(1) if self.E is not None else x
        h = self.act(self.W(h))
        for i in self.order:
            h = self.act(self.hidden[i](self.drop(h) if self.drop is not None else h))
        return self.U(self.drop(h) if self.drop is not None else h)

    def stacked_forward(self, P: dict, x: torch.Tensor, drop=None) -> torch.Tensor:
        """M members at once (engine/stacked.py): P {name: [M, *shape]}, x [M, R, n_ctx] -> logits [M, p, R].

        Activations are feature-major, h: [M, features, R], so every layer is baddbmm(b, W, h) and autograd
        returns each weight's gradient in the weight's own [out, in] layout (no transposed copies). `drop`
        (training with dropout): h -> h with each member's own mask, applied where forward applies self.drop.
        """
        h = (stacked_embed(P["E.weight"], x).flatten(2) if self.E is not None else x).transpose(1, 2)
        for i, layer in enumerate(["W"] + [f"hidden.{k}" for k in self.order]):
            if i and drop is not None:  # where forward applies self.drop: before each hidden layer and U
                h = drop(h)
            h = self.act(torch.baddbmm(P[f"{layer}.bias"].unsqueeze(-1), P[f"{layer}.weight"], h))
        if drop is not None:
            h = drop(h)
        return torch.baddbmm(P["U.bias"].unsqueeze(-1), P["U.weight"], h)

    def blocks(self) -> dict[str, list[nn.Parameter]]:
        """Parameter blocks by role: embedding E, first layer W, and the rest."""
        E = [self.E.weight] if self.E is not None else []
        W = list(self.W.parameters())
        taken = {id(t) for t in E + W}
        return {"E": E, "W": W, "rest": [t for t in self.parameters() if id(t) not in taken]}
