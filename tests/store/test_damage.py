"""Damaged or foreign run files: one line naming the file (and line), nothing rewritten, or an announced,
safe recovery; `groklab check` reports the health of every run."""
import json

import pytest
import yaml

from conftest import tiny
from groklab import make_config, train
from groklab.cli import main
from groklab.errors import StoreError
from groklab.store import load_runs, read_metrics

ARGS = tiny(steps=40, checkpoint_every=20)


@pytest.fixture
def run(tmp_path):
    """A run stopped at step 20 with its checkpoint, as a crash would leave it."""
    out = tmp_path / "run"
    train(make_config(tiny(steps=20)), out=out)
    cfg = yaml.safe_load((out / "config.yaml").read_text())
    (out / "summary.json").write_text(json.dumps({"status": "running", "steps": 20}))
    return out, cfg


def resume(capsys, out, *extra):
    rc = main(["train", "--resume", str(out), *extra])
    err = capsys.readouterr().err.strip()
    return rc, err


def _lines(out):
    return (out / "metrics.jsonl").read_text().splitlines()


@pytest.mark.parametrize("bad, where", [
    ('{"step": 10, "train/lo', "line 2: not valid JSON"),
    ('[1, 2, 3]', "line 2: a row must be a JSON object"),
    ('{"train/loss": 1.0}', "line 2: step: Field required"),
    ('{"step": 10, "train/loss": "high"}', "line 2: train/loss: must be a number or null"),
    ('{"step": 0, "train/loss": 1.0}', "line 2: step 0 after step 0"),
    ('{"step": 10, "x": ' + "[" * 100_000 + "]" * 100_000 + "}", "line 2: JSON nested too deeply"),
    ('{"step": 10, "train/loss": "' + "x" * 5_000_000 + '"}', "line 2: train/loss: must be a number or null"),
])
def test_a_damaged_middle_line_is_an_error_and_the_file_is_kept(run, capsys, bad, where):
    out, _ = run
    lines = _lines(out)
    (out / "metrics.jsonl").write_text("\n".join([lines[0], bad, *lines[2:]]) + "\n")
    before = (out / "metrics.jsonl").read_bytes()
    rc, err = resume(capsys, out, "steps=40")
    assert rc == 2 and "metrics.jsonl" in err and where in err and "\n" not in err
    assert (out / "metrics.jsonl").read_bytes() == before  # never rewritten
    with pytest.raises(StoreError, match="line 2"):
        load_runs(out)


def test_binary_bytes_name_the_file(run, capsys):
    out, _ = run
    (out / "metrics.jsonl").write_bytes(b"\xff\xfe\x00garbage\n")
    rc, err = resume(capsys, out)
    assert rc == 2 and "metrics.jsonl" in err and "not UTF-8" in err


def test_a_torn_last_line_is_dropped_with_a_notice(run, capsys, tmp_path):
    out, _ = run
    with open(out / "metrics.jsonl", "a") as f:
        f.write('{"step": 25, "train/lo')
    rc, err = resume(capsys, out, "steps=40")
    assert rc == 0 and "torn last line" in err
    ref = train(make_config(ARGS), out=tmp_path / "ref")
    strip = lambda rows: [{k: v for k, v in r.items() if k != "time/wall_s"} for r in rows]  # noqa: E731
    assert strip(read_metrics(out)) == strip(read_metrics(ref.path))


def test_missing_rows_refuse_to_resume(run, capsys):
    out, _ = run
    (out / "metrics.jsonl").unlink()
    rc, err = resume(capsys, out, "steps=40")
    assert rc == 2 and "metrics.jsonl" in err and "rows are missing" in err
    assert not (out / "metrics.jsonl").exists()


def test_a_config_edited_after_the_checkpoint_refuses_to_resume(run, capsys):
    out, cfg = run
    cfg["p"] = 13
    (out / "config.yaml").write_text(yaml.safe_dump(cfg))
    assert main(["check", str(out.parent)]) == 1  # check reads it as resume would: not healthy
    assert "p: 11 -> 13" in capsys.readouterr().out
    rc, err = resume(capsys, out)
    assert rc == 2 and "config.yaml" in err and "p: 11 -> 13" in err


@pytest.mark.parametrize("name, text, what", [
    ("config.yaml", "task: add\np: [", "not valid YAML"),
    ("config.yaml", "- 1\n", "must hold a mapping"),
    ("summary.json", '{"status": "compl', "not valid JSON"),
    ("summary.json", '{"status": "finished", "steps": 3}', "status"),
    ("summary.json", '{"status": "completed", "steps": ' + "9" * 5000 + "}", "number too long"),
    ("config.yaml", "task: add\nsteps: " + "9" * 5000, "not a valid int"),
])
def test_truncated_or_foreign_files_in_every_reader(run, capsys, name, text, what):
    """Readers refuse with the file named; a resume rewrites only the summary (derived data), saying so."""
    out, _ = run
    (out / name).write_text(text)
    for argv in (["summarize", str(out.parent)], ["check", str(out.parent)], ["train", "--resume", str(out)]):
        rc = main(argv)
        captured = capsys.readouterr()
        msg = captured.out if argv[0] == "check" else captured.err.strip()
        if argv[0] == "train" and name == "summary.json":
            assert rc == 0 and f"{name}" in msg and "written anew" in msg
            assert json.loads((out / name).read_text())["status"] == "completed"
            continue
        assert rc == (1 if argv[0] == "check" else 2) and name in msg and what in msg, (argv, msg)


def test_report_names_a_truncated_experiment_file(tmp_path, capsys):
    fig = tmp_path / "fig"
    fig.mkdir()
    (fig / "experiment.json").write_text('{"figure": "fig", "title"')
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "experiment.json" in err and "not valid JSON" in err
    (fig / "experiment.json").write_text(json.dumps({"figure": "fig", "title": "t", "paper": "p", "profile": "quick",
                                                    "seeds": 1, "runs": {}}))
    (fig / "claims.json").write_text('{"claims": [')
    assert main(["report", str(tmp_path), "--markdown"]) == 2
    assert "claims.json" in capsys.readouterr().err


def test_check_reports_every_run(tmp_path, capsys):
    good, bad = tmp_path / "good", tmp_path / "bad"
    train(make_config(tiny()), out=good)
    train(make_config(tiny()), out=bad)
    assert main(["check", str(tmp_path)]) == 0
    assert "2 of 2 healthy" in capsys.readouterr().out
    (bad / "ckpt.pt").write_bytes(b"\x00" * 64)
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"BAD   {bad}" in out and "ckpt.pt" in out and f"ok    {good}" in out
    assert main(["check", str(tmp_path / "nothing")]) == 2


def test_a_fifo_named_like_a_run_file_is_refused_not_waited_on(run, capsys):
    import os
    out, _ = run
    (out / "config.yaml").unlink()
    os.mkfifo(out / "config.yaml")  # reading it would block until some process writes to it
    assert main(["check", str(out.parent)]) == 1 and "not a regular file" in capsys.readouterr().out
    assert main(["summarize", str(out.parent)]) == 2 and "not a regular file" in capsys.readouterr().err
