"""load_runs(columns=...), load_summaries and load_model: the API a researcher reaches for first."""
import pytest
import torch

from conftest import tiny, tiny_sweep
from groklab import ConfigError, load_model, load_runs, load_summaries, make_config, train


def test_summaries_one_row_per_run_with_the_settings_that_vary(tmp_path):
    root = tiny_sweep(tmp_path)  # lr 0.01, 0.003 x 2 seeds
    df = load_summaries(root)
    assert len(df) == 4 and set(df["status"]) == {"completed"}
    assert {"run", "t_train", "t_test", "final/test_acc", "optim.lr", "seed"} <= set(df.columns)
    assert "p" not in df.columns and df.attrs["shared"]["p"] == 11  # shared settings apart
    assert sorted(df["optim.lr"].unique()) == [0.003, 0.01]


def test_load_runs_keeps_only_the_columns_asked_for(tmp_path):
    root = tiny_sweep(tmp_path)
    full, some = load_runs(root), load_runs(root, columns=["test/acc", "optim.lr"])
    assert list(some.columns) == ["run", "step", "test/acc", "optim.lr"]
    assert some.equals(full[["run", "step", "test/acc", "optim.lr"]])
    with pytest.raises(ConfigError, match="columns='test/accc'"):
        load_runs(root, columns=["test/accc"])
    with pytest.raises(ConfigError, match="columns"):
        load_runs(root, columns="test/acc")


def test_load_model_is_the_trained_model_in_one_call(tmp_path):
    res = train(make_config(tiny()), out=tmp_path / "r")
    model = load_model(tmp_path / "r")
    assert not model.training
    x, y = model.task.inputs, model.task.labels
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).double().mean().item()
    n_tr, n_te = res.summary["n_train"], res.summary["n_test"]
    final = (res.summary["final/train_acc"] * n_tr + res.summary["final/test_acc"] * n_te) / (n_tr + n_te)
    assert acc == pytest.approx(final, abs=1e-6)  # the table's accuracy is the run's final accuracy
    init = load_model(tmp_path / "r", step=0)
    assert not torch.equal(next(init.parameters()), next(model.parameters()))


def test_load_model_refuses_a_checkpoint_of_another_model_in_one_line(tmp_path):
    """Reliability V: a ckpt.pt swapped for one of another run (p = 11 weights, a p = 7 config) is named, not a
    size-mismatch traceback."""
    import shutil

    train(make_config(tiny(p=7)), out=tmp_path / "a")
    train(make_config(tiny(p=11)), out=tmp_path / "b")
    shutil.copy(tmp_path / "b" / "ckpt.pt", tmp_path / "a" / "ckpt.pt")
    with pytest.raises(ConfigError, match=r"^checkpoint='.*a': does not fit the model its config.yaml builds") as e:
        load_model(tmp_path / "a")
    assert "\n" not in str(e.value)


def test_train_exist_ok_resumes_skips_or_refuses(tmp_path):
    cfg = make_config(tiny())
    first = train(cfg, out=tmp_path / "r")
    with pytest.raises(ConfigError, match="already holds a run"):
        train(cfg, out=tmp_path / "r")
    again = train(cfg, out=tmp_path / "r", exist_ok="skip")
    assert again.summary == first.summary  # returned, nothing trained
    assert train(cfg, out=tmp_path / "r", exist_ok="resume").summary == first.summary
    with pytest.raises(ConfigError, match="different config"):
        train(make_config(tiny(seed=5)), out=tmp_path / "r", exist_ok="resume")
    for bad in (True, 1, "yes"):
        with pytest.raises(ConfigError, match="exist_ok"):
            train(cfg, out=tmp_path / "s", exist_ok=bad)
    assert not (tmp_path / "s").exists()
