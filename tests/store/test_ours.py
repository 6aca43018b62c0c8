"""groklab touches only what is its own: no write through a link, no user file deleted, no foreign --out."""
import json
import os

import pytest

from conftest import tiny
from groklab import make_config, train
from groklab.cli import main
from groklab.errors import ConfigError, StoreError
from groklab.experiments import reproduce
from groklab.report import write_report
from groklab.store import check_out, make_out
from groklab.store.files import atomic_write, is_tmp, tmp_name

TINY = ("p=11", "model.d_emb=8", "model.d_hidden=32", "steps=30", "eval.every=10", "eval.log_points=0")


@pytest.fixture
def run(tmp_path):
    out = tmp_path / "r"
    train(make_config(tiny(steps=20)), out=out)
    return out


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    return err[0]


def test_a_lock_that_is_a_link_is_refused_and_its_target_untouched(run, tmp_path, capsys):
    target = tmp_path / "precious.txt"
    target.write_text("mine")
    (run / ".lock").unlink()
    (run / ".lock").symlink_to(target)
    assert main(["train", "--resume", str(run), "steps=30"]) == 2
    assert "symbolic link" in _one_line(capsys)
    assert target.read_text() == "mine"


def test_metrics_that_are_a_link_are_never_appended_through(run, tmp_path, capsys):
    target = tmp_path / "elsewhere.jsonl"
    target.write_bytes((run / "metrics.jsonl").read_bytes())
    before = target.read_bytes()
    (run / "metrics.jsonl").unlink()
    (run / "metrics.jsonl").symlink_to(target)
    assert main(["train", "--resume", str(run), "steps=40"]) != 0
    assert "symbolic link" in capsys.readouterr().err
    assert target.read_bytes() == before


def test_resume_removes_only_groklabs_own_stale_temp_files(run):
    users = [run / ".notes.tmp", run / ".ckpt.pt.999999.tmp", run / "arrays.tmp"]
    for f in users:
        f.write_text("the user's")
    ours = tmp_name(run / "ckpt.pt")
    ours.write_bytes(b"half a checkpoint")
    assert is_tmp(ours) and not any(is_tmp(f) for f in users)
    train(resume=run, steps=30)
    assert not ours.exists()
    assert all(f.read_text() == "the user's" for f in users)


def test_a_users_file_shaped_like_groklabs_temp_files_is_never_removed(tmp_path):
    """Reliability V: a name is not ownership. A file shaped exactly like groklab's temp files that was in the
    folder before the run began stays -- through the run's start, a refused start and a resume."""
    import time

    from groklab.store import RunStore

    out = tmp_path / "o"
    out.mkdir()
    mine = out / ".notes.groklab-1-abcdef12.tmp"
    mine.write_text("the user's")
    old = time.time() - 3600
    os.utime(mine, (old, old))  # made before the run
    assert is_tmp(mine)
    train(make_config(tiny(steps=20)), out=out)
    train(resume=out, steps=30)
    assert mine.read_text() == "the user's"
    late = tmp_name(out / "ckpt.pt")  # a writer of this run that died: groklab's, and removed on the next open
    late.write_bytes(b"half")
    RunStore.open(out, write=True).close()
    assert not late.exists() and mine.exists()


def test_a_temp_name_is_never_reused_and_never_written_through_a_link(tmp_path):
    names = {tmp_name(tmp_path / "x.json").name for _ in range(50)}
    assert len(names) == 50
    target = tmp_path / "target.txt"
    target.write_text("mine")
    link = tmp_path / "report.html"
    link.symlink_to(target)
    atomic_write(link, "new")  # the link itself is replaced; what it pointed at is not written
    assert target.read_text() == "mine" and link.read_text() == "new" and not link.is_symlink()


@pytest.mark.parametrize("name", [".notes.tmp", "notes.txt"])
def test_train_refuses_an_out_folder_holding_a_users_file(tmp_path, capsys, name):
    out = tmp_path / "o"
    out.mkdir()
    (out / name).write_text("mine")
    assert main(["train", *tiny(), "--out", str(out)]) == 2
    assert "not an empty directory" in _one_line(capsys)
    assert [f.name for f in out.iterdir()] == [name] and (out / name).read_text() == "mine"


def test_reproduce_writes_only_into_a_folder_of_its_own(tmp_path, capsys):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("mine")
    with pytest.raises(ConfigError, match="holds files groklab did not write .thesis.tex."):
        reproduce("embedding/fig6", foreign, seeds=1, echo=lambda *_: None, overrides=TINY)
    assert [f.name for f in foreign.iterdir()] == ["thesis.tex"]
    out = tmp_path / "ours"
    reproduce("embedding/fig6", out, seeds=1, echo=lambda *_: None, overrides=TINY)
    assert (out / ".groklab").is_file()
    reproduce("embedding/fig6", out, seeds=1, echo=lambda *_: None, overrides=TINY)  # its own: re-run works
    with pytest.raises(ConfigError, match="is a file"):
        check_out(out / "fig6" / "claims.json")


def test_an_empty_folder_is_adopted_and_a_folder_is_ours_by_its_mark_never_by_its_look(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert (make_out(empty) / ".groklab").is_file()
    for look in ("fig6/experiment.json", "config.yaml", "sweep.yaml"):  # what groklab's trees hold: no mark
        old = tmp_path / look.replace("/", "_")
        (old / look).parent.mkdir(parents=True, exist_ok=True)
        (old / look).write_text("{}")
        (old / "NOTES.md").write_text("mine")
        with pytest.raises(ConfigError, match="did not write"):
            check_out(old)
        (old / ".groklab").write_text("written by groklab\n")  # the mark adopts it
        assert check_out(old) == old
    link = tmp_path / "link"
    link.symlink_to(empty)
    with pytest.raises(ConfigError, match="symbolic link"):
        check_out(link)


def test_report_embeds_only_files_inside_the_experiment(tmp_path):
    out = tmp_path / "rep"
    reproduce("embedding/fig6", out, seeds=1, echo=lambda *_: None, overrides=TINY)
    fig = out / "fig6"
    secret = tmp_path / "secret.png"
    secret.write_bytes((fig / json.loads((fig / "claims.json").read_text())["figures"][0]).read_bytes())
    (fig / "link.png").symlink_to(secret)
    doc = json.loads((fig / "claims.json").read_text())
    doc["figures"] = [str(secret), "../../secret.png", "link.png"]
    (fig / "claims.json").write_text(json.dumps(doc))
    page = write_report(out).read_text()
    assert "<img" not in page


def test_report_never_overwrites_a_file_it_did_not_write(tmp_path, capsys):
    out = tmp_path / "rep"
    reproduce("embedding/fig6", out, seeds=1, echo=lambda *_: None, overrides=TINY)
    notes = tmp_path / "notes.html"
    notes.write_text("<p>my notes</p>")
    assert main(["report", str(out), "--out", str(notes)]) == 2
    assert "not a groklab report" in _one_line(capsys)
    assert notes.read_text() == "<p>my notes</p>"
    mine = tmp_path / "r.html"
    assert main(["report", str(out), "--out", str(mine)]) == 0
    first = mine.read_text()
    assert main(["report", str(out), "--out", str(mine)]) == 0  # its own page is replaced
    assert mine.read_text().startswith(first[:60])


def test_a_manifest_naming_a_run_outside_its_experiment_is_refused(tmp_path):
    out = tmp_path / "rep"
    reproduce("embedding/fig6", out, seeds=1, echo=lambda *_: None, overrides=TINY)
    man = json.loads((out / "fig6" / "experiment.json").read_text())
    man["runs"]["../../etc"] = []
    (out / "fig6" / "experiment.json").write_text(json.dumps(man))
    with pytest.raises(StoreError, match="must stay below its tree"):
        write_report(out)


def test_lock_files_are_opened_without_following_links():
    assert os.O_NOFOLLOW  # POSIX: the flag the lock and the append path rely on


def test_a_report_that_cannot_be_written_leaves_the_old_one_whole(tmp_path, monkeypatch, capsys):
    out = tmp_path / "rep"
    reproduce("embedding/fig6", out, seeds=1, echo=lambda *_: None, overrides=TINY)
    page = write_report(out)
    before = page.read_bytes()

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("groklab.store.files.os.fsync", full)
    assert main(["report", str(out)]) == 2
    assert "No space left" in _one_line(capsys)
    assert page.read_bytes() == before and not [f for f in out.iterdir() if f.name.endswith(".tmp")]


def test_a_sweep_report_never_embeds_a_linked_sweep_file_or_error_text(tmp_path, capsys):
    # a sweep.yaml or error.txt that is a link may point at any file of the user's: the report must not show it
    from conftest import tiny_sweep
    from groklab.cli import main
    from groklab.store.tree import read_error
    tiny_sweep(tmp_path)
    secret = tmp_path / "secret.yaml"
    secret.write_text("token: hunter2\n")
    grid = tmp_path / "s" / "sweep.yaml"
    grid.unlink()
    grid.symlink_to(secret)
    assert main(["report", str(tmp_path / "s")]) == 0
    assert "hunter2" not in (tmp_path / "s" / "report.html").read_text()
    run = next((tmp_path / "s").rglob("config.yaml")).parent
    (run / "error.txt").symlink_to(secret)
    with pytest.raises(StoreError, match="a link, not a file groklab wrote"):
        read_error(run)
    assert secret.read_text() == "token: hunter2\n"


def test_summarize_replaces_only_a_summary_it_wrote(tmp_path, capsys):
    from conftest import tiny_sweep
    tiny_sweep(tmp_path)
    mine = tmp_path / "mine.csv"
    mine.write_text("my,data\n")
    assert main(["summarize", str(tmp_path / "s"), "--csv", str(mine)]) == 2
    assert mine.read_text() == "my,data\n" and "replaces only the tree's own" in capsys.readouterr().err
    table = tmp_path / "data.csv"  # a user's table that merely starts like groklab's is still theirs
    table.write_text("point,x,y\n1,2,3\n")
    assert main(["summarize", str(tmp_path / "s"), "--csv", str(table)]) == 2
    assert table.read_text() == "point,x,y\n1,2,3\n"
    ours = tmp_path / "s" / "summary.csv"
    assert main(["summarize", str(tmp_path / "s")]) == 0 and ours.read_text().startswith("point,optim.lr,n,")
    assert main(["summarize", str(tmp_path / "s")]) == 0  # its own table: replaced
    link = tmp_path / "link.csv"
    link.symlink_to(mine)
    assert main(["summarize", str(tmp_path / "s"), "--csv", str(link)]) == 2 and mine.read_text() == "my,data\n"


def test_a_users_folder_holding_one_run_among_their_files_is_not_adopted(tmp_path, capsys):
    mine = tmp_path / "mine"
    (mine / "proj").mkdir(parents=True)
    (mine / "thesis.tex").write_text("mine\n")
    (mine / "proj" / "config.yaml").write_text("p: 11\n")
    with pytest.raises(ConfigError, match="holds files groklab did not write"):
        check_out(mine)
    (mine / "proj" / ".groklab").write_text("written by groklab\n")  # a marked tree inside is not the folder's mark
    with pytest.raises(ConfigError, match="thesis.tex"):
        check_out(mine)
