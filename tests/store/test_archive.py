"""The results archive: written whole or not at all, read like a run tree, re-judged to the same verdicts."""
import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from groklab import load_runs
from groklab.cli import main
from groklab.errors import ConfigError
from groklab.experiments import reproduce
from groklab.experiments.archive import archive, trained
from groklab.report import write_report
from groklab.store.archive import archived_runs, is_archive, read_index

TINY = ("p=11", "model.d_emb=8", "model.d_hidden=32", "steps=60", "eval.every=10", "eval.log_points=0")
QUIET = {"echo": lambda *_: None}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """fig6 (metrics only) and fig11 (measured arrays) at a tiny size, 1 seed."""
    out = tmp_path_factory.mktemp("tree")
    reproduce("embedding/fig6", out, seeds=1, overrides=TINY, command="test fig6", **QUIET)
    reproduce("embedding/fig11", out, seeds=1, overrides=TINY, command="test fig11", **QUIET)
    return out


@pytest.fixture(scope="module")
def arch(tree, tmp_path_factory):
    return Path(archive(tree, tmp_path_factory.mktemp("res") / "embedding-quick", command="test archive")["path"])


def _claims(path):
    return [(c["id"], c["holds"], json.dumps(c["aggregate"], sort_keys=True), json.dumps(c["per_seed"], sort_keys=True))
            for c in json.loads(path.read_text())["claims"]]


def test_the_manifest_records_build_machine_and_commands(arch):
    index = read_index(arch)
    assert is_archive(arch) and set(index["studies"]) == {"fig6", "fig11"}
    cmds = {s["command"] for s in index["sessions"]}
    assert cmds == {"test fig6", "test fig11"}
    for s in index["sessions"]:
        m = s["machine"]
        assert m["torch"] and m["cores"] >= 1 and m["fp32_gflops"]["all_threads"] > 0 and s["wall_s"] > 0
    assert index["studies"]["fig6"]["runs"] == 12 and index["studies"]["fig6"]["analysed"] == "claims"


def test_no_checkpoints_and_figures_kept(arch, tree):
    files = {f.relative_to(arch).as_posix() for f in Path(arch).rglob("*") if f.is_file()}
    assert not any(f.endswith(".pt") for f in files)
    assert {"fig6/claims.json", "fig6/experiment.json", "fig6/runs.jsonl.gz", "fig11/arrays.npz"} <= files
    assert any(f.startswith("fig6/") and f.endswith(".png") for f in files)


def test_load_runs_reads_an_archive_like_the_run_tree(arch, tree):
    """An archive keeps metric floats at 7 significant digits: read as a judge reads (archived=True) the run tree
    and its archive give the same frame, and that reading changes nothing of an archive's (the rounding is
    idempotent); the full-precision tree differs from it by float32's precision at most."""
    key = ["run", "step"]
    a, t, full, a2 = (load_runs(p, archived=r).sort_values(key).reset_index(drop=True)
                      for p, r in ((arch, False), (tree, True), (tree, False), (arch, True)))
    assert a.shape == t.shape and list(a["run"]) == list(t["run"])
    for col in ("train/acc", "test/acc", "test/loss", "optim.c", "task.name"):
        assert a[col].equals(t[col]) and a2[col].equals(a[col]), col
    loss = full["test/loss"].to_numpy()
    assert not np.array_equal(loss, a["test/loss"].to_numpy())  # the archive did round
    np.testing.assert_allclose(a["test/loss"].to_numpy(), loss, rtol=5e-7, atol=0)


@pytest.mark.parametrize("fig", ["fig6", "fig11"])
def test_rejudging_from_the_archive_gives_the_archived_verdicts(arch, tmp_path, fig):
    docs = reproduce(f"embedding/{fig}", tmp_path / "rj", source=arch, **QUIET)
    assert docs[0]["seeds"] == 1  # the archive's seeds and overrides, not the defaults
    assert _claims(tmp_path / "rj" / fig / "claims.json") == _claims(arch / fig / "claims.json")
    assert not list((tmp_path / "rj").rglob("ckpt.pt"))  # nothing was trained


def test_rejudging_refuses_what_the_archive_cannot_answer(arch, tmp_path):
    with pytest.raises(ConfigError, match="at profile 'quick', not 'paper'"):
        reproduce("embedding/fig6", tmp_path / "a", profile="paper", source=arch, **QUIET)
    with pytest.raises(ConfigError, match="lacks 12 of the 24 runs"):
        reproduce("embedding/fig6", tmp_path / "b", seeds=2, source=arch, **QUIET)
    with pytest.raises(ConfigError, match="holds no study 'fig7'"):
        reproduce("embedding/fig7", tmp_path / "c", source=arch, **QUIET)
    assert not any((tmp_path / d).exists() for d in "abc")


def test_rejudging_never_writes_over_trained_runs(tree, arch):
    files = {f: f.read_bytes() for f in (tree / "fig6").rglob("*") if f.is_file()}
    with pytest.raises(ConfigError, match="holds 12 trained runs of fig6"):
        reproduce("embedding/fig6", tree, source=arch, **QUIET)
    assert files and all(f.read_bytes() == b for f, b in files.items())


def test_an_archive_is_written_whole_or_not_at_all(tree, tmp_path, monkeypatch):
    dest = tmp_path / "a"

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", full)
    with pytest.raises(OSError):
        archive(tree, dest)
    assert list(tmp_path.iterdir()) == []  # no archive, no temp folder


def test_replace_only_with_replace_and_only_an_archive(tree, arch, tmp_path, capsys):
    assert main(["archive", str(tree), str(arch)]) == 2
    assert "--replace" in capsys.readouterr().err
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    assert main(["archive", str(tree), str(mine), "--replace"]) == 2
    assert (mine / "notes.txt").read_text() == "mine"
    again = tmp_path / "again"
    archive(tree, again)
    before = (again / "fig6" / "runs.jsonl.gz").read_bytes()
    assert main(["archive", str(tree), str(again), "--replace"]) == 0
    assert (again / "fig6" / "runs.jsonl.gz").read_bytes() == before  # gzip with mtime 0: same runs, same bytes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again", "mine"]


def test_report_and_markdown_on_an_archive(arch, capsys):
    page = write_report(arch).read_text()
    assert "fig6" in page and "<img" in page and ("completed" in page or "early_stop" in page)
    assert main(["report", str(arch), "--markdown"]) == 0
    assert capsys.readouterr().out.count("| fig6 |") == 10


def test_a_run_line_is_the_whole_run(arch):
    runs = list(archived_runs(arch / "fig6"))
    assert len(runs) == 12 and all({"config", "summary", "metrics"} <= set(r) for r in runs)
    with gzip.open(arch / "fig6" / "runs.jsonl.gz", "rt") as f:
        assert len(f.read().splitlines()) == 12


def test_summarize_and_check_read_an_archive(arch, tree, tmp_path, capsys):
    from groklab.sweep import summarize

    a, t = (df.sort_values("point").reset_index(drop=True) for df in (summarize(arch), summarize(tree)))
    assert a["n"].sum() == t["n"].sum() == 15 and a.equals(t)  # fig6 12 runs, fig11 3
    assert main(["check", str(arch)]) == 0


def test_all_from_an_archive_rejudges_the_studies_it_holds(arch, tmp_path):
    docs = reproduce("embedding/all", tmp_path / "rj", source=arch, **QUIET)
    assert sorted(d["figure"] for d in docs) == ["fig11", "fig6"]


def test_a_reproduction_archived_part_way_is_continued_from_its_archive(tmp_path):
    """Session 1 trains part of fig6 (--only) and archives it; session 2 (its run tree gone) continues from the
    archive with --train-missing: the archived runs are laid out, only the rest is trained, then it is judged.
    Re-judging `<paper>/all` from the part-way archive leaves the unfinished study out instead of failing."""
    first = tmp_path / "s1"
    reproduce("embedding/fig6", first, seeds=1, overrides=TINY, only="add/*", command="part", **QUIET)
    part = Path(archive(first, tmp_path / "res", command="test")["path"])
    assert read_index(part)["studies"]["fig6"]["analysed"] == "partial"
    with pytest.raises(ConfigError, match="lacks 9 of the 12 runs"):
        reproduce("embedding/fig6", tmp_path / "x", source=part, **QUIET)
    assert reproduce("embedding/all", tmp_path / "y", source=part, **QUIET) == []
    with pytest.raises(ConfigError, match="train-missing=True: needs --from"):
        reproduce("embedding/fig6", tmp_path / "z", overrides=TINY, train_missing=True, **QUIET)

    second = tmp_path / "s2"
    doc = reproduce("embedding/fig6", second, source=part, train_missing=True, only="sub/*", **QUIET)[0]
    assert doc["of"] == 12 and len(doc["trained"]) == 6  # 3 archived + 3 trained: still partial
    doc = reproduce("embedding/fig6", second, source=part, train_missing=True, **QUIET)[0]
    assert "of" not in doc and len(doc["health"]) == 12 and all(s == "completed" or s == "early_stop"
                                                                 for s in doc["health"].values())
    laid_out = {p.parent.relative_to(second / "fig6").as_posix() for p in (second / "fig6").rglob(".from-archive")}
    assert laid_out == {"add/adam/s0", "add/adam_lr/s0", "add/adam_lr_adaptive/s0"}
    assert len(list((second / "fig6").rglob("ckpt.pt"))) == 9  # only the missing runs were trained
    assert (second / "fig6" / "claims.json").is_file()
    whole = Path(archive(second, tmp_path / "res2", command="test")["path"])
    index = read_index(whole)
    assert index["studies"]["fig6"]["analysed"] == "claims"
    # the sessions that trained count, --train-missing ones included; a later re-judging keeps them all
    ran = [s for s in index["sessions"] if trained(s)]
    assert [bool(s.get("train_missing")) for s in ran] == [False, True, True]
    assert index["wall_s"] == round(sum(s["wall_s"] for s in ran), 1)
    reproduce("embedding/fig6", tmp_path / "s3", source=whole, command="again", **QUIET)
    again = read_index(Path(archive(tmp_path / "s3", tmp_path / "res3", command="test")["path"]))
    assert [s for s in again["sessions"] if trained(s)] == ran and again["wall_s"] == index["wall_s"]


def test_a_run_archived_part_way_counts_as_lacking_and_is_trained_again(tmp_path):
    """A tree archived while a run was interrupted (a GPU call that ran out of time): the run's rows stay readable,
    but a re-judge refuses to take its cut-short curve as a result and --train-missing trains it again."""
    first = tmp_path / "s1"
    reproduce("embedding/fig11", first, seeds=1, overrides=TINY, command="t", **QUIET)
    cut = next((first / "fig11").rglob("summary.json"))
    summary = json.loads(cut.read_text())
    cut.write_text(json.dumps({**summary, "status": "interrupted", "steps": 30}))
    name = cut.parent.relative_to(first / "fig11").as_posix()
    arch = Path(archive(first, tmp_path / "res", command="test")["path"])
    assert name in set(load_runs(arch)["run"].str.split("/", n=1).str[1])  # its rows are kept
    with pytest.raises(ConfigError, match=f"lacks 1 of the .* runs .*e.g. {name}"):
        reproduce("embedding/fig11", tmp_path / "x", source=arch, **QUIET)
    doc = reproduce("embedding/fig11", tmp_path / "s2", source=arch, train_missing=True, **QUIET)[0]
    assert json.loads((tmp_path / "s2" / "fig11" / name / "summary.json").read_text())["status"] in (
        "completed", "early_stop") and not (tmp_path / "s2" / "fig11" / name / ".from-archive").exists()
    assert "of" not in doc  # judged whole


def test_rejudging_names_archived_runs_the_study_would_no_longer_make(arch, tmp_path):
    """A study whose run definitions changed since its archive was trained is re-judged on the archived runs, and
    says which of them today's code would make differently (claims.json 'stale'); today's archive has none."""
    doc = reproduce("embedding/fig6", tmp_path / "a", source=arch, **QUIET)[0]
    assert "stale" not in doc
    said = []
    doc = reproduce("embedding/fig6", tmp_path / "b", source=arch, overrides=(*TINY, "eval.every=20"),
                    echo=said.append)[0]
    assert len(doc["stale"]) == 12 and doc["stale"]["add/adam/s0"] == "eval.every: 10 -> 20"
    assert any("12 archived runs were trained with configs this study no longer makes" in s for s in said)


def test_a_field_added_after_the_archive_is_no_difference(arch, tmp_path):
    """An archive written before a setting existed (its configs lack the key) is not stale when the setting's
    default keeps the old behaviour: archived configs are read through today's schema before comparing."""
    import shutil

    copy = tmp_path / "old"
    shutil.copytree(arch, copy)
    f = copy / "fig6" / "runs.jsonl.gz"
    docs = [json.loads(x) for x in gzip.open(f, "rt")]
    for d in docs:
        d["config"]["stop"].pop("plateau_tol")  # as archived before stop.plateau existed
        d["config"]["stop"].pop("plateau")
    with gzip.open(f, "wt") as z:
        z.writelines(json.dumps(d) + "\n" for d in docs)
    doc = reproduce("embedding/fig6", tmp_path / "a", source=copy, **QUIET)[0]
    assert "stale" not in doc


def test_a_key_renamed_after_the_archive_is_read_under_its_new_name(arch, tmp_path):
    """An archive and a run folder written when the bar flag was `progress` read as `bar` (config.parse.RENAMED):
    not stale, the same verdicts."""
    import shutil

    import yaml

    from groklab.config import make_config
    from groklab.store.run import RunStore

    copy = tmp_path / "old"
    shutil.copytree(arch, copy)
    f = copy / "fig6" / "runs.jsonl.gz"
    docs = [json.loads(x) for x in gzip.open(f, "rt")]
    for d in docs:
        d["config"] = {("progress" if k == "bar" else k): v for k, v in d["config"].items()}
    with gzip.open(f, "wt") as z:
        z.writelines(json.dumps(d) + "\n" for d in docs)
    assert all("bar" in d["config"] and "progress" not in d["config"] for d in archived_runs(copy / "fig6"))
    doc = reproduce("embedding/fig6", tmp_path / "a", source=copy, **QUIET)[0]
    assert "stale" not in doc
    reproduce("embedding/fig6", tmp_path / "b", source=arch, **QUIET)
    assert _claims(tmp_path / "a" / "fig6" / "claims.json") == _claims(tmp_path / "b" / "fig6" / "claims.json")
    run = tmp_path / "a" / "fig6" / "add" / "adam" / "s0"
    cfg = yaml.safe_load((run / "config.yaml").read_text())
    (run / "config.yaml").write_text(yaml.safe_dump({("progress" if k == "bar" else k): v for k, v in cfg.items()}))
    assert RunStore(run).config()["bar"] is False and "progress" not in RunStore(run).config()
    assert make_config(["progress=false"]).bar is False  # a user's old name: accepted for a release, with a notice


def test_measured_series_are_packed_one_member_each_and_read_back_whole(tmp_path, arch):
    """arrays.npz stacks each run's series into one member beside its steps; an archive written before packing
    (one member per measured step) lays its runs out with the same arrays."""
    import shutil

    from groklab.store import RunStore
    from groklab.store.archive import unpack

    with np.load(arch / "fig11" / "arrays.npz") as z:
        members = {k: z[k] for k in z.files}
    stacked = [k for k in members if k.split("|")[2] == "stacked"]
    assert stacked and all(k.replace("|stacked|", "|steps|") in members for k in stacked)
    assert not any(k.split("|")[2].isdigit() and k.split("|")[3].startswith("fourier") for k in members)
    per_step = {}  # the layout before packing
    for k, v in members.items():
        run, folder, step, name = k.rsplit("|", 3)
        if step == "stacked":
            per_step.update({f"{run}|{folder}|{t}|{name}": a
                             for t, a in zip(members[f"{run}|{folder}|steps|{name}"].tolist(), v)})
        elif step != "steps":
            per_step[k] = v
    old = tmp_path / "old"
    shutil.copytree(arch, old)
    np.savez_compressed(old / "fig11" / "arrays.npz", **per_step)
    names = [r["run"] for r in archived_runs(arch / "fig11") if not r.get("missing")]
    unpack(arch / "fig11", names, tmp_path / "new")
    unpack(old / "fig11", names, tmp_path / "was")
    for name in names:
        a, b = RunStore(tmp_path / "new" / name).arrays(), RunStore(tmp_path / "was" / name).arrays()
        assert sorted(a) == sorted(b) and len(a) > 1
        assert all(np.array_equal(a[t][k], b[t][k]) for t in a for k in a[t])
