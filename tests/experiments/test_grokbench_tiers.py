"""GrokBench II's statistics over repeated tuning studies (grokbench/tiers.py), on times with known answers."""
import numpy as np
import pytest

from groklab.experiments.grokbench import tiers as T
from groklab.survival import Censored, first_share

H = 10_000.0


def runs(*steps):
    """Times as tiers.py reads them: a number is a run that held the threshold there, None one censored at H."""
    return T.as_arrays([(H, False) if s is None else (float(s), True) for s in steps])


def studies(*per_study):
    return {100 + k: runs(*s) for k, s in enumerate(per_study)}


def test_pair_score_is_gehans_first_share():
    a, b = [300, 500, None, 700], [400, None, 600]
    got = T.pair_score(runs(*a), runs(*b))
    as_survival = lambda v: [Censored(H) if x is None else x for x in v]  # noqa: E731
    assert got == pytest.approx(first_share(as_survival(a), as_survival(b)))
    assert T.pair_score(runs(100), runs(None)) == 1.0 and T.pair_score(runs(None), runs(None)) == 0.5


def test_holm_steps_down_and_stays_monotone():
    adj = T.holm({"a": 0.01, "b": 0.04, "c": 0.03, "d": None})
    assert adj == {"a": pytest.approx(0.03), "c": pytest.approx(0.06), "b": pytest.approx(0.06), "d": None}


def test_score_is_the_median_over_studies_and_its_interval_holds_the_study_spread():
    base = studies([1000] * 5, [1000] * 5, [1000] * 5)
    # the method wins every pair in two studies and loses every pair in the third: median 1, a bootstrap that
    # resamples studies must reach down to 0 (the spread between studies is inside the interval)
    m = studies([500] * 5, [500] * 5, [2000] * 5)
    got = T.per_task({"adamw": {"add": base}, "m": {"add": m}}, "adamw", reps=400)[("m", "add")]
    assert got["score"] == 1.0 and got["per_study"] == [1.0, 1.0, 0.0]
    assert got["lo"] == 0.0 and got["hi"] == 1.0


def test_stratified_test_separates_a_real_difference_from_none():
    base = studies(range(1000, 1100, 10), range(1000, 1100, 10), range(1000, 1100, 10))
    fast = studies(range(500, 600, 10), range(500, 600, 10), range(500, 600, 10))
    assert T.stratified_p(fast, base, perms=2000) < 0.001
    same = studies(range(1005, 1105, 10), range(995, 1095, 10), range(1000, 1100, 10))
    assert T.stratified_p(same, base, perms=2000) > 0.3
    # nothing ever grokked: every pair open, the statistic sits at 1/2 whatever the labels: p = 1
    never = studies([None] * 4, [None] * 4)
    assert T.stratified_p(never, studies([None] * 4, [None] * 4), perms=200) == 1.0


def test_tiers_group_what_the_tests_cannot_tell_apart_and_loto_finds_a_one_task_leader():
    rng = np.random.default_rng(0)
    noisy = lambda c: studies(*[c + rng.integers(-40, 40, 10) for _ in range(3)])  # noqa: E731
    times = {m: {t: noisy(c) for t in ("add", "sub", "mul")} for m, c in
             (("adamw", 1000), ("fast", 400), ("b", 1005), ("c", 1000))}
    agg = T.across(times, "adamw", ["add", "sub", "mul"], reps=200)
    order = sorted(agg, key=lambda m: -agg[m]["score"])
    assert order[0] == "fast" and agg["fast"]["score"] == 1.0 and agg["adamw"]["score"] == 0.5
    pairs = T.pairwise(times, ["add", "sub", "mul"], reps=200)
    assert pairs[("fast", "b")]["score"] == 1.0 and pairs[("b", "fast")]["score"] == 0.0
    tier = T.tiers(order, pairs)
    assert tier["fast"] == 1 and {tier["b"], tier["c"], tier["adamw"]} == {2}  # no difference among these three
    # the leader wins two tasks and loses add; a method that wins add alone leads once either of the others is out
    times["one"] = {"add": noisy(100), "sub": noisy(1000), "mul": noisy(1000)}
    times["fast"] = {"add": noisy(1070), "sub": noisy(400), "mul": noisy(400)}
    agg = T.across(times, "adamw", ["add", "sub", "mul"], reps=0)
    assert max(agg, key=lambda m: agg[m]["score"]) == "fast"
    loto = {r["left_out"]: r["leader"] for r in T.leave_one_out(times, "adamw", ["add", "sub", "mul"])}
    assert loto == {"add": "fast", "sub": "one", "mul": "one"}


def test_transfer_is_kendalls_tau_of_the_two_orders():
    tuned = {m: {"score": s} for m, s in zip("abcd", (0.9, 0.7, 0.5, 0.3))}
    assert T.transfer(tuned, {m: {"score": s} for m, s in zip("abcd", (0.8, 0.6, 0.55, 0.1))})["tau"] == 1.0
    assert T.transfer(tuned, {m: {"score": s} for m, s in zip("abcd", (0.1, 0.3, 0.5, 0.9))})["tau"] == -1.0
    assert T.transfer(tuned, {"a": {"score": 0.5}})["tau"] is None  # fewer than 3 methods in common


def test_time_to_grok_is_held_with_persistence_and_a_diverged_run_fails_at_the_horizon():
    import pandas as pd

    from groklab.experiments.grokbench.board_v2 import nest, times_of

    steps = list(range(0, 1001, 100))
    acc = {"eval/add/m/k100/s0": [0.1] * 3 + [1.0] * 8,  # held from 300 on
           "eval/add/m/k100/s1": [0.1] * 3 + [1.0, 0.5] + [1.0] * 6,  # touches at 300, falls back, holds from 500
           "eval/add/m/k100/s2": [0.1] * 3 + [1.0] * 2 + [float("nan")] * 6,  # diverged after a touch
           "eval/add/m/k100/s3": [0.1] * 11}
    rows = pd.DataFrame([{"run": r, "step": s, "test/acc": a} for r, v in acc.items() for s, a in zip(steps, v)])
    runs = {r: {"overrides": ["steps=2000"]} for r in [*acc, "eval/add/m/k100/s4"]}  # s4: no rows at all
    at = times_of(rows, runs, 0.99, 200)
    assert at["eval/add/m/k100/s0"] == (300.0, True) and at["eval/add/m/k100/s1"] == (500.0, True)
    assert at["eval/add/m/k100/s2"] == (2000.0, False)  # a failure at the horizon, not censored at its last step
    assert at["eval/add/m/k100/s3"] == at["eval/add/m/k100/s4"] == (2000.0, False)
    t, o = nest(at)["m"]["add"][100]
    assert list(t) == [300.0, 500.0, 2000.0, 2000.0, 2000.0] and list(o) == [True, True, False, False, False]
