"""engine/budget.py: every knob that multiplies a run's work is refused past its bound in one line naming the
field and the largest value allowed; the bound itself passes; --allow-large lifts it; memory estimates."""
import pytest

from groklab import ConfigError, make_config
from groklab.engine.budget import MEASURE_LIMITS, RUN_LIMITS, check_work, permit_large

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
