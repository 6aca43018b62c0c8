"""engine/budget.py: every knob that multiplies a run's work is refused past its bound in one line naming the
field and the largest value allowed; the bound itself passes; --allow-large lifts it; memory estimates."""
import pytest
import torch

from conftest import tiny
from groklab import ConfigError, make_config
from groklab.data import make_task
from groklab.engine import budget
from groklab.engine.budget import MEASURE_LIMITS, RUN_LIMITS, check_work, permit_large
from groklab.models import build_model

STEPS = 1_000_000
# field -> (the largest value it may take over STEPS steps, or the bound itself; the first value refused)
SCHEDULE = {"eval.every": (STEPS // RUN_LIMITS["evaluations"], STEPS // RUN_LIMITS["evaluations"] - 1),
            "checkpoint_every": (STEPS // RUN_LIMITS["checkpoint writes"],
                                 STEPS // RUN_LIMITS["checkpoint writes"] - 1),
            "checkpoint_keep": (STEPS // RUN_LIMITS["kept checkpoints"], STEPS // RUN_LIMITS["kept checkpoints"] - 1)}


@pytest.mark.parametrize("key", SCHEDULE)
def test_a_schedule_at_its_bound_passes_and_one_past_it_is_refused(key):
    ok, bad = SCHEDULE[key]
    check_work(make_config([f"steps={STEPS}", f"{key}={ok}"]))
    with pytest.raises(ConfigError) as err:
        check_work(make_config([f"steps={STEPS}", f"{key}={bad}"]))
    assert err.value.field == key and f"{key} >= {ok:,}" in str(err.value) and "--allow-large" in str(err.value)
    with permit_large():
        check_work(make_config([f"steps={STEPS}", f"{key}={bad}"]))


def test_steps_past_their_bound_are_refused_unless_allowed():
    top = RUN_LIMITS["steps"]
    check_work(make_config([f"steps={top}", "eval.every=10000", "checkpoint_every=10000"]))
    with pytest.raises(ConfigError, match=f"at most {top:,}") as err:
        check_work(make_config([f"steps={top + 1}", "eval.every=10000", "checkpoint_every=10000"]))
    assert err.value.field == "steps"
    with permit_large():
        check_work(make_config([f"steps={top + 1}"]))


def test_a_depth_past_its_bound_is_refused_before_the_model_is_built():
    top = RUN_LIMITS["model.depth"]
    check_work(make_config([f"model.depth={top}"]))
    with pytest.raises(ConfigError, match=f"at most {top:,} layers") as err:
        check_work(make_config([f"model.depth={top + 1}"]))
    assert err.value.field == "model.depth"
    with permit_large():
        check_work(make_config([f"model.depth={top + 1}"]))


@pytest.mark.parametrize("key", ["max_iter", "k", "trace_samples"])
def test_hessian_work_at_its_bound_passes_and_past_it_is_refused(key):
    top = MEASURE_LIMITS[f"measures.hessian.{key}"]
    check_work(make_config(["measures.hessian.every=100", f"measures.hessian.{key}={top}"]))
    with pytest.raises(ConfigError) as err:
        check_work(make_config(["measures.hessian.every=100", f"measures.hessian.{key}={top + 1}"]))
    assert err.value.field == f"measures.hessian.{key}" and f"at most {top:,}" in str(err.value)


def test_a_measure_called_too_often_names_the_smallest_interval_allowed():
    steps, top = STEPS, MEASURE_LIMITS["calls"]
    check_work(make_config([f"steps={steps}", f"measures.spectra.every={steps // top}"]))
    with pytest.raises(ConfigError, match=f"every >= {steps // top}") as err:
        check_work(make_config([f"steps={steps}", f"measures.spectra.every={steps // top - 1}"]))
    assert err.value.field == "measures.spectra.every"


def test_the_refusal_reaches_the_cli_as_one_line_and_exit_2_with_nothing_written(tmp_path, capsys):
    from groklab.cli import main

    out = tmp_path / "run"
    assert main(["train", "steps=1000000", "eval.every=1", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "eval.every=1" in err and "eval.every >= 10" in err
    assert not out.exists()


def test_memory_estimate_counts_parameters_exactly_and_names_the_culprit(monkeypatch):
    monkeypatch.delenv(budget.ALLOW_ENV, raising=False)
    cfg = make_config(tiny(**{"model": "transformer", "model.depth": 2}))
    task = make_task(cfg)
    est = budget.estimate(cfg, task, n_train=30)
    assert est["n_params"] == sum(t.numel() for t in build_model(cfg, task).parameters())
    big = make_config(["model.d_hidden=100000000"])
    with pytest.raises(ConfigError) as e:
        budget.check_memory(big, make_task(big), 2822, torch.device("cpu"))
    assert str(e.value).startswith("model.d_hidden=100000000: the run needs about") and "--allow-large" in str(e.value)
    ma = make_config(["optim.grokfast=ma", "optim.grokfast_window=100000000"])  # was blamed on model.depth
    with pytest.raises(ConfigError, match="^optim.grokfast_window=100000000: the run needs"):
        budget.check_memory(ma, make_task(ma), 2822, torch.device("cpu"))
    monkeypatch.setenv(budget.ALLOW_ENV, "1")  # the override: the estimate is returned, nothing is allocated
    assert budget.check_memory(big, make_task(big), 2822, torch.device("cpu"))["n_params"] > 6e10
