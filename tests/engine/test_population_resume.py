"""A stacked population killed with SIGKILL resumes exactly; measures run inside a stacked population."""
import os
import signal
import subprocess
import sys
import time

import pytest
import yaml

from conftest import tiny
from groklab import make_config, train
from groklab.engine.population import train_population
from groklab.store import read_metrics
from groklab.sweep import expand, load_sweep

BASE = {"p": 11, "task": "add", "model.d_emb": 8, "model.d_hidden": 32, "steps": 4000, "batch_size": 16,
        "eval.every": 50, "eval.log_points": 0, "checkpoint_every": 100, "stop.early": False}


def _rows(path):
    return [{k: v for k, v in r.items() if k != "time/wall_s"} for r in read_metrics(path)]


def test_stacked_population_resumes_exactly_after_kill_9(tmp_path):
    f = tmp_path / "sweep.yaml"
    f.write_text(yaml.safe_dump({"base": BASE, "grid": {"optim.lr": [0.001, 0.003, 0.01]}, "seeds": 1}))
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "groklab.cli", "sweep", str(f), "--packing", "stacked", "--quiet", "--out"]
    subprocess.run(cmd + [str(tmp_path / "full")], check=True, env=env, capture_output=True)
    runs = expand(load_sweep(f), tmp_path / "cut")
    proc = subprocess.Popen(cmd + [str(tmp_path / "cut")], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while not all((r.out / "ckpt.pt").exists() for r in runs) and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    if all(_rows(r.out)[-1:] and _rows(r.out)[-1]["step"] == 4000 for r in runs):
        pytest.skip("the population finished before it could be killed")
    r = subprocess.run(cmd + [str(tmp_path / "cut")], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for run in runs:
        ref = tmp_path / "full" / run.out.relative_to(tmp_path / "cut")
        assert _rows(run.out) == _rows(ref) and _rows(ref)[-1]["step"] == 4000


def test_measures_inside_a_stacked_population_equal_solo_runs():
    extra = {"measures.spectra.every": 10, "measures.progress.every": 10, "dtype": "float64", "steps": 20}
    cfgs = [make_config(tiny(seed=s, **extra)) for s in (0, 1)]
    for res, cfg in zip(train_population(cfgs, packing="stacked"), cfgs):
        solo = train(cfg)
        assert [r["step"] for r in res.history] == [r["step"] for r in solo.history]
        for a, b in zip(res.history, solo.history):
            for k in ("sv/E_max", "rank/EW", "progress/MED", "norm/W", "grad/total", "test/loss"):
                assert a[k] == pytest.approx(b[k], rel=1e-9), (a["step"], k)
