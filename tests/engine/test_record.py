"""engine/record.py, the one writer of a run directory: a lock held for the run's life, per-writer temp files, busy
runs left alone, a crash recorded and resumed exactly."""
import json
import os
import subprocess
import sys
import time

import pytest
import yaml

from conftest import tiny
from groklab import ConfigError, make_config, train
from groklab.cli import main
from groklab.engine.evals import eval_schedule
from groklab.errors import RunBusy
from groklab.store import RunStore, holder, make_out, read_metrics
from groklab.store.files import tmp_name
from groklab.sweep import expand, load_sweep, plan

CLI = [sys.executable, "-m", "groklab.cli"]
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


def test_two_processes_resume_one_run_exactly_one_writes(tmp_path):
    run = tmp_path / "rr"
    train(make_config(tiny(steps=20)), out=run)
    a = subprocess.Popen(CLI + ["train", "--resume", str(run), "steps=6000"], env=ENV, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while holder(run) is None and a.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    b = subprocess.run(CLI + ["train", "--resume", str(run), "steps=6000"], env=ENV, capture_output=True, text=True)
    a.wait(timeout=300)
    if a.returncode == 0 and b.returncode == 0:
        pytest.skip("the first writer finished before the second started")
    assert a.returncode == 0, a.stderr
    assert b.returncode == 2 and f"being written by pid {a.pid}" in b.stderr and "\n" not in b.stderr.strip()
    cfg = make_config(tiny(steps=6000))
    assert [r["step"] for r in read_metrics(run)] == sorted(eval_schedule(cfg)[0])  # every row, once
    assert json.loads((run / "summary.json").read_text())["status"] == "completed"


def test_a_second_writer_in_the_same_process_is_refused(tmp_path):
    run = tmp_path / "r"
    train(make_config(tiny()), out=run)
    store = RunStore.open(run, write=True)
    try:
        with pytest.raises(RunBusy, match=f"pid {os.getpid()}"):
            train(resume=run, steps=40)
        assert holder(run) == os.getpid()
    finally:
        store.close()
    assert holder(run) is None
    assert train(resume=run, steps=40).summary["steps"] == 40  # free again


def test_stale_temp_files_of_dead_writers_are_removed(tmp_path):
    run = tmp_path / "r"
    train(make_config(tiny(steps=20)), out=run)
    stale = [tmp_name(run / "ckpt.pt"), tmp_name(run / "metrics.jsonl")]
    for f in stale:
        f.write_bytes(b"half a checkpoint")
    train(resume=run, steps=30)
    assert not any(f.exists() for f in stale)


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path, monkeypatch):
    run = tmp_path / "r"
    train(make_config(tiny(steps=20)), out=run)
    before = (run / "ckpt.pt").read_bytes()
    store = RunStore.open(run, write=True)

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("torch.save", full)
    with pytest.raises(OSError):
        store.save_checkpoint({"step": 25})
    store.close()
    assert (run / "ckpt.pt").read_bytes() == before and not list(run.glob(".*.tmp"))


def test_sweeps_leave_a_busy_run_to_its_writer(tmp_path, capsys):
    f = tmp_path / "sweep.yaml"
    base = {"p": 11, "task": "add", "model.d_emb": 8, "model.d_hidden": 32, "steps": 30, "batch_size": 16,
            "eval.every": 10, "eval.log_points": 0, "checkpoint_every": 10}
    f.write_text(yaml.safe_dump({"base": base, "grid": {"optim.lr": [0.001, 0.01]}, "seeds": 1}))
    runs = expand(load_sweep(f), make_out(tmp_path / "out"))  # the sweep's tree, marked as a sweep marks it
    train(runs[0].cfg.model_copy(update={"steps": 30}), out=runs[0].out)  # then hold its lock, as a writer would
    (runs[0].out / "summary.json").unlink()
    lock = RunStore.open(runs[0].out, write=True)
    try:
        units, done, busy = plan(runs, "sequential")
        assert [r.name for r in busy] == [runs[0].name] and [u[0].name for u in units] == [runs[1].name]
        assert main(["sweep", str(f), "--out", str(tmp_path / "out"), "--quiet", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["busy"] == [runs[0].name] and out["ran"] == 1
        assert not (runs[0].out / "summary.json").exists()  # untouched
    finally:
        lock.close()


def test_a_run_killed_before_its_first_checkpoint_trains_again_from_step_0(tmp_path, capsys):
    run = tmp_path / "r"
    ref = train(make_config(tiny()), out=tmp_path / "ref")
    store = RunStore.create(run, make_config(tiny()).to_dict())  # config written, then the process died
    store.append({"step": 0, "train/loss": 9.0})
    store.close()
    res = train(resume=run)
    assert "training again from step 0" in capsys.readouterr().err
    strip = lambda rows: [{k: v for k, v in r.items() if k != "time/wall_s"} for r in rows]  # noqa: E731
    assert res.summary["status"] == "completed" and strip(read_metrics(run)) == strip(read_metrics(ref.path))


def test_a_new_run_refuses_a_directory_being_created_by_another(tmp_path):
    run = tmp_path / "r"
    store = RunStore.create(run, make_config(tiny()).to_dict())
    try:
        with pytest.raises(ConfigError, match="already holds a run"):
            train(make_config(tiny()), out=run)
    finally:
        store.close()


def test_a_crash_mid_run_is_recorded_and_the_run_resumes_exactly(tmp_path, monkeypatch):
    """A write that fails (disk full) ends the run as `failed` with the reason, lock released; resuming from
    the last checkpoint once there is space again gives the uninterrupted run's rows."""
    cfg = make_config(tiny(steps=40, **{"eval.every": 5}))
    ref = train(cfg, out=tmp_path / "ref")
    original, run = RunStore.append, tmp_path / "r"

    def append(self, row):
        if row["step"] == 25:
            raise OSError(28, "No space left on device")
        original(self, row)

    monkeypatch.setattr(RunStore, "append", append)
    with pytest.raises(OSError):
        train(cfg, out=run)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == "failed" and "No space left" in summary["error"] and holder(run) is None
    monkeypatch.setattr(RunStore, "append", original)
    assert train(resume=run).summary["status"] == "completed"
    strip = lambda rows: [{k: v for k, v in r.items() if k != "time/wall_s"} for r in rows]  # noqa: E731
    assert strip(read_metrics(run)) == strip(read_metrics(ref.path))
