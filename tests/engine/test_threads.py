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


def test_busy_cpus_are_named_once_when_threads_were_not_chosen(monkeypatch, capsys):
    from groklab.engine import threads

    monkeypatch.setattr(threads, "usable_cpus", lambda: 2)
    monkeypatch.setattr(threads, "_noted", [])
    monkeypatch.delenv("GROKLAB_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (0.2, 0.2, 0.2))
    before = torch.get_num_threads()
    try:
        threads.set_threads()
        assert "busy" not in capsys.readouterr().err  # an idle machine: nothing to say
        monkeypatch.setattr(threads.os, "getloadavg", lambda: (2.1, 2.0, 2.0))
        threads.set_threads()
        threads.set_threads()
        assert capsys.readouterr().err.count("the CPUs are busy (load 2.1 on 2 cores)") == 1  # once per process
        monkeypatch.setattr(threads, "_noted", [])
        with threads.thread_policy("2"):  # the user chose the threads: their call
            threads.set_threads()
        assert "busy" not in capsys.readouterr().err
    finally:
        torch.set_num_threads(before)
