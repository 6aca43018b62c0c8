"""optim/muon.py: Muon on the hidden matrices, AdamW on the embedding, head and vectors, as one optimizer."""
import json

import pytest
import torch

from conftest import tiny
from groklab import make_config, train
from groklab.engine.setup import build


def _rows(path):
    return [{k: v for k, v in json.loads(x).items() if not k.startswith("time/")} for x in open(path)]


def test_muon_drives_the_hidden_matrices_and_adamw_the_rest():
    exp = build(make_config(tiny(**{"optim.name": "muon", "optim.c": 10, "model.depth": 2})))
    opt, names = exp.optimizer, {id(t): n for n, t in exp.model.named_parameters()}
    muon = {names[id(t)] for g in opt.muon.param_groups for t in g["params"]}
    adamw = {names[id(t)] for g in opt.adamw.param_groups for t in g["params"]}
    assert muon == {"W.weight", "hidden.0.weight"}
    assert adamw == {"E.weight", "W.bias", "hidden.0.bias", "U.weight", "U.bias"}
    e_group = next(g for g in opt.param_groups if g["role"] == "E")  # c reaches the embedding through AdamW
    assert e_group["lr"] == pytest.approx(10 * exp.cfg.optim.lr) and e_group in opt.adamw.param_groups
    assert make_config(tiny(**{"optim.name": "muon"})).optim.decoupled


def test_muon_step_is_torchs_muon_on_its_matrices():
    torch.manual_seed(0)
    exp = build(make_config(tiny(**{"optim.name": "muon", "optim.weight_decay": 0.1})))
    W = exp.model.W.weight
    ref = W.detach().clone().requires_grad_(True)
    twin = torch.optim.Muon([ref], lr=exp.cfg.optim.lr, weight_decay=0.1, adjust_lr_fn="match_rms_adamw")
    for _ in range(3):
        g = torch.randn_like(W)
        for t in exp.model.parameters():
            t.grad = torch.zeros_like(t)
        W.grad, ref.grad = g.clone(), g.clone()
        exp.optimizer.step()
        twin.step()
    assert torch.equal(W.detach(), ref.detach())


def test_muon_run_resumes_exactly(tmp_path):
    cfg = make_config(tiny(steps=40, **{"optim.name": "muon", "optim.lr": 0.01}))
    full = train(cfg, out=tmp_path / "full")
    train(make_config(tiny(steps=20, **{"optim.name": "muon", "optim.lr": 0.01})), out=tmp_path / "cut")
    train(resume=tmp_path / "cut", steps=40)
    assert _rows(tmp_path / "cut" / "metrics.jsonl") == _rows(full.path / "metrics.jsonl")
    with pytest.raises(Exception, match="coupled"):
        make_config(tiny(**{"optim.name": "muon", "optim.wd_mode": "coupled"}))
