"""The logit measures: softmax collapse and scale on hand-made logits, and Nanda's restricted and excluded losses
on a model that is exactly a 'clock' (its logits are cos(w_k (a + b - c)) for one key k, in token order for add
and in discrete-log order for mul): the restricted loss is the model's own, the excluded one that of uniform
logits, ln p."""
import math
from types import SimpleNamespace

import pytest
import torch
from torch import nn

from groklab.data.encoding import encode
from groklab.data.tables import make_table
from groklab.measures.fourier import dlog_order
from groklab.measures.logits import nanda_losses, scale_and_collapse, split_by_keys


def test_collapse_share_counts_rows_whose_float32_softmax_is_exactly_one():
    logits = torch.tensor([[200.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 300.0, 0.0]])
    out = scale_and_collapse(logits, torch.tensor([0, 0, 0]))
    assert out["logits/collapse_share"] == pytest.approx(1 / 3)  # the third row collapsed on a wrong class
    assert scale_and_collapse(torch.full((4, 5), 7.0), torch.zeros(4, dtype=torch.long))["logits/scale"] == 0.0


def test_split_by_keys_keeps_exactly_the_key_waves():
    n, k = 11, 3
    a, b, c = torch.meshgrid(*[torch.arange(n, dtype=torch.float64)] * 3, indexing="ij")
    wave = 2.0 * torch.cos(2 * math.pi * k * (a + b - c) / n) - 0.5 * torch.sin(2 * math.pi * k * (a + b - c) / n)
    other = torch.cos(2 * math.pi * 2 * (a - c) / n) + torch.randn(n, n, n, generator=torch.Generator().manual_seed(0))
    other -= split_by_keys(other, [k])[0]  # nothing of the key waves left in it
    kept, rest = split_by_keys(wave + other, [k])
    assert torch.allclose(kept, wave, atol=1e-10) and torch.allclose(rest, other, atol=1e-10)


class Clock(nn.Module):
    """Logits s * cos(2 pi k (pos(a) + pos(b) - pos(c)) / n), pos a token's place in `order` (class 0 logit 0
    where 0 is not in it); embedding rows cos/sin of 2 pi k pos / n, so k is the embedding's key frequency."""

    def __init__(self, p: int, order: list[int], k: int, s: float = 40.0):
        super().__init__()
        n = len(order)
        self.pos = torch.full((p,), -1, dtype=torch.long)
        self.pos[torch.tensor(order)] = torch.arange(n)
        ang = 2 * math.pi * k * self.pos.double() / n
        E = torch.stack([torch.cos(ang), torch.sin(ang)], 1) * (self.pos >= 0)[:, None]
        self.E = nn.Parameter(E.float())
        self.p, self.n, self.k, self.s = p, n, k, s

    def blocks(self):
        return {"E": [self.E]}

    def forward(self, x):
        i, j = self.pos[x[:, 0]], self.pos[x[:, 2]]  # encoding "op": [a, op, b, =]
        ang = 2 * math.pi * self.k * (i[:, None] + j[:, None] - self.pos[None, :]) / self.n
        return torch.where(self.pos[None, :] >= 0, self.s * torch.cos(ang), torch.zeros(())).float()


@pytest.mark.parametrize("name, p", [("add", 13), ("mul", 13)])
def test_a_clock_is_all_key_frequency_so_excluding_it_leaves_uniform_logits(name, p):
    table = make_table(name, p)
    task = SimpleNamespace(table=table, inputs=encode(table.operands, p, "op"))
    order = list(range(p)) if name == "add" else dlog_order(p)
    model = Clock(p, order, k=1 if name == "mul" else 2)  # k = 2 over Z_12 would tie c with c + 6
    out = nanda_losses(model, task, torch.arange(0, p * p, 2), n_key=1)
    assert out["logits/excluded_loss"] == pytest.approx(math.log(p), abs=1e-4)
    rows = (table.operands > 0).all(1) if name == "mul" else torch.ones(p * p, dtype=torch.bool)
    own = nn.functional.cross_entropy(model(task.inputs[rows]).double(), table.y[rows]).item()
    assert out["logits/restricted_loss"] == pytest.approx(own, rel=1e-4) and own < 0.1


def test_other_tasks_have_no_nanda_losses():
    table = make_table("sub", 7)
    task = SimpleNamespace(table=table, inputs=encode(table.operands, 7, "op"))
    assert nanda_losses(Clock(7, list(range(7)), 1), task, torch.arange(10), n_key=1) == {}
