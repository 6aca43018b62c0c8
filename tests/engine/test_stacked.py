"""engine/stacked.py: the stacked parameter layout and its one-pass Adam (the population-level behaviour,
members equal to solo runs, is tested in test_population.py)."""
import pytest

from conftest import tiny
from groklab import make_config


def _stack_pair(optim, monkeypatch):
    """Two stacks of three float64 members (lr, wd, c differ); the second's step takes the fused branch."""
    import torch

    from groklab.engine import stacked
    from groklab.engine.setup import build

    monkeypatch.setattr(stacked, "_adam_kernel", lambda: stacked.rules.adam_)  # its math, run eagerly
    cfgs = [make_config(tiny(dtype="float64", optim=optim, seed=s, **{"optim.lr": 0.01 * (s + 1),
                                                                      "optim.weight_decay": 0.5 * s + 0.1}))
            for s in range(3)]
    exps = [build(c) for c in cfgs]
    a, b = (stacked.Stacked([e.model for e in exps], [e.optimizer for e in exps], cfgs, torch.device("cpu"))
            for _ in range(2))
    b.fused = True
    return a, b


@pytest.mark.parametrize("optim", ["adam_lr", "adamw_lr"])
def test_fused_step_equals_the_eager_step(optim, monkeypatch):
    """The one-pass Adam that CUDA compiles, through step(): weight decay applied once, per-block lr."""
    import torch

    a, b = _stack_pair(optim, monkeypatch)
    for _ in range(3):
        g = [torch.randn_like(t) for t in a.params.values()]
        a.step(g)
        b.step(g)
    assert torch.allclose(a.theta, b.theta, rtol=0, atol=1e-14)


def test_stacked_layout_and_keep(monkeypatch):
    """Blocks start at multiples of ALIGN; member(i) is member i's own tensors, also after keep()."""
    import torch

    from groklab.engine import stacked
    from groklab.engine.setup import build

    cfgs = [make_config(tiny(seed=s, **{"model.depth": 2})) for s in range(3)]
    exps = [build(c) for c in cfgs]
    models = [e.model for e in exps]
    st = stacked.Stacked(models, [e.optimizer for e in exps], cfgs, torch.device("cpu"))
    assert all(a % stacked.ALIGN == 0 for a in st.starts.values())
    for i, m in enumerate(models):
        assert all(torch.equal(st.member(i)["params"][n], t.detach()) for n, t in m.named_parameters())
    st.step([torch.randn_like(t) for t in st.params.values()])
    before = [st.member(i) for i in range(3)]
    st.keep([2, 0])
    for j, i in enumerate([2, 0]):
        after = st.member(j)
        for n in st.names:
            assert torch.equal(after["params"][n], before[i]["params"][n])
            assert torch.equal(after["state"]["exp_avg"][n], before[i]["state"]["exp_avg"][n])
    assert st.M == 2 and st.base_lr.shape == (2, 1) and all(x.shape == (2, 1) for x in st.lr.values())
