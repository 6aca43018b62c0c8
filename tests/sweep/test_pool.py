"""The process executor when a worker dies: the pool is rebuilt, the unit that killed its worker is reported
with that reason, every other unit finishes (resuming exactly), and the run files match an undisturbed sweep."""
import os
import signal
from pathlib import Path

from conftest import metric_rows
from groklab.store import read_metrics, read_summary
from groklab.sweep import expand, load_sweep, plan
from groklab.sweep.executors import DIED, pool_unit, run_units


def dies_on_s1(unit, packing, given):
    """What a pool worker runs: the unit of seed 1 kills its own process every time (as the OOM killer would)."""
    if any(name.endswith("seed=1") for name, _, _ in unit):
        os.kill(os.getpid(), signal.SIGKILL)
    return pool_unit(unit, packing, given)


FLAG = "died-once"


def dies_once(unit, packing, given):
    """The first unit to start kills its worker once (a flag file says it happened),
    taking down the other unit in flight; run again, both finish."""
    flag = Path(unit[0][2]).parents[2] / FLAG  # the test's tmp_path: beside the sweep, not in it
    if not flag.exists():
        flag.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return pool_unit(unit, packing, given)


def _units(tmp_path, out):
    f = tmp_path / "sweep.yaml"
    f.write_text("base: {p: 11, task: add, model: {d_emb: 8, d_hidden: 32}, steps: 30, batch_size: 16,\n"
                 "       eval: {every: 10, log_points: 0}, checkpoint_every: 10}\ngrid: {optim: [adam]}\nseeds: 3\n")
    runs = expand(load_sweep(f), tmp_path / out)
    units, done, _ = plan(runs, "sequential")
    assert len(units) == 3 and not done
    return runs, units


def test_a_unit_that_kills_its_worker_fails_alone_and_the_others_finish(tmp_path):
    runs, units = _units(tmp_path, "k")
    got = dict(run_units(units, "sequential", "process", workers=2, work=dies_on_s1, echo=lambda *a: None))
    killer = [r.name for r in runs if r.name.endswith("seed=1")]
    assert len(killer) == 1 and len(got) == 3
    assert got[killer[0]] == f"failed: {DIED}"
    assert all(status == "completed" for name, status in got.items() if name != killer[0]), got
    for r in runs:
        if r.name != killer[0]:
            assert read_summary(r.out)["status"] == "completed" and len(read_metrics(r.out)) == 4


def test_a_worker_killed_once_costs_nothing(tmp_path):
    ref, units = _units(tmp_path, "ref")
    assert dict(run_units(units, "sequential", "inprocess")) == {r.name: "completed" for r in ref}
    runs, units = _units(tmp_path, "cut")
    got = dict(run_units(units, "sequential", "process", workers=2, work=dies_once, echo=lambda *a: None))
    assert got == {r.name: "completed" for r in runs} and (tmp_path / FLAG).exists()
    for a, b in zip(ref, runs):
        assert metric_rows(a.out) == metric_rows(b.out)
