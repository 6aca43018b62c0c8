"""Fault injection for every writer: a disk that fills (ENOSPC at the flush) or a rename that is refused
(EACCES) leaves the old file whole and no temp file of ours behind."""
import errno
import os
from pathlib import Path

import numpy as np
import pytest

from groklab.numberline.run import write_csv
from groklab.store import RunStore, atomic_write, write_json
from groklab.store.tree import write_claims, write_manifest

FAULTS = {"ENOSPC at fsync": ("fsync", errno.ENOSPC), "EACCES at rename": ("replace", errno.EACCES),
          "EACCES at open": ("open", errno.EACCES)}


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
    "checkpoint": ("ckpt.pt", lambda d: RunStore(d).save_checkpoint({"step": 3, "model": {}})),
    "config": ("config.yaml", lambda d: RunStore(d).write_config({"p": 7})),
    "manifest": ("experiment.json", lambda d: write_manifest(d, {"figure": "x"})),
    "claims": ("claims.json", lambda d: write_claims(d, {"claims": []})),
    "numberline table": ("probe.csv", lambda d: write_csv(d / "probe.csv", [{"layer": 0, "r2": 0.5}])),
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


@pytest.mark.parametrize("fault", FAULTS)
def test_a_summary_csv_that_cannot_be_written_keeps_the_old_one(tmp_path, monkeypatch, fault):
    from conftest import tiny_sweep
    from groklab.cli import main

    tiny_sweep(tmp_path, "seeds: 1\n")
    csv = tmp_path / "s" / "summary.csv"
    assert main(["summarize", str(tmp_path / "s")]) == 0
    old = csv.read_bytes()
    assert old.startswith(b"point,")
    csv.write_bytes(old + b"# a summary groklab wrote, kept whole\n")
    kept = csv.read_bytes()
    _fail(monkeypatch, *FAULTS[fault])
    assert main(["summarize", str(tmp_path / "s")]) == 2  # one line, exit 2
    monkeypatch.undo()
    assert csv.read_bytes() == kept
    assert not [p for p in tmp_path.rglob("*") if ".groklab-" in p.name]


def test_a_full_disk_mid_training_marks_the_run_failed_and_it_resumes_exactly(tmp_path, monkeypatch, capsys):
    """ENOSPC while a metric row is appended (half the line written): exit 1 with one line, the run marked
    failed; resumed once the disk has room, its rows equal an uninterrupted run's (the torn line dropped)."""
    import json

    from conftest import tiny
    from groklab.cli import main

    args = tiny(steps=60, **{"eval.every": 5})
    assert main(["train", *args, "--out", str(tmp_path / "full")]) == 0
    original, calls = RunStore.append, []

    def full_disk(self, row):
        calls.append(row["step"])
        if row["step"] == 45:
            self._metrics.write(json.dumps(row)[:20])  # the part that fit
            self._metrics.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path / "metrics.jsonl"))
        original(self, row)

    monkeypatch.setattr(RunStore, "append", full_disk)
    capsys.readouterr()
    assert main(["train", *args, "--out", str(tmp_path / "cut")]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "No space left" in err and "resumes with --resume" in err
    assert json.loads((tmp_path / "cut" / "summary.json").read_text())["status"] == "failed"
    monkeypatch.undo()
    assert main(["train", "--resume", str(tmp_path / "cut")]) == 0
    rows = lambda d: [{k: v for k, v in json.loads(x).items() if k != "time/wall_s"}  # noqa: E731
                      for x in (d / "metrics.jsonl").read_text().splitlines()]
    assert rows(tmp_path / "cut") == rows(tmp_path / "full") and 45 in calls


def test_a_refused_rename_while_replacing_an_archive_keeps_the_old_one(tmp_path, monkeypatch):
    """`archive --replace` moves the old archive aside, then the new one in: when the second rename is refused
    the old archive is back at its path, whole, and no folder of ours is left beside it."""
    import json

    from groklab.store import archive, archive_write

    tree = tmp_path / "tree"
    (tree / "s").mkdir(parents=True)
    (tree / "s" / "experiment.json").write_text('{"figure": "s"}')
    dest = tmp_path / "results" / "a"
    dest.mkdir(parents=True)
    (dest / archive.INDEX).write_text(json.dumps({"format": archive.FORMAT, "studies": {}}))
    before = {p.relative_to(dest): p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    assert archive.is_archive(dest)
    real, aside = os.replace, []

    def new_one_refused(src, dst):
        if Path(src) == dest:
            aside.append(dst)  # the old archive moved aside
        elif Path(dst) == dest and aside and Path(src) != Path(aside[0]):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES), str(src), str(dst))
        return real(src, dst)

    monkeypatch.setattr(os, "replace", new_one_refused)
    monkeypatch.setattr(archive_write, "_write_study", lambda study, out, weights: out.mkdir(parents=True) or {})
    with pytest.raises(OSError):
        archive_write.write_archive(tree, dest, {}, replace=True)
    monkeypatch.undo()
    assert {p.relative_to(dest): p.read_bytes() for p in dest.rglob("*") if p.is_file()} == before
    assert aside and sorted(p.name for p in dest.parent.iterdir()) == ["a"]
