"""The eval schedule: fixed, or (eval.every unset) spaced so evaluating costs about a tenth of the run."""
import json

import pytest

from conftest import tiny
from groklab import make_config, train
from groklab.engine.evals import EVAL_SHARE, MIN_EVALS, STEP_FORWARDS, auto_spacing, eval_schedule


@pytest.mark.parametrize("steps, batch, n_eval, log_points, want", [
    (20000, 64, 9409, 20, (800, 20)),  # p = 97 at batch 64: 51,200 rows between evals ...
    (20000, 512, 9409, 20, (100, 20)),  # ... as every 100 steps at batch 512
    (3000, 64, 9409, 20, (600, 5)),  # a short run affords 6.8 evaluations: it gets MIN_EVALS, half log-spaced
    (20, 60, 121, 20, (100, 5)),  # a tiny run: 10 evaluations (5 log-spaced, then 0 and the last step)
    (3000, 2823, 9409, 20, (100, 20)),  # the full batch of a 30% split: never closer than 100 steps
])
def test_auto_spacing(steps, batch, n_eval, log_points, want):
    assert auto_spacing(steps, batch, n_eval, log_points) == want


@pytest.mark.parametrize("steps, batch, n_eval", [(20000, 64, 9409), (50000, 32, 40000), (30000, 2823, 9409)])
def test_auto_spacing_keeps_the_modelled_share_within_budget(steps, batch, n_eval):
    every, n_log = auto_spacing(steps, batch, n_eval, 20)
    evals = len(range(0, steps + 1, every)) + n_log + 1
    share = evals * n_eval / (evals * n_eval + STEP_FORWARDS * batch * steps)
    assert share <= EVAL_SHARE * 1.35  # the grid's end points and rounding add a little


def test_a_run_without_eval_every_evaluates_on_the_auto_schedule(tmp_path):
    args = [a for a in tiny(steps=300) if not a.startswith(("eval.every", "eval.log_points"))]
    res = train(make_config(args), out=tmp_path / "r")
    s = json.loads((tmp_path / "r" / "summary.json").read_text())
    n_train, n_test = s["n_train"], s["n_test"]
    assert (s["eval/every"], s["eval/log_points"]) == auto_spacing(300, min(16, n_train), n_train + n_test, 20)
    want, _, _ = eval_schedule(make_config(args), n_train, n_train + n_test)
    assert [r["step"] for r in res.history] == sorted(want)


def test_the_auto_schedule_needs_the_data_sizes():
    with pytest.raises(ValueError, match="data sizes"):
        eval_schedule(make_config([]))


def test_a_resumed_run_keeps_the_auto_schedule(tmp_path, monkeypatch):
    from groklab.data.sampling import EpochSampler

    args = [a for a in tiny(steps=300, checkpoint_every=50) if not a.startswith("eval.every")]
    full = train(make_config(args), out=tmp_path / "full")
    original = EpochSampler.batch

    def boom(self, step):
        if step == 170:
            raise KeyboardInterrupt
        return original(self, step)

    monkeypatch.setattr(EpochSampler, "batch", boom)
    with pytest.raises(KeyboardInterrupt):
        train(make_config(args), out=tmp_path / "cut")
    monkeypatch.undo()
    train(resume=tmp_path / "cut")
    rows = lambda d: [{k: v for k, v in json.loads(x).items() if k != "time/wall_s"}  # noqa: E731
                      for x in (d / "metrics.jsonl").read_text().splitlines()]
    assert rows(tmp_path / "cut") == rows(tmp_path / "full") and len(rows(tmp_path / "full")) == len(full.history)


def test_a_short_run_still_gets_a_curve():
    """20 steps on 121 rows afford under one evaluation by the 10% rule; the floor gives it MIN_EVALS / 2 log-spaced
    points besides step 0 (a diverging run needs 3 evaluations in a row above its first loss to be called so)."""
    sched, every, n_log = eval_schedule(make_config(["p=11", "steps=20"]), 60, 121)
    assert n_log == MIN_EVALS // 2 and sorted(sched) == [0, 1, 2, 4, 9, 20]
