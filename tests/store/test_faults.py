"""Fault injection for every writer: a disk that fills (ENOSPC at the flush) or a rename that is refused
(EACCES) leaves the old file whole and no temp file of ours behind."""
import errno
import os

import numpy as np
import pytest

from groklab.store import RunStore, atomic_write, write_json

FAULTS = {"ENOSPC at fsync": ("fsync", errno.ENOSPC), "EACCES at rename": ("replace", errno.EACCES)}


def _fail(monkeypatch, where: str, code: int):
    def boom(*a, **k):
        raise OSError(code, os.strerror(code))
    monkeypatch.setattr(os, where, boom)


def _figure(path):
    import matplotlib.pyplot as plt

    from groklab.plots.style import save

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    save(fig, path.with_suffix(""), pdf=False)


WRITERS = {  # name -> (file it replaces, the write)
    "atomic_write": ("f.txt", lambda d: atomic_write(d / "f.txt", "new")),
    "write_json": ("f.json", lambda d: write_json(d / "f.json", {"new": 1})),
    "summary": ("summary.json", lambda d: RunStore(d).write_summary({"status": "completed"})),
    "arrays": ("arrays/step_000000010.npz", lambda d: RunStore(d).save_arrays(10, {"x": np.ones(3)})),
    "figure": ("fig.png", lambda d: _figure(d / "fig.png")),
}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("writer", WRITERS)
def test_a_failed_write_leaves_the_old_file_whole(tmp_path, monkeypatch, writer, fault):
    name, write = WRITERS[writer]
    target = tmp_path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"old")
    _fail(monkeypatch, *FAULTS[fault])
    with pytest.raises(OSError) as err:
        write(tmp_path)
    assert err.value.errno == FAULTS[fault][1]
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert not [p for p in tmp_path.rglob("*") if ".groklab-" in p.name]  # no temp file of ours left


def test_a_report_that_cannot_be_written_keeps_the_old_one(tmp_path, monkeypatch):
    from conftest import tiny_sweep
    from groklab.cli import main

    tiny_sweep(tmp_path, "seeds: 1\n")
    assert main(["report", str(tmp_path / "s")]) == 0
    page = (tmp_path / "s" / "report.html").read_bytes()
    _fail(monkeypatch, "fsync", errno.ENOSPC)
    assert main(["report", str(tmp_path / "s")]) == 2  # one line, exit 2 (nothing of the user's changed)
    monkeypatch.undo()
    assert (tmp_path / "s" / "report.html").read_bytes() == page
