"""Recurrent models of paper 002: a 2-layer LSTM (§2.1) and a 3-layer bidirectional RNN (§2.3)."""
from __future__ import annotations

import torch
from torch import nn

from groklab.models.embedding import make_embedding, stacked_embed


class RNN(nn.Module):
    """tokens [B, T] -> E -> LSTM / (bi)RNN -> final hidden state(s) of the top layer -> U -> logits [B, p].

    value=True: no embedding; each token id enters as one raw float (002's BiRNN code: the number itself, not
    scaled), which hands the network the order of the numbers that an embedding has to learn."""

    def __init__(self, p: int, vocab: int, kind: str = "lstm", d_emb: int = 128, d_hidden: int = 256,
                 depth: int = 2, bidirectional: bool = False, dropout: float = 0.0,
                 emb_init_std: float = 1.0, emb_init: str = "normal", freeze_emb: bool = False,
                 value: bool = False):
        super().__init__()
        self.E = None if value else make_embedding(vocab, d_emb, emb_init_std, emb_init, freeze_emb)
        cls = {"lstm": nn.LSTM, "rnn": nn.RNN}[kind]
        self.rnn = cls(1 if value else d_emb, d_hidden, num_layers=depth, batch_first=True,
                       bidirectional=bidirectional, dropout=dropout if depth > 1 else 0.0)  # between layers
        self.n_dir = 2 if bidirectional else 1
        self.U = nn.Linear(self.n_dir * d_hidden, p)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, h_n = self.rnn(x.to(self.U.weight.dtype).unsqueeze(-1) if self.E is None else self.E(x))
        h_n = h_n[0] if isinstance(h_n, tuple) else h_n  # LSTM returns (h_n, c_n)
        # h_n: [depth * n_dir, B, H]; the top layer's forward (and backward) final states
        top = h_n[-self.n_dir:].transpose(0, 1).flatten(1)
        return self.U(top)

    def stacked_forward(self, P: dict, x: torch.Tensor) -> torch.Tensor:
        """M members at once (engine/stacked.py): P {name: [M, *shape]}, x [M, R, T] -> logits [M, p, R].

        torch's recurrences written out (gates i, f, g, o; tanh for the plain RNN), each layer's input projection
        one batched matmul over all steps; the top layer's final states (the backward one's after t = 0)."""
        U = P["U.weight"]
        h = x.to(U.dtype).unsqueeze(-1) if self.E is None else stacked_embed(P["E.weight"], x)  # [M, R, T, d]
        M, R, T = h.shape[:3]
        lstm = isinstance(self.rnn, nn.LSTM)
        for k in range(self.rnn.num_layers):
            outs, finals = [], []
            for sfx in ("", "_reverse")[:self.n_dir]:
                w = lambda kind: P[f"rnn.{kind}_l{k}{sfx}"]  # noqa: E731
                xs = torch.baddbmm(w("bias_ih").unsqueeze(1), h.flatten(1, 2), w("weight_ih").transpose(1, 2))
                xs, W_hh = xs.view(M, R, T, -1), w("weight_hh").transpose(1, 2)
                s = c = xs.new_zeros(M, R, W_hh.shape[1])
                seq = [None] * T
                for t in (range(T - 1, -1, -1) if sfx else range(T)):
                    z = xs[:, :, t] + torch.baddbmm(w("bias_hh").unsqueeze(1), s, W_hh)
                    if lstm:
                        i, f, g, o = z.chunk(4, -1)
                        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
                        s = torch.sigmoid(o) * torch.tanh(c)
                    else:
                        s = torch.tanh(z)
                    seq[t] = s
                outs.append(torch.stack(seq, 2))
                finals.append(s)
            h = torch.cat(outs, -1)
        top = torch.cat(finals, -1).transpose(1, 2)  # [M, n_dir * H, R]
        return torch.baddbmm(P["U.bias"].unsqueeze(-1), U, top)

    def blocks(self) -> dict[str, list[nn.Parameter]]:
        """E: embedding (none for value input); W: the first layer's input weights (both directions), which read
        E (or the raw values); rest: all else."""
        E = [] if self.E is None else [self.E.weight]
        W = [t for n, t in self.rnn.named_parameters() if n.endswith("_ih_l0") or n.endswith("_ih_l0_reverse")]
        taken = {id(t) for t in E + W}
        return {"E": E, "W": W, "rest": [t for t in self.parameters() if id(t) not in taken]}
