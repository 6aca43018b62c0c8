"""engine/threads.py: threads per run from the usable CPUs and the jobs sharing them (GROKLAB_THREADS/JOBS as a
Python caller's fallback); a bad value is one line."""
import pytest
import torch

from conftest import tiny
from groklab.cli import main
from groklab.engine import threads


@pytest.mark.parametrize("env, expected", [
    ({}, "cpus"), ({"GROKLAB_JOBS": "2"}, "half"), ({"GROKLAB_THREADS": "3"}, 3),
    ({"GROKLAB_THREADS": "torch"}, None), ({"OMP_NUM_THREADS": "1"}, None)])
def test_threads_follow_usable_cpus_and_jobs(monkeypatch, env, expected):
    monkeypatch.setattr(threads, "busy_elsewhere", lambda: 0.0)  # an idle machine
    for k in ("GROKLAB_THREADS", "GROKLAB_JOBS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    n = threads.usable_cpus()
    want = {"cpus": n, "half": max(1, n // 2)}.get(expected, expected)
    assert threads.choose_threads() == want


def test_bad_threads_is_one_line(capsys, tmp_path):
    rc = main(["train", *tiny(), "--threads", "0", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err == "groklab: error: threads='0': must be an integer >= 1 or 'torch'"


def test_the_work_and_the_free_cores_choose_the_threads(monkeypatch):
    """With passive OpenMP waiting a step too small to split runs on one thread (spinning threads: on the free
    cores); a large one on the cores other processes leave free now; a count the user fixed is kept whatever the
    load."""
    monkeypatch.setattr(threads, "usable_cpus", lambda: 4)
    for k in ("GROKLAB_THREADS", "GROKLAB_JOBS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(k, raising=False)
    load = [0.1]
    monkeypatch.setattr(threads, "busy_elsewhere", lambda: load[0])
    big, small = 10 * threads.SMALL_STEP, threads.SMALL_STEP / 10
    monkeypatch.setenv("OMP_WAIT_POLICY", "passive")  # the CLI's: a sleeping thread is woken per region
    assert threads.choose_threads(big) == 4 and threads.choose_threads(small) == 1
    monkeypatch.delenv("OMP_WAIT_POLICY")  # OpenMP's default: threads spin, a small step gains from idle cores
    assert threads.choose_threads(small) == 4
    monkeypatch.setenv("OMP_WAIT_POLICY", "PASSIVE")
    load[0] = 2.2  # two of four cores busy elsewhere
    assert threads.choose_threads(big) == 2 and threads.free_cpus() == 2
    load[0] = 9.0
    assert threads.choose_threads(big) == 1
    with threads.thread_policy("3"):
        assert threads.choose_threads(big) == 3 and threads.choose_threads(small) == 3


def test_free_cores_are_read_now_not_from_the_last_minute():
    """A process that has just finished leaves its cores free at once (the 1-minute load average remembered it
    and runs started one after another took one thread on two idle cores); one still running is seen, and this
    process's own CPU time is not counted as another's."""
    import subprocess
    import sys
    import time

    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)
        while_busy = threads.busy_elsewhere(0.3)
    finally:
        spin.kill()
        spin.wait()
    after = threads.busy_elsewhere(0.3)
    assert while_busy - after > 0.5, (while_busy, after)
    import threading

    def spin_here():  # this process's own work during a reading (a thread of ours) is not another's
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 0.6:
            pass

    worker = threading.Thread(target=spin_here)
    worker.start()
    ours = threads.busy_elsewhere(0.3)
    worker.join()
    assert ours < after + 0.5, (ours, after)


def test_a_tiny_run_records_one_thread_and_its_bar_says_so(tmp_path, capsys):
    from groklab import make_config, train

    before = torch.get_num_threads()
    try:
        res = train(make_config(tiny(bar="true")), out=tmp_path / "r")
    finally:
        torch.set_num_threads(before)
    assert res.summary["threads"] == 1
    assert "(1 thr)" in capsys.readouterr().err
