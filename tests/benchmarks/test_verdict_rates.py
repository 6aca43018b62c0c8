"""The verdict-rate benchmark must measure the vocabulary's own rule: known answers at the extremes."""
import runpy
from pathlib import Path


def _rates():
    return runpy.run_path(str(Path(__file__).parents[2] / "benchmarks" / "verdict_rates.py"))["rates"]


def test_no_effect_is_rarely_decided_either_way():
    r = _rates()(5, 0.5, 1, 300)
    assert r["does not hold"] <= 0.1 and r["holds"] <= 0.1  # each side's one-sided 5% test
    assert abs(sum(r.values()) - 1) < 1e-9


def test_a_large_effect_holds_and_a_real_one_is_not_called_false():
    rates = _rates()
    assert rates(5, 0.99, 1, 100)["holds"] > 0.9
    r = rates(3, 0.7, 4, 200, seed=1)  # a true effect judged over four cells at 3 seeds: "does not hold" is false
    assert r["does not hold"] <= 0.05 and r["inconclusive"] > 0.9  # and 3 seeds cannot show it in every cell
