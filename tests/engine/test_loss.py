"""engine/loss.py against its defining formulas: StableMax cross-entropy, and a float64 loss that resolves the
margins float32 rounds to a loss of exactly 0."""
import math

import pytest
import torch

from groklab.engine.loss import make_loss, stablemax_cross_entropy


def test_stablemax_cross_entropy_from_its_definition():
    x = torch.tensor([[2.0, -1.0, 0.0], [-3.0, 0.5, -0.5]], dtype=torch.float64)
    y = torch.tensor([0, 2])
    s = lambda v: v + 1 if v >= 0 else 1 / (1 - v)  # noqa: E731
    want = 0.0
    for row, t in zip(x.tolist(), y.tolist()):
        want -= math.log(s(row[t]) / sum(s(v) for v in row)) / 2
    assert stablemax_cross_entropy(x, y).item() == pytest.approx(want, rel=1e-12)
    assert make_loss("stablemax")(x, y, reduction="sum").item() == pytest.approx(2 * want, rel=1e-12)
    g = torch.tensor([[-1e4, 0.0]], requires_grad=True)  # finite gradient far in the negative tail
    stablemax_cross_entropy(g, torch.tensor([0])).backward()
    assert torch.isfinite(g.grad).all()


def test_float64_loss_resolves_what_float32_rounds_away():
    """Softmax collapse (Prieto et al.): a large margin gives a float32 CE of exactly 0, float64 not."""
    logits = torch.tensor([[40.0, 0.0]])
    y = torch.tensor([0])
    assert make_loss("ce")(logits, y).item() == 0.0
    l64 = make_loss("ce", float64=True)(logits, y)
    assert l64.dtype == torch.float64 and l64.item() == pytest.approx(math.exp(-40), rel=1e-9)
