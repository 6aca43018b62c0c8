"""Every invalid input: one line on stderr naming field and value, exit code 2, nothing on disk."""
import pytest

from conftest import tiny
from groklab.cli import main


def run_cli(capsys, argv):
    rc = main(argv)
    err = capsys.readouterr().err.strip()
    return rc, err


BAD = [
    (["foo=1"], "foo"),
    (["optim.foo=1"], "optim.foo"),
    (["task=xor"], "task.name"),
    (["p=1"], "p"),
    (["task=div", "p=96"], "p"),
    (["split.frac_train=1.5"], "split.frac_train"),
    (["split=square", "split.k=97", "p=97"], "split.k"),
    (["split=strip", "split.k=11"], "split.k"),
    (["batch_size=0"], "batch_size"),
    (["optim.lr=-1"], "optim.lr"),
    (["optim.weight_decay=-0.1"], "optim.weight_decay"),
    (["task=a**2"], "task.expr"),
    (["task=__import__('os').system('true')"], "task.expr"),
    (["task=a^2+(b"], "task.expr"),
    (["task=sum", "task.K=20"], "task.K"),
    (["model=resnet"], "model.name"),
    (["model=mlp", "optim.c=10"], "optim.c"),
    (["steps=abc"], "steps"),
    (["lr0.1"], "override"),
    (["task=poly"], "task.expr"),
    (["split.test_reserve=0.9"], "split"),
    (["device=cuda"], "device"),
]


@pytest.mark.parametrize("overrides, field", BAD)
def test_bad_config_is_refused_before_writing(tmp_path, capsys, overrides, field, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if field == "device":
        import torch
        if torch.cuda.is_available():
            pytest.skip("a GPU is present, device=cuda is valid")
    out = tmp_path / "run"
    rc, err = run_cli(capsys, ["train", "--out", str(out), *tiny(), *overrides])
    assert rc == 2
    assert err.startswith("groklab: error: ") and "\n" not in err
    assert field in err
    assert not out.exists() and not (tmp_path / "runs").exists()


def test_missing_config_file(tmp_path, capsys):
    rc, err = run_cli(capsys, ["train", "--config", str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "r")])
    assert rc == 2 and "config=" in err and not (tmp_path / "r").exists()


def test_config_file_that_is_not_a_mapping(tmp_path, capsys):
    f = tmp_path / "c.yaml"
    f.write_text("- 1\n- 2\n")
    rc, err = run_cli(capsys, ["train", "--config", str(f), "--out", str(tmp_path / "r")])
    assert rc == 2 and "mapping" in err


def test_resume_of_a_directory_that_is_not_a_run(tmp_path, capsys):
    rc, err = run_cli(capsys, ["train", "--resume", str(tmp_path)])
    assert rc == 2 and "resume=" in err and "not a run" in err


def test_resume_with_a_corrupted_checkpoint(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "--out", str(out), *tiny()]) == 0
    (out / "ckpt.pt").write_bytes(b"\x00garbage" * 10)
    capsys.readouterr()
    rc, err = run_cli(capsys, ["train", "--resume", str(out)])
    assert rc == 2 and "corrupted" in err and "\n" not in err


def test_resume_refuses_config_changes(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "--out", str(out), *tiny()]) == 0
    capsys.readouterr()
    rc, err = run_cli(capsys, ["train", "--resume", str(out), "optim.lr=0.1"])
    assert rc == 2 and "optim.lr" in err


def test_out_that_already_holds_a_run(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "--out", str(out), *tiny()]) == 0
    before = (out / "metrics.jsonl").read_text()
    capsys.readouterr()
    rc, err = run_cli(capsys, ["train", "--out", str(out), *tiny()])
    assert rc == 2 and "already holds a run" in err
    assert (out / "metrics.jsonl").read_text() == before
