"""An archive is someone else's data: its names never choose where groklab writes, links in groklab's trees are
refused, and replacing an archive never deletes a file groklab did not write (issue: Reliability IV, data loss)."""
import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from groklab import load_runs
from groklab.cli import main
from groklab.experiments import reproduce
from groklab.experiments.archive import archive

TINY = ("p=11", "model.d_emb=8", "model.d_hidden=32", "steps=60", "eval.every=10", "eval.log_points=0")
QUIET = {"echo": lambda *_: None}


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A tree and its archive of fig11 (measured arrays in arrays.npz) at a tiny size, 1 seed."""
    tree = tmp_path_factory.mktemp("tree")
    reproduce("embedding/fig11", tree, seeds=1, overrides=TINY, command="test fig11", **QUIET)
    return tree, Path(archive(tree, tmp_path_factory.mktemp("res") / "a", command="test")["path"])


@pytest.fixture
def arch(source, tmp_path):
    """A fresh copy of the archive for a test to forge."""
    return Path(shutil.copytree(source[1], tmp_path / "arch"))


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


def _victim(tmp_path) -> tuple[Path, dict]:
    victim = tmp_path / "victim"
    (victim / "arrays").mkdir(parents=True)
    files = {victim / "metrics.jsonl": "mine\n", victim / "summary.json": "{}\n", victim / "NOTES.md": "mine\n"}
    for f, text in files.items():
        f.write_text(text)
    return victim, {f: f.read_bytes() for f in victim.rglob("*") if f.is_file()}


def _untouched(victim: Path, before: dict) -> bool:
    return {f: f.read_bytes() for f in victim.rglob("*") if f.is_file()} == before


def test_an_array_key_never_chooses_a_folder(arch, tmp_path, capsys):
    victim, before = _victim(tmp_path)
    with np.load(arch / "fig11" / "arrays.npz") as z:
        members = {k: z[k] for k in z.files}
    run = next(iter(members)).split("|")[0]
    members[f"{run}|../../../../../{victim.name}/arrays|10|x"] = np.zeros(3)
    np.savez_compressed(arch / "fig11" / "arrays.npz", **members)
    assert main(["reproduce", "embedding/fig11", "--from", str(arch), "--out", str(tmp_path / "out")]) == 2
    assert "folder must be one of" in _one_line(capsys) and _untouched(victim, before)


@pytest.mark.parametrize("name", ["../../escape", "/abs/run", "a/./b", "a\x1b[2Jb", "x/" * 40])
def test_a_run_name_in_runs_jsonl_must_stay_below_its_tree(arch, tmp_path, capsys, name):
    f = arch / "fig11" / "runs.jsonl.gz"
    lines = [json.loads(x) for x in gzip.open(f, "rt")]
    lines[0]["run"] = name
    with gzip.open(f, "wt") as z:
        z.write("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["summarize", str(arch), "--csv", str(tmp_path / "s.csv")]) == 2
    assert "runs.jsonl.gz" in _one_line(capsys) and not (tmp_path / "s.csv").exists()
    with pytest.raises(Exception, match="run '|run "):
        load_runs(arch)


def test_a_run_archived_twice_is_refused_not_silently_replaced(arch, tmp_path, capsys):
    f = arch / "fig11" / "runs.jsonl.gz"
    lines = [json.loads(x) for x in gzip.open(f, "rt")]
    with gzip.open(f, "wt") as z:
        z.write("".join(json.dumps(x) + "\n" for x in lines + lines[:1]))
    assert main(["reproduce", "embedding/fig11", "--from", str(arch), "--out", str(tmp_path / "out")]) == 2
    assert "appears twice" in _one_line(capsys)


def test_a_study_name_in_the_manifest_must_stay_below_the_archive(arch, tmp_path, capsys):
    index = json.loads((arch / "manifest.json").read_text())
    index["studies"]["../fig11"] = index["studies"].pop("fig11")
    (arch / "manifest.json").write_text(json.dumps(index))
    assert main(["summarize", str(arch), "--csv", str(tmp_path / "s.csv")]) == 2
    assert "manifest.json" in _one_line(capsys) and not (tmp_path / "s.csv").exists()


def test_a_link_inside_the_out_tree_is_refused_not_written_through(arch, source, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["reproduce", "embedding/fig11", "--from", str(arch), "--out", str(out)]) == 0
    capsys.readouterr()
    run = next(p.parent for p in (out / "fig11").rglob("config.yaml"))
    victim, before = _victim(tmp_path)
    shutil.rmtree(run)
    run.symlink_to(victim, target_is_directory=True)
    assert main(["reproduce", "embedding/fig11", "--from", str(arch), "--out", str(out)]) == 2
    assert "symbolic link" in _one_line(capsys) and _untouched(victim, before)
    run.unlink()  # trained runs, too: a link at a run of a marked tree is refused before anything is written
    run.parent.rename(tmp_path / "moved")
    run.parent.symlink_to(victim, target_is_directory=True)
    assert main(["reproduce", "embedding/fig11", "--out", str(out), "p=11", "model.d_emb=8", "model.d_hidden=32",
                 "steps=60", "eval.every=10", "eval.log_points=0", "--seeds", "1"]) == 2
    assert "symbolic link" in _one_line(capsys) and _untouched(victim, before)


def test_measure_never_writes_through_a_posthoc_link(source, tmp_path, capsys):
    tree, _ = source
    run = Path(shutil.copytree(next(p.parent for p in (tree / "fig11").rglob("config.yaml")), tmp_path / "r"))
    victim, before = _victim(tmp_path)
    shutil.rmtree(run / "posthoc", ignore_errors=True)
    (run / "posthoc").symlink_to(victim, target_is_directory=True)
    assert main(["measure", str(run), "--what", "spectra"]) == 2
    assert "symbolic link" in _one_line(capsys) and _untouched(victim, before)


def test_an_archive_is_never_written_from_itself_or_into_its_tree(arch, source, capsys):
    tree, _ = source
    before = {f: f.read_bytes() for f in arch.rglob("*") if f.is_file()}
    for dest in (arch, tree, tree / "fig11" / "nested"):
        src = arch if dest == arch else tree
        assert main(["archive", str(src), str(dest), "--replace"]) == 2
        assert "archive to a folder of its own" in _one_line(capsys)
    assert {f: f.read_bytes() for f in arch.rglob("*") if f.is_file()} == before


def test_an_archive_is_never_rejudged_into_itself(arch, capsys):
    before = {f: f.read_bytes() for f in arch.rglob("*") if f.is_file()}
    for out in (arch / "fig11", arch, arch.parent):
        assert main(["reproduce", "embedding/fig11", "--from", str(arch), "--out", str(out)]) == 2
        assert "folder of its own" in _one_line(capsys)
    assert {f: f.read_bytes() for f in arch.rglob("*") if f.is_file()} == before


def test_replacing_an_archive_keeps_the_users_files(arch, source, tmp_path, capsys):
    tree, _ = source
    (arch / "NOTES.md").write_text("mine\n")
    assert main(["archive", str(tree), str(arch), "--replace"]) == 2
    assert "NOTES.md" in _one_line(capsys) and (arch / "NOTES.md").read_text() == "mine\n"
    (arch / "NOTES.md").unlink()
    assert main(["archive", str(tree), str(arch), "--replace"]) == 0  # only groklab's files: replaced
    capsys.readouterr()
    link = tmp_path / "a2"
    link.symlink_to(arch, target_is_directory=True)
    assert main(["archive", str(tree), str(link), "--replace"]) == 2
    assert "symbolic link" in _one_line(capsys) and link.is_symlink()
    assert not [f for f in tmp_path.iterdir() if f.name.endswith(".tmp")]
    deep = arch / ("d/" * 70)  # nested past the walk's bound (pathlib's rglob failed near 1,000): one line
    deep.mkdir(parents=True)
    assert main(["archive", str(tree), str(arch), "--replace"]) == 2
    assert "nested more than" in _one_line(capsys) and deep.is_dir()


def test_a_sweep_never_adopts_a_folder_by_its_look(tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "config.yaml").write_text("p: 11\n")
    (mine / "sweep.yaml").write_text("my notes\n")
    g = tmp_path / "g.yaml"
    g.write_text("base: {p: 11, task: add, steps: 5, model: {d_emb: 8, d_hidden: 16}, bar: false}\nseeds: 1\n")
    assert main(["sweep", str(g), "--out", str(mine), "--quiet"]) == 2
    assert "did not write" in _one_line(capsys) and (mine / "sweep.yaml").read_text() == "my notes\n"


def _forge_line(arch, **fields):
    f = arch / "fig11" / "runs.jsonl.gz"
    lines = [json.loads(x) for x in gzip.open(f, "rt")]
    for key, value in fields.items():
        lines[0][key] = value(lines[0][key]) if callable(value) else value
    with gzip.open(f, "wt") as z:
        z.write("".join(json.dumps(x) + "\n" for x in lines))


@pytest.mark.parametrize("forged, says", [
    ({"config": lambda c: {**c, "p": 10**9}}, "config p="),
    ({"config": None}, "config must be an object"),
    ({"error": {"not": "text"}}, "error"),
    ({"metrics": 5}, "metrics"),
    ({"metrics": lambda m: [{**m[0], "test/acc": 10**400}] + m[1:]}, "finite number"),
    ({"summary": lambda s: {**s, "t_test": "soon"}}, "t_test"),
])
def test_every_field_of_an_archived_run_is_checked_and_the_archive_named(arch, tmp_path, capsys, forged, says):
    _forge_line(arch, **forged)
    assert main(["reproduce", "embedding/fig11", "--from", str(arch), "--out", str(tmp_path / "out")]) == 2
    line = _one_line(capsys)
    assert "runs.jsonl.gz" in line and says in line and str(tmp_path / "out") not in line


def test_a_metric_null_at_every_step_is_a_float_column(arch):
    _forge_line(arch, metrics=lambda m: [{**r, "test/acc": None} for r in m])
    df = load_runs(arch)
    assert df["test/acc"].dtype.kind == "f"


def test_reads_are_bounded_before_anything_is_allocated(arch, tmp_path, capsys, monkeypatch):
    from groklab.store import archive as store_archive

    monkeypatch.setattr(store_archive, "MAX_MEMBER", 16)  # a member declaring more than the bound
    assert main(["reproduce", "embedding/fig11", "--from", str(arch), "--out", str(tmp_path / "a")]) == 2
    assert "arrays.npz: declares" in _one_line(capsys)
    monkeypatch.setattr(store_archive, "MAX_LINE", 100)  # a line longer than the bound, read no further
    assert main(["summarize", str(arch), "--csv", str(tmp_path / "s.csv")]) == 2
    assert "longer than a groklab archive's bound" in _one_line(capsys)


def test_a_fifo_in_place_of_a_file_is_refused_not_waited_on(arch, source, tmp_path, capsys):
    import os
    (arch / "fig11" / "runs.jsonl.gz").unlink()
    os.mkfifo(arch / "fig11" / "runs.jsonl.gz")
    assert main(["summarize", str(arch), "--csv", str(tmp_path / "s.csv")]) == 2
    assert "not a regular file" in _one_line(capsys)
    run = Path(shutil.copytree(next(p.parent for p in (source[0] / "fig11").rglob("config.yaml")), tmp_path / "r"))
    npz = sorted((run / "arrays").glob("step_*.npz"))[0]
    npz.unlink()
    os.mkfifo(npz)
    assert main(["check", str(run)]) in (1, 2)
    assert "not a regular file" in capsys.readouterr().out + capsys.readouterr().err


def test_check_escapes_names_and_bounds_depth(source, tmp_path, capsys):
    tree, _ = source
    run = next(p.parent for p in (tree / "fig11").rglob("config.yaml"))
    odd = tmp_path / "t" / "a\x1b[2Jb"
    shutil.copytree(run, odd)
    (odd / "arrays" / "step_final.npz").write_bytes(b"")  # a file groklab never names so: not a step
    assert main(["check", str(tmp_path / "t")]) == 0
    assert "\x1b" not in capsys.readouterr().out
    deep = tmp_path / "deep"
    path = deep
    for _ in range(70):
        path = path / "d"
    path.mkdir(parents=True)
    assert main(["check", str(deep)]) == 2 and "nested more than" in _one_line(capsys)


def test_a_killed_archive_writers_folder_is_removed_by_the_next_writer(source, tmp_path):
    tree, _ = source
    dest = tmp_path / "a"
    dead = tmp_path / ".a.groklab-999999999-0123abcd.tmp"  # no such pid
    (dead / "fig11").mkdir(parents=True)
    mine = tmp_path / ".a.groklab-notes.tmp"  # not groklab's name shape: left alone
    mine.mkdir()
    assert main(["archive", str(tree), str(dest)]) == 0
    assert not dead.exists() and mine.exists() and (dest / "manifest.json").is_file()


def test_only_matching_nothing_is_refused_with_train_missing(arch, tmp_path, capsys):
    assert main(["reproduce", "embedding/fig11", "--from", str(arch), "--train-missing", "--only", "nothing/*",
                 "--out", str(tmp_path / "o")]) == 2
    assert "matches none" in _one_line(capsys) and not (tmp_path / "o").exists()


def test_check_reads_an_archive_back_whole(arch, capsys):
    assert main(["check", str(arch)]) == 0 and "archived, 3 runs" in capsys.readouterr().out
    f = arch / "fig11" / "runs.jsonl.gz"
    f.write_bytes(f.read_bytes()[:200])  # truncated: the experiment files alone still look healthy
    assert main(["check", str(arch)]) == 1
    out = capsys.readouterr().out
    assert "BAD" in out and "runs.jsonl.gz" in out


@pytest.mark.parametrize("body, field", [("config: 5\n", "sweep.config"), ("seed_keys: [5]\n", "sweep.seed_keys"),
                                         ("grid: {5: [1, 2]}\n", "sweep.grid"), ("base: {5: 1}\n", "5=1")])
def test_a_sweep_file_of_the_wrong_types_is_one_line(tmp_path, capsys, body, field):
    g = tmp_path / "g.yaml"
    g.write_text(body)
    assert main(["sweep", str(g), "--out", str(tmp_path / "s")]) == 2
    assert field in _one_line(capsys) and not (tmp_path / "s").exists()
