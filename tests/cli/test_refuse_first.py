"""Principle 1 of the reliability issue, per command: a call refused because its output is a link -- at the top of
the tree or deeper -- exits 2 and leaves the whole tree byte-identical, the user's folder behind the link too."""
import hashlib
import os
from pathlib import Path

import pytest

from groklab.cli import main

ROOT = Path(__file__).resolve().parents[2]
TINY = ["p=7", "steps=4", "batch_size=8", "eval.every=2", "eval.log_points=0", "bar=false", "model.d_emb=8",
        "model.d_hidden=16"]
STUDY = ROOT / "results" / "embedding-quick"
WRITERS = {
    "train": lambda o: ["train", *TINY, "--out", str(o)],
    "demo": lambda o: ["demo", "--out", str(o), "--p", "7", "--steps", "4", "--seeds", "1", "--jobs", "1"],
    "sweep": lambda o: ["sweep", "-m", "optim.lr=0.01,0.02", "--set", "p=7", "--set", "steps=4", "--out", str(o)],
    "reproduce": lambda o: ["reproduce", "embedding/fig2", "--seeds", "1", "--out", str(o), "steps=4", "p=7"],
    "grokbench": lambda o: ["grokbench", "--out", str(o), "--jobs", "1"],
    "archive": lambda o: ["archive", str(STUDY), str(o)],
    "report": lambda o: ["report", str(STUDY / "fig2"), "--out", str(o)],
}


def snapshot(root: Path) -> dict[str, str]:
    """Every entry below `root`, links not followed: a file's sha256, a link's target, 'dir'."""
    out = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            p = Path(folder) / name
            out[p.relative_to(root).as_posix()] = ("link " + os.readlink(p) if p.is_symlink() else
                                                   hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir")
    return out


@pytest.mark.parametrize("depth", [0, 2])
@pytest.mark.parametrize("command", sorted(WRITERS))
def test_an_output_that_is_a_link_is_refused_before_anything_is_written(command, depth, tmp_path, capsys):
    mine = tmp_path / "mine"
    (mine / "deep").mkdir(parents=True)
    (mine / "thesis.tex").write_text("my words")
    (mine / "deep" / "data.csv").write_text("1,2\n")
    base = tmp_path.joinpath(*[f"d{i}" for i in range(depth)])
    base.mkdir(parents=True, exist_ok=True)
    out = base / "out"
    out.symlink_to(mine, target_is_directory=True)
    before = snapshot(tmp_path)
    rc = main(WRITERS[command](out))
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err and err[-1].startswith("groklab: error:") and "link" in err[-1], (rc, err[-3:])
    assert snapshot(tmp_path) == before  # nothing created, replaced or removed, behind the link or beside it
