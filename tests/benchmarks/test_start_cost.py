"""The unit-start benchmark and the cost fit that takes its number (issue 66: no fitted start constant)."""
import runpy
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).parents[2] / "benchmarks"


def test_start_terms_are_differences_of_fresh_processes(monkeypatch):
    """Each term is what one kind of process adds to the one before it; the start is their sum less one step."""
    bench = runpy.run_path(str(BENCH / "start_cost.py"))
    cost = {"pass": 0.05, "engine.loop": 2.5, "import torch": 1.5, "steps=11": 4.9, "steps=1": 4.0}
    fake = lambda cmd: next(v for k, v in cost.items() if k in " ".join(cmd))  # noqa: E731
    monkeypatch.setitem(bench["measure"].__globals__, "wall", fake)
    doc = bench["measure"]("cpu", 1, 11)
    assert doc["terms_s"] == {"python": 0.05, "import torch": 1.45, "import groklab": 1.0, "run, 1 step": 1.5}
    assert doc["step_ms"] == pytest.approx(90.0) and doc["start_s"] == pytest.approx(4.0 - 0.09)


def test_a_measured_start_is_kept_and_the_rest_fitted():
    fit = runpy.run_path(str(BENCH / "fit_cost.py"))["fit"]
    rng = np.random.default_rng(0)
    true = np.array([3.0, 0.002, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    X = [[1.0, s, g, 0, 0, 0, 0, 0, 0, 0] for s, g in zip(rng.integers(100, 20000, 30), rng.uniform(1, 200, 30))]
    data = [(x, float(np.dot(true, x)), "synthetic") for x in X]
    coef, quality = fit(data, start=3.0)
    assert coef[0] == 3.0 and coef[1:3] == pytest.approx([0.002, 0.5], rel=1e-6)
    wrong, _ = fit(data, start=30.0)  # a start larger than some runs: the others cannot go negative
    assert wrong[0] == 30.0 and min(wrong) >= 0 and quality["median |estimate / wall - 1|"] < 1e-6
