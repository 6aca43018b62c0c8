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
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (0.0, 0.0, 0.0))  # an idle machine
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
    """A step too small to split runs on one thread; a large one on the cores the load average leaves free; a
    count the user fixed is kept whatever the load."""
    monkeypatch.setattr(threads, "usable_cpus", lambda: 4)
    for k in ("GROKLAB_THREADS", "GROKLAB_JOBS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(k, raising=False)
    load = [0.1]
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (load[0], 0.0, 0.0))
    big, small = 10 * threads.SMALL_STEP, threads.SMALL_STEP / 10
    assert threads.choose_threads(big) == 4 and threads.choose_threads(small) == 1
    load[0] = 2.2  # two of four cores busy elsewhere
    assert threads.choose_threads(big) == 2 and threads.free_cpus() == 2
    load[0] = 9.0
    assert threads.choose_threads(big) == 1
    with threads.thread_policy("3"):
        assert threads.choose_threads(big) == 3 and threads.choose_threads(small) == 3


def test_a_tiny_run_records_one_thread_and_its_bar_says_so(tmp_path, capsys):
    from groklab import make_config, train

    before = torch.get_num_threads()
    try:
        res = train(make_config(tiny(bar="true")), out=tmp_path / "r")
    finally:
        torch.set_num_threads(before)
    assert res.summary["threads"] == 1
    assert "(1 thr)" in capsys.readouterr().err
