"""The verdict-rate benchmark must measure the vocabulary's own rule: known answers at the extremes."""
import runpy
from pathlib import Path


def _rates():
    return runpy.run_path(str(Path(__file__).parents[2] / "benchmarks" / "verdict_rates.py"))["rates"]


def test_no_effect_fails_about_half_the_time_and_never_holds_at_three_seeds():
    r = _rates()(3, 0.5, 1, 300)
    assert abs(r["does not hold"] - 0.5) < 0.1  # the sign of a point estimate: a coin at P = 1/2
    assert r["holds"] <= 0.1  # p <= 0.05 needs every run of A first: 1 / 20 under no effect
    assert abs(sum(r.values()) - 1) < 1e-9


def test_a_large_effect_holds_and_a_four_cell_claim_fails_more_often_than_one_cell():
    rates = _rates()
    assert rates(5, 0.99, 1, 100)["holds"] > 0.9
    one, four = rates(3, 0.7, 1, 300, seed=1), rates(3, 0.7, 4, 300, seed=1)
    assert four["does not hold"] > one["does not hold"]  # one failing cell decides "every cell"
