"""A sweep or reproduction with one point that only fails when built is refused whole, before any training;
errors travel whole from worker processes."""
import pickle

import pytest
import yaml

from groklab import ConfigError, make_config
from groklab.cli import main
from groklab.engine.setup import preflight
from groklab.errors import RunBusy, StoreError

BASE = {"p": 11, "task": "add", "model.d_emb": 8, "model.d_hidden": 32, "steps": 30, "batch_size": 16,
        "eval.every": 10, "eval.log_points": 0, "split": "strip"}


def test_a_point_that_fails_only_when_built_refuses_the_sweep_before_training(tmp_path, capsys):
    f = tmp_path / "grid.yaml"
    f.write_text(yaml.safe_dump({"base": {**BASE, "split.k": 2, "model.depth": 8},
                                 "grid": {"model.d_hidden": [32, 2_000_000]}, "seeds": 2}))
    huge = make_config([f"{k}={v}" for k, v in BASE.items()] + ["split.k=2", "model.depth=8",
                                                                 "model.d_hidden=2000000"])  # valid as a config
    assert huge.model.d_hidden == 2_000_000
    assert main(["sweep", str(f), "--out", str(tmp_path / "out"), "--quiet"]) == 2  # ...too big to build
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the run needs about" in err[0] and not (tmp_path / "out").exists()


def test_split_rules_live_in_the_config():  # split.k against p: refused before any build
    with pytest.raises(ConfigError, match=r"split.k=10: must be an integer in \[0, p-2\] = \[0, 9\]"):
        make_config([f"{k}={v}" for k, v in BASE.items()] + ["split.k=10"])


@pytest.mark.parametrize("overrides,args,match", [
    (["task=div", "p=10"], ("div", 10), "p=10: must be prime for task=div"),
    (["task=poly"], ("poly", 11), "task.expr=None: task=poly needs an expression"),
    (["task=sum", "task.K=9", "p=97"], ("sum", 97, None, 9), "task.K=9: p\\*\\*K = 97\\*\\*9"),
    (["p=1500"], ("add", 1500), "p=1500: p\\*\\*2 = 2250000 rows exceeds the limit"),
])
def test_task_rules_live_in_the_config_and_the_table_uses_them(overrides, args, match):
    """config/rules.py owns the task rules: a config is refused at parse time, and a direct make_table call
    from Python gets the same line (data/ keeps no copy of them)."""
    from groklab.data import make_table

    with pytest.raises(ConfigError, match=match):
        make_config(overrides)
    with pytest.raises(ConfigError, match=match):
        make_table(*args)


def test_preflight_checks_each_shape_once_and_passes_good_points():
    good = [make_config([f"{k}={v}" for k, v in BASE.items()] + ["split.k=2", f"seed={s}"]) for s in range(3)]
    preflight(good)
    with pytest.raises(ConfigError, match="the run needs about"):  # more memory than the machine has
        preflight(good + [make_config(["model.d_hidden=2000000", "model.depth=8"])])


@pytest.mark.parametrize("err", [ConfigError("split.k", 96, "too big"), ConfigError("x", list(range(999)), "no"),
                                 StoreError("/r/metrics.jsonl", "not JSON", 3), RunBusy("/r", 12)])
def test_errors_survive_pickling_for_process_and_ray_workers(err):
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is type(err) and str(back) == str(err)


@pytest.mark.parametrize("overrides, field", [
    (["measures.landscape.every=10", "measures.landscape.n_points=1001"], "measures.landscape.n_points=1001"),
    (["measures.hessian.every=10", "measures.hessian.max_iter=1000000"], "measures.hessian.max_iter"),
    (["measures.hessian.every=10", "measures.hessian.trace_samples=5000"], "measures.hessian.trace_samples"),
    (["measures.spectra.every=1", "steps=10000000"], "measures.spectra.every=1: measures 10,000,001 times"),
])
def test_measure_work_is_bounded_before_a_run_unless_allowed(overrides, field, monkeypatch):
    cfg = make_config(overrides)
    with pytest.raises(ConfigError, match=field.replace("^", "\\^")):
        preflight([cfg])
    monkeypatch.setenv("GROKLAB_ALLOW_LARGE", "1")
    from groklab.engine.setup import check
    check(cfg)  # --allow-large lets it through
