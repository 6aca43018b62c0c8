"""Measures scheduled in the training loop: stored values, exact resume, purity, `groklab measure`."""
import json
import math

import numpy as np
import pytest
import torch

from conftest import interrupt_and_resume, tiny
from groklab import make_config, train
from groklab.cli import main
from groklab.data.sampling import EpochSampler
from groklab.engine.setup import build
from groklab.measures import MEASURES, measure_schedule, run_measures
from groklab.store import array_series, load_arrays, read_metrics

ALL_ON = {"measures.hessian.every": 10, "measures.hessian.blocks": "[E,W,all]", "measures.hessian.trace_samples": 2,
          "measures.spectra.every": 10, "measures.progress.every": 10, "measures.token_grads.every": 5,
          "measures.geometry.every": 20, "measures.landscape.every": 20, "measures.landscape.n_points": 5,
          "measures.logits.every": 10}
SCALARS = ["hessian/E_top", "hessian/W_top", "hessian/all_top", "hessian/E_trace", "sv/E_max", "sv/W_max",
           "sv/EW_max", "rank/E", "rank/W", "rank/EW", "erank/EW", "srank/W", "fourier/key_share", "progress/MED",
           "norm/total", "grad/E", "grad/W", "landscape/sharpness", "geometry/pca_share", "logits/scale",
           "logits/restricted_loss", "logits/excluded_loss", "logits/collapse_share"]


def _rows(path):
    return [{k: v for k, v in r.items() if k != "time/wall_s"} for r in read_metrics(path)]


def test_schedule_is_empty_by_default_and_per_measure_when_on():
    assert measure_schedule(make_config(tiny())) == {}
    due = measure_schedule(make_config(tiny(steps=25, **{"measures.hessian.every": 10,
                                                          "measures.spectra.every": 20})))
    assert due == {0: ["hessian", "spectra"], 10: ["hessian"], 20: ["hessian", "spectra"], 25: ["hessian", "spectra"]}


def test_a_short_run_with_every_measure_stores_finite_values(tmp_path):
    out = tmp_path / "run"
    res = train(make_config(tiny(**ALL_ON)), out=out)
    rows = read_metrics(out)
    at = {r["step"]: r for r in rows}
    assert sorted(at) == [0, 5, 10, 15, 20, 25, 30] and "train/acc" in at[10] and "train/acc" not in at[5]
    for key in SCALARS:
        vals = [r[key] for r in rows if key in r]
        assert vals and all(math.isfinite(v) for v in vals), key
    assert at[0]["hessian/E_top"] < at[0]["hessian/all_top"]  # a sub-block's top is below the whole's
    s = json.loads((out / "summary.json").read_text())
    assert 0 < s["measure_share"] < 1 and s["measure_s"] > 0 and sum("progress/MED" in r for r in rows) >= 3
    steps, counts = array_series(out, "tokens/count")
    assert steps.tolist() == [0, 5, 10, 15, 20, 25, 30] and (counts.sum(1) == 16 * 4).all()  # batch 16, 4 tokens
    steps, spec = array_series(out, "fourier/spectrum")
    assert steps.tolist() == [0, 10, 20, 30] and spec.shape == (4, 11 // 2 + 1)
    assert load_arrays(out, 20)["landscape/loss"].shape == (5, 5)
    assert res.summary["measure_s"] == s["measure_s"]


def test_measures_do_not_change_training(tmp_path):
    plain = train(make_config(tiny()))
    measured = train(make_config(tiny(**ALL_ON)))
    keys = ("train/loss", "train/acc", "test/loss", "test/acc")
    strip = lambda h: [{k: r[k] for k in keys} for r in h if "train/loss" in r]  # noqa: E731
    assert strip(plain.history) == strip(measured.history)


def test_run_measures_leaves_model_rng_and_modes_alone():
    exp = build(make_config(tiny(**{"measures.geometry.tsne": "true", "measures.landscape.n_points": 3})))
    model = exp.model
    model.train()
    model.U.eval()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    rng, np_rng = torch.get_rng_state(), np.random.get_state()[1].copy()
    a = run_measures(exp, 7, MEASURES)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert all(t.grad is None for t in model.parameters())
    assert torch.equal(rng, torch.get_rng_state()) and np.array_equal(np_rng, np.random.get_state()[1])
    assert model.training and model.W.training and not model.U.training
    b = run_measures(exp, 7, MEASURES)  # same step, same measure seed: same numbers
    assert a[0] == b[0]


def test_resume_with_measures_equals_uninterrupted(tmp_path, monkeypatch):
    cfg = make_config(tiny(steps=40, **{**ALL_ON, "eval.every": 5, "checkpoint_every": 10}))
    interrupt_and_resume(cfg, tmp_path, monkeypatch, EpochSampler, at=27)
    assert _rows(tmp_path / "cut") == _rows(tmp_path / "full")  # training and measure scalars alike
    full, cut = load_arrays(tmp_path / "full"), load_arrays(tmp_path / "cut")
    assert sorted(full) == sorted(cut)
    for step in full:
        for key in full[step]:
            np.testing.assert_array_equal(full[step][key], cut[step][key])


def test_measure_cli_on_kept_checkpoints(tmp_path, capsys):
    out = tmp_path / "run"
    train(make_config(tiny(steps=30, **{"checkpoint_keep": 20, "checkpoint_every": 0})), out=out)
    assert (out / "ckpt_20.pt").is_file() and not (out / "ckpt_10.pt").exists()
    assert main(["measure", str(out), "--at", "20", "--what", "spectra,progress", "measures.spectra.n_key=2"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["step"] == 20 and math.isfinite(got["sv/E_max"]) and "fourier/spectrum" in got["arrays"]
    saved = json.loads((out / "posthoc" / "step_000000020.json").read_text())
    assert saved["sv/E_max"] == got["sv/E_max"]
    assert load_arrays(out, 20, folder="posthoc")["fourier/key_freqs"].shape == (2,)
    # the same numbers as a measure scheduled during training at that step
    inrun = train(make_config(tiny(steps=30, **{"measures.spectra.every": 20, "checkpoint_every": 0})))
    row = next(r for r in inrun.history if r["step"] == 20)
    assert row["sv/E_max"] == pytest.approx(got["sv/E_max"], rel=1e-6)
    assert main(["measure", str(out), "--at", "0", "--what", "spectra"]) == 0  # init, rebuilt from the seed
    assert json.loads(capsys.readouterr().out)["step"] == 0
    assert main(["measure", str(out), "--at", "10"]) == 2
    assert "available: [0, 20, 30]" in capsys.readouterr().err
    assert main(["measure", str(out), "--what", "hesian"]) == 2
    assert main(["measure", str(out), "steps=5"]) == 2


def test_a_model_without_embedding_gets_the_measures_that_apply():
    res = train(make_config(tiny(model="mlp", **ALL_ON)))
    row = res.history[0]
    assert math.isfinite(row["hessian/W_top"]) and math.isfinite(row["sv/W_max"])
    assert not any(k.startswith(("hessian/E", "sv/E", "fourier/", "progress/MED", "tokens/")) for k in row)


@pytest.mark.parametrize("model", ["transformer", "lstm", "birnn"])
def test_measures_work_through_blocks_for_every_model(model):
    exp = build(make_config(tiny(model=model, **{"measures.hessian.blocks": "[E,W]",
                                                 "measures.landscape.n_points": 3})))
    before = {k: v.clone() for k, v in exp.model.state_dict().items()}
    scalars, arrays = run_measures(exp, 0, MEASURES)
    for key in ("hessian/E_top", "hessian/W_top", "sv/EW_max", "rank/EW", "fourier/key_share", "progress/MED",
                "grad/E", "landscape/loss0"):
        assert math.isfinite(scalars[key]), (model, key)
    assert arrays["tokens/grad_norm"].shape == (exp.model.blocks()["E"][0].shape[0],)
    assert all(torch.equal(before[k], v) for k, v in exp.model.state_dict().items())
