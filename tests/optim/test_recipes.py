"""Training recipes against their defining formulas: NAdam/RMSprop, schedules, adaptive c, Grokfast, ⊥Grad
(the losses: tests/engine/test_loss.py)."""
import math

import pytest
import torch
import torch.nn.functional as F

from groklab.config import make_config
from groklab.data import make_task
from groklab.models import build_model
from groklab.optim import AdaptiveC, GrokfastEMA, GrokfastMA, build_optimizer, lr_factor, ortho_grad_


def _cfg(*o):
    return make_config(["p=7", "model.d_emb=4", "model.d_hidden=8", "dtype=float64", *o])


@pytest.mark.parametrize("name,ref", [
    ("nadam_lr", lambda ps, lr, wd: torch.optim.NAdam(ps, lr=lr, weight_decay=wd)),
    ("rmsprop_lr", lambda ps, lr, wd: torch.optim.RMSprop(ps, lr=lr, weight_decay=wd)),
])
def test_nadam_rmsprop_with_embedding_ratio_match_plain_torch(name, ref):
    """Our grouped, foreach optimizer equals two plain torch optimizers: E at c*lr, the rest at lr."""
    cfg = _cfg(f"optim={name}", "optim.lr=0.01", "optim.weight_decay=0.01", "optim.c=5")
    a, b = build_model(cfg, make_task(cfg)), build_model(cfg, make_task(cfg))
    ours = build_optimizer(cfg, a)
    E_b = b.blocks()["E"]
    plain = [ref([t for t in b.parameters() if t is not E_b[0]], 0.01, 0.01), ref(E_b, 0.05, 0.01)]
    x, y = torch.randint(0, 9, (16, 4)), torch.randint(0, 7, (16,))
    for _ in range(4):
        for m, opts in ((a, [ours]), (b, plain)):
            for o in opts:
                o.zero_grad()
            F.cross_entropy(m(x), y).backward()
            for o in opts:
                o.step()
    for t, u in zip(a.parameters(), b.parameters()):
        torch.testing.assert_close(t, u, rtol=1e-12, atol=1e-12)


def test_lr_schedules_closed_form():
    assert [lr_factor(s, "constant", 4, 100, 0) for s in (0, 1, 3, 4, 50)] == [0.25, 0.5, 1.0, 1.0, 1.0]
    assert lr_factor(4, "linear", 4, 104, 0.1) == 1.0
    assert lr_factor(54, "linear", 4, 104, 0.1) == pytest.approx(1 - 0.9 * 0.5)
    assert lr_factor(104, "linear", 4, 104, 0.1) == pytest.approx(0.1)
    assert lr_factor(500, "linear", 4, 104, 0.1) == pytest.approx(0.1)  # stays at the floor
    assert lr_factor(54, "cosine", 4, 104, 0.0) == pytest.approx(0.5)
    assert lr_factor(29, "cosine", 4, 104, 0.0) == pytest.approx(0.5 * (1 + math.cos(math.pi / 4)))
    assert lr_factor(54, "exp", 4, 104, 0.01) == pytest.approx(0.1)


def test_schedule_sets_the_optimizer_lr_in_the_loop(monkeypatch):
    import groklab.engine.step as step
    from conftest import tiny
    from groklab import train
    calls = []
    monkeypatch.setattr(step, "set_lr", lambda opt, lr: calls.append((lr, None)))
    train(make_config(tiny(**{"optim.schedule": "linear", "optim.warmup": 10, "optim.final_frac": 0.5,
                                   "optim.lr": 0.01, "stop.early": "false"})))
    assert [lr for lr, _ in calls] == pytest.approx([0.01 * lr_factor(t, "linear", 10, 30, 0.5) for t in range(30)])
    assert calls[0][0] == pytest.approx(0.001) and calls[-1][0] == pytest.approx(0.01 * (1 - 0.5 * 19 / 20))
    calls.clear()
    train(make_config(tiny()))
    assert calls == []  # off: the loop never touches the learning rates


@pytest.mark.parametrize("mode", ["fixed", "adaptive"])
def test_the_ratio_c_lives_in_the_embedding_group(mode, tmp_path):
    """The optimizer's embedding group carries c and trains at c x the schedule's lr, the other groups at 1 x,
    for fixed c and for adaptive c (its group c is the one adaptive c last computed); a resume restores it."""
    from conftest import tiny
    from groklab import train
    from groklab.engine.setup import build

    over = {"optim": "adam", "optim.c": 10, "optim.schedule": "linear", "optim.warmup": 5, "optim.final_frac": 0.5,
            "optim.lr": 0.01, "stop.early": "false", "steps": 20, "checkpoint_every": 10}
    if mode == "adaptive":
        over.update({"optim.c_mode": "adaptive", "optim.c_every": 5})
    cfg = make_config(tiny(**over))
    train(cfg, out=tmp_path / "r")
    exp = build(cfg)
    ckpt = torch.load(tmp_path / "r" / "ckpt.pt", weights_only=True)
    exp.restore(ckpt)
    groups = {g["role"]: g for g in exp.optimizer.param_groups}
    lr = 0.01 * lr_factor(19, "linear", 5, 20, 0.5)  # the last step's
    c = exp.adapt.c if mode == "adaptive" else 10.0
    assert groups["rest"]["c"] == 1.0 and groups["rest"]["lr"] == pytest.approx(lr)
    assert groups["E"]["c"] == pytest.approx(c) and groups["E"]["lr"] == pytest.approx(c * lr)
    if mode == "adaptive":
        assert c != 10.0  # recomputed from the singular values, not the starting c
    for g in ckpt["optimizer"]["param_groups"]:  # a checkpoint from before groups carried c
        g.pop("c")
    exp = build(cfg)
    exp.restore(ckpt)
    assert {g["role"]: g["c"] for g in exp.optimizer.param_groups} == {"rest": 1.0, "E": 10.0}


def test_adaptive_c_hand_computation():
    """c = sigma_max(E)/sigma_max(W) * f_W/f_E with known singular values and token fractions."""
    model = build_model(_cfg("optim=adam_lr"), make_task(_cfg("optim=adam_lr")))
    with torch.no_grad():
        E = torch.zeros(9, 4, dtype=torch.float64)
        E[0, 0], E[1, 1], E[2, 0] = 3.0, 2.0, 4.0  # column 0 = (3, 0, 4, ...): sigma_max = 5
        model.E.weight.copy_(E)
        W = torch.zeros(8, 16, dtype=torch.float64)
        W[0, 0], W[1, 1] = 0.5, 2.0  # sigma_max = 2
        model.W.weight.copy_(W)
    ad = AdaptiveC(model, vocab=9, every=2, lo=0.1, hi=1e3, c0=10.0)
    # batch at step 1 uses tokens {0,1,7,8} (4 of 9 rows), at step 2 {0,7,8} (3 of 9): mean f_E = 7/18
    assert ad.observe(1, torch.tensor([[0, 7, 1, 8], [0, 7, 1, 8]])) == 10.0  # not a recompute step
    c = ad.observe(2, torch.tensor([[0, 7, 0, 8]]))
    assert ad.f_E == pytest.approx(7 / 18)
    assert c == pytest.approx(5 / 2 * 18 / 7, rel=1e-12)
    ad2 = AdaptiveC(model, vocab=9, every=1, lo=1.0, hi=2.0, c0=1.0)
    assert ad2.observe(0, torch.tensor([[0, 7, 1, 8]])) == 2.0  # clipped to the range
    # per row: f = (1, 1/2, 0, 0, 0, 0, 0, 1, 1) -> c_i = 2.5 / f_i, a row never seen at the top of the range
    rows = AdaptiveC(model, vocab=9, every=2, lo=0.1, hi=1e3, c0=10.0, per_row=True)
    rows.observe(1, torch.tensor([[0, 7, 1, 8]]))
    c = rows.observe(2, torch.tensor([[0, 7, 0, 8]]))
    want = torch.tensor([2.5, 5.0] + [1e3] * 5 + [2.5, 2.5], dtype=torch.float64)
    assert c == pytest.approx(want.mean().item()) and rows.f_E == pytest.approx(7 / 18)
    torch.testing.assert_close(rows.scale * c, want)


def test_a_zero_W_sends_c_to_the_top_of_its_range_and_a_zero_model_keeps_c():
    """A W decayed to exactly zero (a GrokBench tuning draw at a large weight decay) made the spectral ratio a
    division by zero: the ratio's limit is inf, so c goes to the top of its range; with E zero too, c stays."""
    cfg = _cfg("optim=adam")
    model = build_model(cfg, make_task(cfg))
    with torch.no_grad():
        model.W.weight.zero_()
    mean = AdaptiveC(model, vocab=9, every=1, lo=1.0, hi=100.0, c0=10.0)
    assert mean.observe(1, torch.tensor([[0, 7, 1, 8]])) == 100.0
    rows = AdaptiveC(model, vocab=9, every=1, lo=1.0, hi=100.0, c0=10.0, per_row=True)
    assert rows.observe(1, torch.tensor([[0, 7, 1, 8]])) == 100.0
    with torch.no_grad():
        for t in model.blocks()["E"]:
            t.zero_()
    both = AdaptiveC(model, vocab=9, every=1, lo=1.0, hi=100.0, c0=10.0)
    assert both.observe(1, torch.tensor([[0, 7, 1, 8]])) == 10.0 and both.n == 0  # the window still restarts


def test_per_row_c_is_a_per_row_learning_rate():
    """One Adam step with the per-row rescale moves row i by scale_i times the plain step's move."""
    cfg = _cfg("optim=adam", "optim.c=10", "optim.c_mode=adaptive", "optim.c_freq=row")
    task = make_task(cfg)
    a, b = build_model(cfg, task), build_model(cfg, task)
    b.load_state_dict(a.state_dict())
    x, y = torch.randint(0, 9, (16, 4)), torch.randint(0, 7, (16,))
    moves = []
    for m, scaled in ((a, False), (b, True)):
        opt = build_optimizer(cfg, m)
        torch.nn.functional.cross_entropy(m(x), y).backward()
        before = m.E.weight.detach().clone()
        opt.step()
        if scaled:
            ad = AdaptiveC(m, vocab=9, every=1, lo=0.1, hi=100, c0=10.0, per_row=True)
            ad.scale = torch.linspace(0.5, 3.0, m.E.weight.shape[0], dtype=m.E.weight.dtype)
            ad.rescale(m.E.weight, before)
        moves.append(m.E.weight.detach() - before)
    torch.testing.assert_close(moves[1], ad.scale[:, None] * moves[0])
    assert moves[0].abs().sum() > 0


def test_per_row_c_needs_adaptive_mode():
    from groklab.errors import ConfigError

    with pytest.raises(ConfigError, match="optim.c_freq"):
        _cfg("optim=adam", "optim.c_freq=row")


RESUMABLE = {
    "adaptive_c": {"optim": "adam_lr", "optim.c_adaptive": "true", "optim.c_every": 7, "optim.c_range": "[0.5,1000]"},
    "adaptive_c_rows": {"optim": "adam", "optim.c": 10, "optim.c_mode": "adaptive", "optim.c_freq": "row",
                        "optim.c_every": 7, "batch_size": 4},
    "grokfast_ema": {"optim.grokfast": "ema", "optim.schedule": "cosine", "optim.warmup": 5},
    "grokfast_ma_ortho": {"optim.grokfast": "ma", "optim.grokfast_window": 4, "optim.ortho_grad": "true",
                          "optim": "adamw"},
    "stablemax64_nadam": {"loss": "stablemax", "loss_float64": "true", "optim": "nadam", "model.dropout": 0.1},
}


@pytest.mark.parametrize("name", RESUMABLE)
def test_recipes_survive_exact_resume(tmp_path, monkeypatch, name):
    from conftest import interrupt_and_resume, metric_rows, tiny
    from groklab.data.sampling import EpochSampler
    cfg = make_config(tiny(steps=40, **{"eval.every": 5, **RESUMABLE[name]}))
    full, full_dir, cut_dir = interrupt_and_resume(cfg, tmp_path, monkeypatch, EpochSampler, at=33)
    assert full.summary["status"] == "completed"
    if name == "adaptive_c":
        cs = [r["optim/c"] for r in full.history]
        assert all(0.5 <= c <= 1000 for c in cs) and len(set(cs)) > 2
    assert metric_rows(cut_dir) == metric_rows(full_dir)


def _grads(seq, shapes):
    g = torch.Generator().manual_seed(seq)
    return [torch.randn(s, generator=g, dtype=torch.float64) for s in shapes]


def test_grokfast_ema_and_ma_match_their_definitions():
    shapes = [(3, 2), (4,)]
    ps = [torch.zeros(s, dtype=torch.float64, requires_grad=True) for s in shapes]
    ema_f, ma_f = GrokfastEMA(ps, alpha=0.9, lamb=2.0), None
    ema = None
    for t in range(6):
        raw = _grads(t, shapes)
        for p, g in zip(ps, raw):
            p.grad = g.clone()
        ema_f()
        ema = [g.clone() for g in raw] if ema is None else [0.9 * e + 0.1 * g for e, g in zip(ema, raw)]
        for p, g, e in zip(ps, raw, ema):
            torch.testing.assert_close(p.grad, g + 2.0 * e, rtol=1e-12, atol=1e-12)
    ma_f, hist = GrokfastMA(ps, window=3, lamb=5.0), []
    for t in range(250):  # long enough for several exact re-sums of the running window sum
        raw = _grads(100 + t, shapes)
        hist.append(raw)
        for p, g in zip(ps, raw):
            p.grad = g.clone()
        ma_f()
        for i, (p, g) in enumerate(zip(ps, raw)):
            want = g if t < 2 else g + 5.0 * sum(h[i] for h in hist[-3:]) / 3
            torch.testing.assert_close(p.grad, want, rtol=1e-10, atol=1e-12)


def test_ortho_grad_removes_the_weight_direction_and_keeps_the_norm():
    w = torch.tensor([[3.0, 4.0], [0.0, 0.0]], dtype=torch.float64, requires_grad=True)
    g = torch.tensor([[1.0, 2.0], [2.0, -1.0]], dtype=torch.float64)
    w.grad = g.clone()
    ortho_grad_([w])
    wf, gf = w.detach().flatten(), g.flatten()
    perp = gf - (wf @ gf) / (wf @ wf) * wf  # (1,2,2,-1) - 11/25 (3,4,0,0)
    torch.testing.assert_close(w.grad.flatten(), perp * gf.norm() / perp.norm(), rtol=1e-12, atol=1e-12)
    assert abs(w.grad.flatten() @ wf) < 1e-12 and w.grad.norm().item() == pytest.approx(gf.norm().item())
