"""Holdout accuracy: a SQUARE/STRIP run logs its accuracy on the holdout alone (holdout/acc) and reports H-Acc,
the holdout accuracy where U-Acc was reached; solo and stacked runs agree; other runs are unchanged."""
import pytest
import torch

from conftest import tiny
from groklab import make_config, train
from groklab.engine.population import train_population
from groklab.engine.setup import build
from groklab.measures.curves import GrokTracker


def square(**kw):
    return make_config(tiny(**{"split": "square", "split.k": 4, "split.frac_train": 0.6, "steps": 300,
                               "optim.lr": 0.01, "eval.every": 20, "stop.early": "false", **kw}))


def test_holdout_accuracy_is_the_accuracy_on_the_holdout_rows(tmp_path):
    cfg = square()
    res = train(cfg, out=tmp_path / "r")
    exp = build(cfg)
    exp.model.load_state_dict(torch.load(tmp_path / "r" / "ckpt.pt", weights_only=True)["model"])
    held = exp.split.holdout
    assert len(held) == 25  # a <= 4 and b <= 4 at p = 11
    with torch.no_grad():
        hit = exp.model(exp.task.inputs[held]).argmax(-1) == exp.task.labels[held]
    last = res.history[-1]
    assert last["holdout/acc"] == pytest.approx(hit.float().mean().item())
    n_test, n_held = res.summary["n_test"], len(held)
    assert exp.holdout_mask.sum() == n_held and len(exp.holdout_mask) == n_test


def test_h_acc_is_read_where_u_acc_was_reached():
    t = GrokTracker(rise=0.1)
    # (step, train, test, holdout): fit at 10, take-off at 20, U-Acc 0.8 at 30 (holdout 0.2 there), then a dip
    for row in [(0, 0.1, 0.05, 0.0), (10, 1.0, 0.1, 0.0), (20, 1.0, 0.5, 0.1), (30, 1.0, 0.8, 0.2),
                (40, 1.0, 0.7, 0.6)]:
        t.update(*row)
    assert t.events()["u_acc"] == 0.8 and t.events()["l_acc"] == 0.7 and t.events()["h_acc"] == 0.2
    assert "h_acc" not in GrokTracker().events()


def test_stacked_members_log_the_same_holdout_accuracy():
    cfgs = [square(seed=s, steps=60, dtype="float64") for s in (0, 1)]
    for stacked, cfg in zip(train_population(cfgs, packing="stacked"), cfgs):
        solo = train(cfg)
        assert [r["holdout/acc"] for r in stacked.history] == pytest.approx([r["holdout/acc"] for r in solo.history])


def test_runs_without_a_holdout_have_no_holdout_columns():
    res = train(make_config(tiny()))
    assert "holdout/acc" not in res.history[-1] and "h_acc" not in res.summary
