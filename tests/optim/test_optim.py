"""Optimizers: exact Adam (coupled wd) / AdamW (decoupled wd) semantics, and the Adam-LR ratio."""
import pytest
import torch

from groklab.config import make_config
from groklab.data import make_task
from groklab.models import build_model
from groklab.optim import build_optimizer


def _model(cfg):
    return build_model(cfg, make_task(cfg))


def _manual_adam(params, grads_fn, steps, lr, wd, betas, eps, decoupled, lr_of=lambda i: 1.0):
    """Adam written from its definition (Kingma & Ba; Loshchilov & Hutter for decoupled wd)."""
    b1, b2 = betas
    m = [torch.zeros_like(t) for t in params]
    v = [torch.zeros_like(t) for t in params]
    for t in range(1, steps + 1):
        grads = grads_fn(params)
        for i, (w, g) in enumerate(zip(params, grads)):
            lr_i = lr * lr_of(i)
            if decoupled:
                w.mul_(1 - lr_i * wd)
            else:
                g = g + wd * w  # L2 in the gradient, as torch.optim.Adam's weight_decay
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            mhat, vhat = m[i] / (1 - b1 ** t), v[i] / (1 - b2 ** t)
            w.sub_(lr_i * mhat / (vhat.sqrt() + eps))
    return params


@pytest.mark.parametrize("name", ["adam", "adamw", "adam_lr", "adamw_lr"])
def test_adam_family_matches_its_definition(name):
    cfg = make_config(["p=7", "model.d_emb=4", "model.d_hidden=8", f"optim={name}", "optim.lr=0.01",
                       "optim.weight_decay=0.1", "dtype=float64"])
    model = _model(cfg)
    opt = build_optimizer(cfg, model)
    x = torch.randint(0, 9, (16, 4))
    y = torch.randint(0, 7, (16,))
    names = [n for n, _ in model.named_parameters()]
    ref = [t.detach().clone() for t in model.parameters()]

    def grads_fn(params):
        out = torch.func.functional_call(model, dict(zip(names, params)), (x,))
        loss = torch.nn.functional.cross_entropy(out, y)
        return torch.autograd.grad(loss, params)

    ratio = cfg.optim.c
    emb_index = names.index("E.weight")

    def manual_grads(params):
        with torch.enable_grad():
            ps = [t.detach().requires_grad_() for t in params]
            return grads_fn(ps)

    ref = _manual_adam(ref, manual_grads, 5, 0.01, 0.1, (0.9, 0.999), 1e-8,
                       decoupled=name.startswith("adamw"), lr_of=lambda i: ratio if i == emb_index else 1.0)
    for _ in range(5):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    for n, got, want in zip(names, model.parameters(), ref):
        torch.testing.assert_close(got.detach(), want, rtol=1e-10, atol=1e-12, msg=n)


def test_adam_lr_scales_only_the_embedding_update():
    """First Adam step moves each weight by ~lr*sign(g): E moves c times further, the rest alike."""
    deltas = {}
    g = torch.Generator().manual_seed(0)
    x, y = torch.randint(0, 9, (32, 4), generator=g), torch.randint(0, 7, (32,), generator=g)
    for c in (1, 10):
        cfg = make_config(["p=7", "model.d_emb=4", "model.d_hidden=8", "optim=adam_lr", f"optim.c={c}",
                           "optim.weight_decay=0", "dtype=float64"])
        model = _model(cfg)
        before = {n: t.detach().clone() for n, t in model.named_parameters()}
        opt = build_optimizer(cfg, model)
        assert sorted(g["lr"] for g in opt.param_groups) == pytest.approx(sorted({1e-3, c * 1e-3}))
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        deltas[c] = {n: (t.detach() - before[n]).abs().max().item() for n, t in model.named_parameters()}
    assert deltas[10]["E.weight"] == pytest.approx(10 * deltas[1]["E.weight"], rel=1e-4)
    assert deltas[10]["W.weight"] == pytest.approx(deltas[1]["W.weight"], rel=1e-9)


def test_param_groups_split_embedding_from_rest():
    cfg = make_config(["p=7", "model.d_emb=4", "model.d_hidden=8", "optim=adam_lr", "optim.lr=0.002"])
    model = _model(cfg)
    opt = build_optimizer(cfg, model)
    by_role = {g["role"]: g for g in opt.param_groups}
    assert by_role["E"]["lr"] == pytest.approx(0.02) and by_role["rest"]["lr"] == pytest.approx(0.002)
    assert by_role["E"]["params"] == [model.E.weight]
    assert len(by_role["rest"]["params"]) == len(list(model.parameters())) - 1


def test_frozen_embedding_is_not_optimized():
    cfg = make_config(["p=7", "model.d_emb=4", "model.d_hidden=8", "model.freeze_emb=true"])
    model = _model(cfg)
    opt = build_optimizer(cfg, model)
    assert all(g["role"] != "E" and all(t is not model.E.weight for t in g["params"]) for g in opt.param_groups)
    E0 = model.E.weight.detach().clone()
    torch.nn.functional.cross_entropy(model(torch.randint(0, 9, (8, 4))), torch.randint(0, 7, (8,))).backward()
    opt.step()
    assert torch.equal(model.E.weight, E0)


def test_sgd_momentum_matches_torch_reference():
    cfg = make_config(["p=7", "model.d_emb=4", "model.d_hidden=8", "optim=sgd", "optim.lr=0.1",
                       "optim.momentum=0.9", "optim.weight_decay=0.01", "dtype=float64"])
    a, b = _model(cfg), _model(cfg)
    ours = build_optimizer(cfg, a)
    plain = torch.optim.SGD(b.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
    x, y = torch.randint(0, 9, (16, 4)), torch.randint(0, 7, (16,))
    for _ in range(4):
        for m, o in ((a, ours), (b, plain)):
            o.zero_grad()
            torch.nn.functional.cross_entropy(m(x), y).backward()
            o.step()
    for t, u in zip(a.parameters(), b.parameters()):
        torch.testing.assert_close(t, u, rtol=1e-12, atol=1e-12)


def test_adam_with_decoupled_decay_is_adamw():
    from conftest import tiny
    from groklab import train

    strip = lambda h: [{k: v for k, v in r.items() if k != "time/wall_s"} for r in h]  # noqa: E731
    a = train(make_config(tiny(optim="adam", **{"optim.wd_mode": "decoupled", "optim.weight_decay": 0.5})))
    b = train(make_config(tiny(optim="adamw", **{"optim.weight_decay": 0.5})))
    c = train(make_config(tiny(optim="adam", **{"optim.weight_decay": 0.5})))
    assert strip(a.history) == strip(b.history) != strip(c.history)
