"""benchmarks/falsifiable.py: each paper claim's rule, fed values of its own statistic built to make the sentence
true and false, must answer holds and does not hold; a rule that cannot is named."""
import runpy
import subprocess
import sys
from pathlib import Path

from groklab.experiments import claims, levels
from groklab.experiments.claims import Times

ROOT = Path(__file__).parents[2]
F = runpy.run_path(str(ROOT / "benchmarks" / "falsifiable.py"))
BAD = runpy.run_path(str(ROOT / "benchmarks" / "bad_inputs.py"))


def both(fn, *args, **kwargs):
    return tuple(F["synthetic"](fn, args, kwargs, sense, {}, "s") for sense in (True, False))


def test_the_vocabulary_rules_can_both_hold_and_fail():
    lv = {"a": [0.9, 0.95, 0.97], "b": [0.5, 0.6, 0.55]}
    assert both(levels.contrast, "c", "", "acc", lv, "a", "b", 1, floor=0.9) == (True, False)
    assert both(levels.within, "c", "", "acc", lv, "a", "b", 0.05, floor=0.9) == (True, False)
    assert both(levels.not_below, "c", "", "acc", lv, "a", "b", 0.05) == (True, False)
    assert both(levels.contrast, "c", "", "t", {"a": Times([100.0, 200.0]), "b": Times([300.0, 400.0])},
                "a", "b", -1) == (True, False)
    xs = {"x1": 1, "x2": 2, "x3": 3}
    assert both(levels.trend, "c", "", "t", {k: [1.0, 2.0] for k in xs}, xs, -1) == (True, False)
    assert both(levels.no_trend, "c", "", "t", {k: [1.0, 2.0] for k in xs}, xs, 1) == (True, False)
    assert both(levels.below, "c", "", "lag", {"a": [-1.0, -2.0]}, ["a"], 0.0) == (True, False)
    assert both(claims.time_claim, "c", "", {"all": ([100, 200, 300], [400, 500, 600])}, ("A", "B"), "t") == \
        (True, False)
    assert both(levels.every_seed, "c", "", "best", {"a": [0.995, 0.999]}, lambda v: v >= 0.99, "v >= 0.99") == \
        (True, False)


def test_a_rule_that_cannot_fail_is_named():
    always = both(levels.every_seed, "c", "", "share", {"a": [0.06, 0.07]}, lambda v: v is not None or True, "x")
    assert always == (True, None)  # no value of its statistic fails it


def test_every_claim_of_an_archive_is_counted(tmp_path):
    BAD["_repro_fixture"](tmp_path)
    arch = str(tmp_path / "fixture-archive")  # twice: a second archive in one process records afresh
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "falsifiable.py"), arch, arch],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    last = out.stdout.strip().splitlines()[-1]
    n, m = int(last.split()[0]), int(last.split()[2])
    assert last.endswith("paper claims can both hold and fail") and 0 < n <= m and n % 2 == m % 2 == 0
