"""Hessian measures against closed forms: a quadratic's matrix and the dense Hessian of a tiny model."""
import pytest
import torch
import torch.nn.functional as F
from torch.func import functional_call

from groklab.measures.hessian import HVP, block_params, dense_hessian, hutchinson_trace, lanczos, power_iteration
from groklab.models import MLP


def _sym(eigs, seed=0):
    g = torch.Generator().manual_seed(seed)
    Q, _ = torch.linalg.qr(torch.randn(len(eigs), len(eigs), generator=g, dtype=torch.float64))
    return Q @ torch.diag(torch.tensor(eigs, dtype=torch.float64)) @ Q.T


def test_lanczos_top_k_of_a_quadratic():
    eigs = [5.0, 4.0, 3.5, -7.0] + torch.linspace(-1, 1, 60).tolist()
    A = _sym(eigs)
    e = lanczos(lambda v: A @ v, len(eigs), k=3, tol=1e-10, generator=torch.Generator().manual_seed(1))
    assert e.converged
    torch.testing.assert_close(e.values, torch.tensor([5.0, 4.0, 3.5], dtype=torch.float64), rtol=1e-8, atol=0)
    torch.testing.assert_close(A @ e.vectors, e.vectors * e.values, rtol=0, atol=1e-6)  # eigenvectors
    lm = lanczos(lambda v: A @ v, len(eigs), k=1, tol=1e-10, which="LM", generator=torch.Generator().manual_seed(1))
    assert abs(lm.values[0].item() + 7.0) < 1e-8


def test_lanczos_needs_fewer_hvps_than_power_iteration_for_one_percent():
    eigs = [1.0, 0.95, 0.9] + torch.linspace(0, 0.8, 200).tolist()  # small relative gap: power is slow
    A = _sym(eigs, seed=2)
    n_hvp = {}
    for name, fn in (("lanczos", lanczos), ("power", power_iteration)):
        e = fn(lambda v: A @ v, len(eigs), generator=torch.Generator().manual_seed(3))
        n_hvp[name] = next(i + 1 for i, x in enumerate(e.history) if abs(x - 1.0) <= 0.01)
    assert n_hvp["lanczos"] * 2 < n_hvp["power"], n_hvp


def test_hutchinson_is_exact_for_a_diagonal_matrix():
    d = torch.tensor([3.0, -1.0, 0.5, 2.0], dtype=torch.float64)
    est, se = hutchinson_trace(lambda v: d * v, 4, samples=5, generator=torch.Generator().manual_seed(0))
    assert est == pytest.approx(d.sum().item(), rel=1e-12) and se == pytest.approx(0.0, abs=1e-12)
    A = _sym([4.0, 1.0, -2.0, 3.0, 0.0])
    est, se = hutchinson_trace(lambda v: A @ v, 5, samples=400, generator=torch.Generator().manual_seed(0))
    assert abs(est - 6.0) < 4 * se + 1e-9


@pytest.fixture
def tiny_model():
    torch.manual_seed(0)
    model = MLP(p=5, n_ctx=2, vocab=5, d_emb=3, d_hidden=4, act="tanh").double()  # smooth: H well defined
    g = torch.Generator().manual_seed(1)
    X = torch.randint(0, 5, (40, 2), generator=g)
    y = torch.randint(0, 5, (40,), generator=g)
    return model, X, y


def _reference_hessian(model, X, y):
    """Dense Hessian by torch.autograd.functional.hessian of the flattened loss: independent of HVP/lanczos."""
    names = [n for n, _ in model.named_parameters()]
    shapes = [t.shape for _, t in model.named_parameters()]
    sizes = [t.numel() for _, t in model.named_parameters()]
    flat0 = torch.cat([t.detach().reshape(-1) for t in model.parameters()])

    def loss(flat):
        parts = dict(zip(names, (t.view(s) for t, s in zip(flat.split(sizes), shapes))))
        return F.cross_entropy(functional_call(model, parts, (X,)), y)

    H = torch.autograd.functional.hessian(loss, flat0)
    offsets = dict(zip(names, torch.tensor([0] + sizes).cumsum(0).tolist()))
    return H, {n: (offsets[n], offsets[n] + s) for n, s in zip(names, sizes)}


def test_lanczos_matches_dense_eigvalsh_of_a_tiny_model(tiny_model):
    model, X, y = tiny_model
    H, _ = _reference_hessian(model, X, y)
    ref = torch.linalg.eigvalsh(H).flip(0)[:3]
    hvp = HVP(model, list(model.parameters()), X, y)
    e = lanczos(hvp, hvp.dim, k=3, tol=1e-8, max_iter=hvp.dim, generator=torch.Generator().manual_seed(0))
    assert ((e.values - ref).abs() / ref.abs()).max() <= 1e-4
    assert e.n_hvp == hvp.n < hvp.dim  # cheaper than forming H
    p = power_iteration(hvp, hvp.dim, tol=1e-10, max_iter=2000, generator=torch.Generator().manual_seed(0))
    top_mag = torch.linalg.eigvalsh(H).abs().max()
    assert abs(abs(p.values[0]) - top_mag) / top_mag <= 1e-4


def test_block_restriction_is_the_dense_sub_block(tiny_model):
    model, X, y = tiny_model
    H, where = _reference_hessian(model, X, y)
    for block in ("E", "W"):
        params = block_params(model, block)
        names = {id(t): n for n, t in model.named_parameters()}
        idx = torch.cat([torch.arange(*where[names[id(t)]]) for t in params])
        sub = H[idx][:, idx]
        hvp = HVP(model, params, X, y)
        torch.testing.assert_close(dense_hessian(hvp), sub, rtol=1e-9, atol=1e-12)
        e = lanczos(hvp, hvp.dim, k=2, tol=1e-8, max_iter=hvp.dim, generator=torch.Generator().manual_seed(0))
        ref = torch.linalg.eigvalsh(sub).flip(0)[:2]
        assert ((e.values - ref).abs() / ref.abs()).max() <= 1e-4


def test_hvp_leaves_the_model_alone(tiny_model):
    model, X, y = tiny_model
    model.train()
    model.W.eval()  # a mixed state must come back as it was
    before = {k: v.clone() for k, v in model.state_dict().items()}
    rng = torch.get_rng_state()
    hvp = HVP(model, list(model.parameters()), X, y)
    lanczos(hvp, hvp.dim, k=2, generator=torch.Generator().manual_seed(0))
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert all(t.grad is None for t in model.parameters())
    assert torch.equal(rng, torch.get_rng_state())
    assert model.training and not model.W.training and model.U.training


def test_hvp_refuses_foreign_tensors(tiny_model):
    model, X, y = tiny_model
    with pytest.raises(ValueError, match="model's parameters"):
        HVP(model, [torch.zeros(3)], X, y)
