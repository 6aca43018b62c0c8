"""MED, norms, gradients, token gradients, geometry and landscape slices against direct computations."""
import copy
from collections import Counter

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from groklab.measures.geometry import pca_2d, tsne_2d
from groklab.measures.landscape import landscape_measures, loss_slice, random_direction
from groklab.measures.progress import grad_measures, med, norm_measures, token_counts, token_grad_norms
from groklab.models import MLP


@pytest.fixture
def setup():
    torch.manual_seed(0)
    m = MLP(p=7, n_ctx=2, vocab=9, d_emb=4, d_hidden=8)
    g = torch.Generator().manual_seed(1)
    X = torch.randint(0, 5, (30, 2), generator=g)  # tokens 5..8 never appear
    y = torch.randint(0, 7, (30,), generator=g)
    return m, X, y


def test_med_of_a_known_matrix():
    u = torch.tensor([0.6, 0.8, 0.0])
    E = torch.cat([torch.arange(5.0)[:, None] * 2.5 * u, torch.full((2, 3), 50.0)])  # rows past p ignored
    assert med(E, 5) == pytest.approx(2.5)
    E2 = torch.tensor([[0.0, 0], [3, 4], [3, 4]])
    assert med(E2, 3) == pytest.approx((5 + 0) / 2)


def test_med_correlation_with_test_loss():
    """004's MED study correlates MED with the test loss from the training set's fit on (one definition,
    beyond/med.py)."""
    import pandas as pd

    from groklab.experiments.beyond.med import correlations

    rows = [{"run": "r", "step": i, "train/acc": 1.0 if i >= 1 else 0.5, "progress/MED": 10 - i,
             "test/loss": 5 - 0.3 * i ** 2} for i in range(6)]
    rows.append({"run": "r", "step": 6, "train/acc": 1.0, "test/loss": 1.0})  # a row without MED is skipped
    rho, r = correlations(pd.DataFrame(rows), changes=False)["r"]  # the levels (the rule until 2026-11-28)
    assert rho == pytest.approx(1.0) and 0.9 < r < 1.0  # monotone (Spearman 1), not linear (Pearson < 1)
    assert correlations(pd.DataFrame(rows[:3]), changes=False)["r"] == (None, None)  # < 3 rows from the fit on
    # the step-to-step changes (the rule since): MED falls by 1 every step, so its changes do not vary -- nothing
    # to correlate; with MED falling faster where the loss does, the changes correlate perfectly
    assert correlations(pd.DataFrame(rows))["r"] == (None, None)
    bent = [dict(x, **{"progress/MED": 10 - 0.1 * x["step"] ** 2}) for x in rows[:6]]
    assert correlations(pd.DataFrame(bent))["r"] == pytest.approx((1.0, 1.0))


def test_norms_and_grads_match_a_manual_backward(setup):
    m, X, y = setup
    ref = copy.deepcopy(m)
    F.cross_entropy(ref(X), y).backward()
    blocks = ref.blocks()
    g = grad_measures(m, X, y)
    for name in ("E", "W", "rest"):
        want = torch.sqrt(sum(t.grad.square().sum() for t in blocks[name])).item()
        assert g[f"grad/{name}"] == pytest.approx(want, rel=1e-5)
        entries = sum(t.numel() for t in blocks[name])
        assert g[f"grad_rms/{name}"] == pytest.approx(want / entries ** 0.5, rel=1e-5)
    assert norm_measures(m)["norm/total"] == pytest.approx(
        torch.sqrt(sum(t.square().sum() for t in m.parameters())).item(), rel=1e-6)
    assert all(t.grad is None for t in m.parameters())


def test_token_gradients_are_sparse_where_tokens_are_absent(setup):
    m, X, y = setup
    ref = copy.deepcopy(m)
    F.cross_entropy(ref(X), y).backward()
    norms = token_grad_norms(m, X, y)
    np.testing.assert_allclose(norms, ref.E.weight.grad.norm(dim=1).numpy(), rtol=1e-5)
    assert (norms[5:] == 0).all() and (norms[:5] > 0).all()  # 000 Fig 3: absent tokens get no gradient
    counts = token_counts(X, 9)
    c = Counter(X.reshape(-1).tolist())
    assert counts.tolist() == [c.get(t, 0) for t in range(9)] and counts.sum() == X.numel()


def test_pca_of_a_circle():
    th = torch.linspace(0, 2 * np.pi, 13)[:-1]
    E = torch.stack([3 * th.cos(), 3 * th.sin(), torch.zeros(12), torch.zeros(12)], 1)
    Q, _ = torch.linalg.qr(torch.randn(4, 4, generator=torch.Generator().manual_seed(0)))
    coords, share = pca_2d(E @ Q)  # a rotated circle in 4-D
    np.testing.assert_allclose(np.linalg.norm(coords, axis=1), 3.0, rtol=1e-5)
    assert share.sum() == pytest.approx(1.0)


def test_tsne_is_seeded():
    pytest.importorskip("sklearn")
    E = torch.randn(20, 5, generator=torch.Generator().manual_seed(0))
    a, b = tsne_2d(E, seed=3), tsne_2d(E, seed=3)
    assert a.shape == (20, 2) and np.isfinite(a).all() and np.array_equal(a, b)


def test_filter_normalised_direction(setup):
    m, _, _ = setup
    params = list(m.parameters())
    d = random_direction(params, torch.Generator().manual_seed(0), filter_norm=True)
    for t, dt in zip(params, d):
        if t.dim() == 1:
            assert (dt == 0).all()  # biases get no direction (Li et al.)
        else:
            torch.testing.assert_close(dt.flatten(1).norm(dim=1), t.detach().flatten(1).norm(dim=1))


def test_landscape_slice_centre_and_a_manual_step(setup):
    m, X, y = setup
    before = {k: v.clone() for k, v in m.state_dict().items()}
    sc, arr = landscape_measures(m, X, y, blocks=["W"], dims=2, n_points=5, radius=0.5,
                                 generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        base = F.cross_entropy(m(X), y).item()
    assert sc["landscape/loss0"] == pytest.approx(base, rel=1e-6)
    assert arr["landscape/loss"].shape == (5, 5) and arr["landscape/loss"][2, 2] == pytest.approx(base, rel=1e-6)
    assert all(torch.equal(before[k], v) for k, v in m.state_dict().items())
    # one grid point by hand: theta_W + 0.25 * d1 (same generator, same direction)
    params = list(m.blocks()["W"])
    d1 = random_direction(params, torch.Generator().manual_seed(0), True)
    moved = copy.deepcopy(m)
    with torch.no_grad():
        for t, d in zip(moved.blocks()["W"], d1):
            t.add_(0.25 * d)
        want = F.cross_entropy(moved(X), y).item()
    assert arr["landscape/loss"][3, 2] == pytest.approx(want, rel=1e-5)
    line = loss_slice(m, X, y, params, [d1], np.array([[0.25]]))
    assert line[0] == pytest.approx(want, rel=1e-5)
