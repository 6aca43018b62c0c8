"""One mechanism per class of failure (issue: reliability): sizes checked arithmetically before anything is
allocated, filesystem errors as one line with nothing half-made, failed runs named with a non-zero exit,
loss explosions caught, threads chosen for the jobs sharing the CPUs."""
import json
import os

import pytest
import torch

from conftest import tiny
from groklab import make_config, train
from groklab.cli import main
from groklab.engine import budget, threads
from groklab.store import RunStore


def cli(capsys, *argv):
    rc = main(list(argv))
    cap = capsys.readouterr()
    return rc, cap.out, cap.err.strip()


# -- sizes -------------------------------------------------------------------------------------------------
def test_allow_large_flag_lifts_the_sweep_limit(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(budget.ALLOW_ENV, raising=False)
    grid = tmp_path / "g.yaml"
    grid.write_text("base: {p: 11}\nseeds: 200000\n")
    rc, _, err = cli(capsys, "sweep", str(grid), "--out", str(tmp_path / "s"))
    assert rc == 2 and "sweep.seeds=200000: the sweep has 200,000 runs" in err and not (tmp_path / "s").exists()
    from groklab.sweep import load_sweep
    monkeypatch.setenv(budget.ALLOW_ENV, "1")
    assert len(load_sweep(grid).seeds) == 200000


# -- filesystem --------------------------------------------------------------------------------------------
def test_disk_full_while_creating_a_run_leaves_nothing(tmp_path, capsys, monkeypatch):
    def full(self, config):
        raise OSError(28, "No space left on device", str(self.path / "config.yaml"))

    monkeypatch.setattr(RunStore, "write_config", full)
    out = tmp_path / "a" / "b" / "run"
    rc, _, err = cli(capsys, "train", *tiny(), "--out", str(out))
    assert rc == 2 and err == f"groklab: error: {out}/config.yaml: No space left on device"
    assert not (tmp_path / "a").exists()  # every folder it made is gone again


def test_disk_full_during_training_exits_1_and_says_the_run_resumes(tmp_path, capsys, monkeypatch):
    original = RunStore.append

    def append(self, row):
        if row["step"] == 20:
            raise OSError(28, "No space left on device")
        original(self, row)

    monkeypatch.setattr(RunStore, "append", append)
    rc, _, err = cli(capsys, "train", *tiny(), "--out", str(tmp_path / "r"))
    assert rc == 1 and err.startswith("groklab: error: No space left on device; the run is marked failed")
    monkeypatch.setattr(RunStore, "append", original)
    assert cli(capsys, "train", "--resume", str(tmp_path / "r"))[0] == 0


# -- failures that look like success -----------------------------------------------------------------------
def test_loss_explosion_is_divergence_and_resume_remembers_the_first_loss(tmp_path):
    cfg = make_config(tiny(steps=60, **{"optim.lr": 1e6, "stop.early": "false"}))
    s = train(cfg, out=tmp_path / "d").summary
    assert s["status"] == "diverged" and "above 100 x its first value" in s["diverged"]
    calm = train(make_config(tiny(steps=60)), out=tmp_path / "c").summary
    assert calm["status"] == "completed" and "diverged" not in calm
    off = make_config(tiny(steps=20, **{"optim.lr": 1e6, "stop.early": "false", "stop.diverge_factor": "null"}))
    assert train(off, out=tmp_path / "o").summary["status"] == "completed"  # finite, huge: the rule is off
    ckpt = torch.load(tmp_path / "c" / "ckpt.pt", weights_only=True)
    assert ckpt["loss0"] == pytest.approx(train(make_config(tiny(steps=0))).history[0]["train/loss"])


def test_summarize_names_failed_runs_and_exits_1(tmp_path, capsys):
    for seed in (0, 1):
        train(make_config(tiny(seed=seed)), out=tmp_path / f"s{seed}")
    s = json.loads((tmp_path / "s1" / "summary.json").read_text())
    (tmp_path / "s1" / "summary.json").write_text(json.dumps({**s, "status": "diverged"}))
    rc, out, err = cli(capsys, "summarize", str(tmp_path))
    assert rc == 1 and err == ("groklab: error: 1 of 2 runs failed: s1 (diverged); --allow-failed exits 0 anyway")
    assert "failed" in out.splitlines()[0]
    rc, _, err = cli(capsys, "summarize", str(tmp_path), "--allow-failed")
    assert rc == 0 and err.startswith("groklab: note: 1 of 2 runs failed: s1")


# -- threads and --allow-large reach workers -----------------------------------------------------------
def test_threads_and_allow_large_reach_workers_as_arguments_not_through_the_environment(tmp_path, capsys,
                                                                                          monkeypatch):
    """--threads and --allow-large are in force for the command and handed to pool workers as arguments; the
    calling process's environment is left as it was (a Python caller of main() sees no setting leak)."""
    import groklab.sweep
    from groklab.sweep import executors

    for k in ("GROKLAB_THREADS", "GROKLAB_ALLOW_LARGE", "GROKLAB_JOBS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(k, raising=False)
    seen = []
    monkeypatch.setattr(groklab.sweep, "run_units", lambda *a, **k: seen.append(executors.handed(2)) or [])
    grid = tmp_path / "g.yaml"
    grid.write_text("base: {p: 11, model: {d_emb: 8, d_hidden: 16}, steps: 10}\nseeds: 2\n")
    env = dict(os.environ)
    assert main(["sweep", str(grid), "--out", str(tmp_path / "s"), "--threads", "3", "--allow-large",
                 "--quiet"]) == 0
    assert seen == [("3", 2, True)] and dict(os.environ) == env
    with threads.thread_policy("2", 4), budget.permit_large():
        assert threads.choose_threads() == 2 and budget.allow_large()
    with threads.thread_policy(None, 2):
        assert threads.choose_threads() == max(1, threads.usable_cpus() // 2)
    assert not budget.allow_large() and threads.current_policy() == (None, None)


def _descendants(pid: int) -> set[int]:
    """Every process below `pid` (Linux /proc)."""
    from pathlib import Path

    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                kids = [int(k) for k in (task / "children").read_text().split()]
            except OSError:
                continue
            todo += [k for k in kids if k not in found]
            found.update(kids)
    return found


def _alive(pid: int) -> bool:
    from pathlib import Path

    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads /proc (Linux)")
def test_sigterm_to_a_parallel_reproduce_stops_its_workers(tmp_path):
    """`kill` of `reproduce --jobs 2` used to leave its pool workers training (and holding run locks) as
    orphans; SIGTERM now stops it like Ctrl-C, workers included, and the runs resume on the next call."""
    import signal
    import subprocess
    import sys
    import time

    cmd = [sys.executable, "-m", "groklab", "reproduce", "embedding/fig6", "--seeds", "1", "--jobs", "2", "--out",
           str(tmp_path / "r"), "p=11", "model.d_emb=8", "model.d_hidden=16", "steps=10000000", "eval.every=5000",
           "stop.early=false"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    kids: set[int] = set()
    try:
        deadline = time.time() + 120
        while time.time() < deadline and len(list((tmp_path / "r" / "fig6").glob("*/*/*/metrics.jsonl"))) < 2:
            time.sleep(0.5)  # two runs have started training in two workers
        kids = _descendants(proc.pid)
        assert len(kids) >= 2, "no pool workers seen"
        proc.send_signal(signal.SIGTERM)
        err = proc.communicate(timeout=60)[1]
        deadline = time.time() + 30
        while time.time() < deadline and any(_alive(k) for k in kids):
            time.sleep(0.5)
        assert not [k for k in kids if _alive(k)], "workers still running after SIGTERM"
        assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
        assert "run the same command again" in err and "leaked semaphore" not in err
        started = sorted((tmp_path / "r" / "fig6").glob("*/*/*/summary.json"))
        # the two runs in training end `interrupted` (the workers caught SIGTERM), and no worker took another
        assert len(started) == 2 and {json.loads(f.read_text())["status"] for f in started} == {"interrupted"}
    finally:
        for k in kids | _descendants(proc.pid) | {proc.pid}:  # orphans too, when the fix is missing
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass


def _ignore_sigint():
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads /proc (Linux)")
@pytest.mark.parametrize("background", [False, True])
def test_sigterm_to_a_ray_sweep_marks_its_runs_interrupted(tmp_path, background):
    """Under Ray the stop cancels each task (a KeyboardInterrupt in the worker) and waits for the runs to be
    marked interrupted before Ray's processes go: every run resumes, no process is left behind. `background`:
    the sweep starts with SIGINT ignored, as a shell's background job (`nohup ... &`) does, and Ray's workers
    inherit that."""
    pytest.importorskip("ray")
    import signal
    import subprocess
    import sys
    import time

    (tmp_path / "g.yaml").write_text(
        "base: {p: 11, task: add, model: {d_emb: 8, d_hidden: 16}, steps: 10000000, batch_size: 16,\n"
        "       eval: {every: 5000, log_points: 0}, stop: {early: false}, bar: false}\n"
        "grid: {optim.lr: [0.01]}\nseeds: [0, 1]\n")
    cmd = [sys.executable, "-m", "groklab", "sweep", str(tmp_path / "g.yaml"), "--out", str(tmp_path / "o"),
           "--quiet", "--executor", "ray"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "RAY_ADDRESS": ""},  # a local Ray of its own
                            preexec_fn=_ignore_sigint if background else None)
    kids: set[int] = set()
    try:
        deadline = time.time() + 240
        while time.time() < deadline and len(list((tmp_path / "o").glob("*/*/metrics.jsonl"))) < 2:
            time.sleep(0.5)  # Ray is up and both runs are training
        assert len(list((tmp_path / "o").glob("*/*/metrics.jsonl"))) == 2, "the runs never started"
        kids = _descendants(proc.pid)
        proc.send_signal(signal.SIGTERM)
        err = proc.communicate(timeout=120)[1]
        assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err, err[-3000:]
        statuses = {json.loads(f.read_text())["status"] for f in (tmp_path / "o").glob("*/*/summary.json")}
        assert statuses == {"interrupted"}
        deadline = time.time() + 30
        while time.time() < deadline and any(_alive(k) for k in kids):
            time.sleep(0.5)
        assert not [k for k in kids if _alive(k)], "Ray processes left running after SIGTERM"
    finally:
        for k in kids | _descendants(proc.pid) | {proc.pid}:
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass


def test_two_sweeps_on_one_out_share_the_runs(tmp_path):
    """Two `sweep` processes started on one --out: each run is trained by one of them (the other leaves it to its
    writer, or skips it once finished), both exit 0, every run completes."""
    import subprocess
    import sys

    (tmp_path / "g.yaml").write_text(
        "base: {p: 11, task: add, model: {d_emb: 8, d_hidden: 32}, steps: 300, batch_size: 16,\n"
        "       eval: {every: 50, log_points: 0}, bar: false}\n"
        "grid: {optim.lr: [0.01, 0.003]}\nseeds: [0, 1]\n")
    cmd = [sys.executable, "-m", "groklab", "sweep", str(tmp_path / "g.yaml"), "--out", str(tmp_path / "o"), "--quiet",
           "--json"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [e for _, e in outs]
    assert all(json.loads(o)["runs"] == 4 for o, _ in outs)
    summaries = list((tmp_path / "o").glob("*/*/summary.json"))
    assert len(summaries) == 4 and all(json.loads(f.read_text())["status"] == "completed" for f in summaries)
    for f in summaries:  # each run written by one writer: its rows in order, none twice
        steps = [json.loads(line)["step"] for line in (f.parent / "metrics.jsonl").read_text().splitlines()]
        assert steps == sorted(set(steps)), f.parent
