"""The training loop end to end at tiny sizes: store, events, resume, divergence, early stop."""
import json
import os
import subprocess
import sys
import time

import pytest

from conftest import tiny
from groklab import load_runs, make_config, train
from groklab.data.sampling import EpochSampler

SUMMARY_KEYS = {"status", "steps", "wall_s", "steps_per_s", "t_train", "t_test", "gap",
                "final/train_acc", "final/test_acc"}


def _rows(path):
    return [{k: v for k, v in r.items() if k != "time/wall_s"} for r in map(json.loads, open(path))]


def test_run_directory_contents(tmp_path):
    out = tmp_path / "run"
    res = train(make_config(tiny()), out=out)
    assert {f.name for f in out.iterdir()} >= {"config.yaml", "metrics.jsonl", "summary.json", "ckpt.pt"}
    summary = json.loads((out / "summary.json").read_text())
    assert SUMMARY_KEYS <= set(summary) and summary["status"] == "completed" and summary["steps"] == 30
    rows = _rows(out / "metrics.jsonl")
    assert [r["step"] for r in rows] == [0, 10, 20, 30]
    assert set(rows[0]) == {"step", "train/loss", "train/acc", "test/loss", "test/acc"}
    assert rows == [{k: v for k, v in r.items() if k != "time/wall_s"} for r in res.history]
    assert make_config(base=__import__("yaml").safe_load((out / "config.yaml").read_text())) == make_config(tiny())


def test_same_config_same_metrics():
    a, b = train(make_config(tiny())), train(make_config(tiny()))
    strip = lambda h: [{k: v for k, v in r.items() if k != "time/wall_s"} for r in h]  # noqa: E731
    assert strip(a.history) == strip(b.history)
    c = train(make_config(tiny(seed=1)))
    assert strip(c.history) != strip(a.history)


def test_resume_after_interrupt_equals_uninterrupted(tmp_path, monkeypatch):
    cfg = make_config(tiny(steps=60, **{"eval.every": 5}))
    full = train(cfg, out=tmp_path / "full")
    original = EpochSampler.batch

    def boom(self, step):
        if step == 47:
            raise KeyboardInterrupt
        return original(self, step)

    monkeypatch.setattr(EpochSampler, "batch", boom)
    with pytest.raises(KeyboardInterrupt):
        train(cfg, out=tmp_path / "cut")
    assert json.loads((tmp_path / "cut" / "summary.json").read_text())["status"] == "interrupted"
    monkeypatch.setattr(EpochSampler, "batch", original)
    resumed = train(resume=tmp_path / "cut")
    assert resumed.summary["status"] == "completed"
    assert _rows(tmp_path / "cut" / "metrics.jsonl") == _rows(tmp_path / "full" / "metrics.jsonl")
    for k in ("t_train", "t_test", "final/test_loss", "final/train_loss"):
        assert resumed.summary[k] == full.summary[k]


def test_resume_after_kill_9_equals_uninterrupted(tmp_path):
    """A real crash: SIGKILL a CLI run after a checkpoint, resume, compare every metric row."""
    args = tiny(steps=3000, **{"eval.every": 50, "checkpoint_every": 100, "stop.early": "false"})
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "groklab.cli", "train"]
    subprocess.run(cmd + ["--out", str(tmp_path / "full"), *args], check=True, env=env, capture_output=True)
    proc = subprocess.Popen(cmd + ["--out", str(tmp_path / "cut"), *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ckpt, deadline = tmp_path / "cut" / "ckpt.pt", time.time() + 60
    while not ckpt.exists() and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(0.05)
    proc.kill()
    proc.wait()
    cut_rows = _rows(tmp_path / "cut" / "metrics.jsonl")
    if cut_rows and cut_rows[-1]["step"] == 3000:
        pytest.skip("the run finished before it could be killed")
    r = subprocess.run(cmd + ["--resume", str(tmp_path / "cut")], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert _rows(tmp_path / "cut" / "metrics.jsonl") == _rows(tmp_path / "full" / "metrics.jsonl")


def test_resume_extends_a_finished_run(tmp_path):
    out = tmp_path / "run"
    train(make_config(tiny(steps=20)), out=out)
    res = train(resume=out, steps=40)
    assert res.summary["steps"] == 40
    assert [r["step"] for r in _rows(out / "metrics.jsonl")] == [0, 10, 20, 30, 40]
    assert _rows(out / "metrics.jsonl") == _rows(train(make_config(tiny(steps=40)), out=tmp_path / "b").path
                                                  / "metrics.jsonl")


def test_divergence_stops_the_run_and_keeps_the_log(tmp_path):
    out = tmp_path / "run"
    res = train(make_config(tiny(**{"optim": "sgd", "optim.lr": 1e8, "optim.momentum": 0.0})), out=out)
    assert res.summary["status"] == "diverged"
    rows = _rows(out / "metrics.jsonl")
    assert rows[0]["step"] == 0 and rows[0]["train/loss"] is not None
    assert json.loads((out / "summary.json").read_text())["status"] == "diverged"


def test_early_stop_after_patience():
    cfg = make_config(tiny(steps=2000, p=7, **{"split.frac_train": 0.5, "eval.every": 5, "stop.patience": 20,
                                                "stop.target": 0.0}))
    res = train(cfg)  # target 0 is met at step 0, so the run must stop right after the patience
    s = res.summary
    assert s["status"] == "early_stop" and s["steps"] == 20
    assert [r["step"] for r in res.history] == [0, 5, 10, 15, 20]


def test_plateau_stop_after_no_rise_and_never_by_default():
    """lr 0 (nothing learns): with stop.plateau the run stops once no accuracy rose for the window, saying why;
    without it the run trains to its horizon."""
    base = {"steps": 400, "eval.every": 10, "optim.lr": 0.0, "stop.early": "false"}
    res = train(make_config(tiny(**base, **{"stop.plateau": 50})))
    assert res.summary["status"] == "early_stop" and res.summary["stopped_by"] == "plateau"
    assert res.summary["steps"] == 50  # levels set at step 0, never beaten: 50 steps later it stops
    plain = train(make_config(tiny(**base)))
    assert plain.summary["status"] == "completed" and plain.summary["steps"] == 400
    assert "stopped_by" not in plain.summary


def test_events_match_the_curve():
    res = train(make_config(tiny(steps=200, **{"optim.lr": 0.01, "split.frac_train": 0.6})))
    s, h = res.summary, res.history
    first = lambda key: next((r["step"] for r in h if r[key] >= 0.99), None)  # noqa: E731
    assert s["t_train"] == first("train/acc") and s["t_test"] == first("test/acc")
    if s["t_train"] is not None and s["t_test"] is not None:
        assert s["gap"] == s["t_test"] - s["t_train"]


def test_load_runs_over_a_tree(tmp_path):
    for seed in (0, 1):
        for task in ("add", "mul"):
            train(make_config(tiny(seed=seed, task=task)), out=tmp_path / task / f"s{seed}")
    df = load_runs(tmp_path)
    assert len(df) == 4 * 4 and df["run"].nunique() == 4
    assert set(df["task.name"]) == {"add", "mul"} and set(df["seed"]) == {0, 1}
    assert {"step", "train/acc", "test/acc", "optim.lr", "status"} <= set(df.columns)
    one = load_runs(tmp_path / "add" / "s0")
    assert len(one) == 4 and set(one["task.name"]) == {"add"}


def test_load_runs_skips_a_torn_last_line(tmp_path):
    out = tmp_path / "run"
    train(make_config(tiny()), out=out)
    with open(out / "metrics.jsonl", "a") as f:
        f.write('{"step": 40, "train/lo')
    assert list(load_runs(out)["step"]) == [0, 10, 20, 30]


def test_flush_denormal_is_applied_on_cpu():
    """Subnormal floats are flushed to zero by default (speed), kept with flush_denormal=false."""
    import torch

    from groklab.engine.setup import build

    try:
        build(make_config(tiny(flush_denormal="false")))
        assert (torch.tensor([1e-40]) * 1.0).item() != 0.0
        build(make_config(tiny()))
        assert (torch.tensor([1e-40]) * 1.0).item() == 0.0
    finally:
        torch.set_flush_denormal(False)


def test_an_unused_samplers_knobs_do_not_make_a_stored_run_different(tmp_path):
    """A run stored before the entropy sampler's defaults changed (sampler_gamma 1e-4 written out) is the same
    run under the epoch sampler; under the entropy sampler the same difference is a different run."""
    from groklab.engine.loop import train_members
    from groklab.errors import ConfigError
    from groklab.store.files import atomic_write

    out = tmp_path / "run"
    train(make_config(tiny(steps=10)), out=out)
    text = (out / "config.yaml").read_text().replace("sampler_gamma: null", "sampler_gamma: 0.0001")
    assert "sampler_gamma: 0.0001" in text
    atomic_write(out / "config.yaml", text)
    assert train_members([make_config(tiny(steps=10))], [out])[0].summary["status"] == "completed"
    ent = tmp_path / "ent"
    train(make_config(tiny(steps=10, sampler="entropy")), out=ent)
    atomic_write(ent / "config.yaml", (ent / "config.yaml").read_text().replace("sampler_gamma: null",
                                                                                 "sampler_gamma: 0.0001"))
    with pytest.raises(ConfigError, match="sampler_gamma"):
        train_members([make_config(tiny(steps=10, sampler="entropy"))], [ent])


def test_drain_waits_for_a_cuda_device_before_the_clock_is_read(monkeypatch):
    """The eval timer starts after the queued steps ran: on CUDA the loop synchronizes first, on the CPU it
    does not (there is no queue), and both return a reading of the same clock."""
    import time

    import torch

    from groklab.engine.loop import drain

    waited = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: waited.append(device))
    before = time.perf_counter()
    assert drain(torch.device("cpu")) >= before and waited == []
    assert drain(torch.device("cuda", 0)) >= before and waited == [torch.device("cuda", 0)]
