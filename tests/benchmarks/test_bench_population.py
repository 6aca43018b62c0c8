"""The population benchmark must keep running (its numbers are read by people, not asserted here)."""
import json
import runpy
from pathlib import Path

import pytest


def test_bench_population_smoke(tmp_path, capsys):
    out = tmp_path / "bench.json"
    bench = runpy.run_path(str(Path(__file__).parents[2] / "benchmarks" / "bench_population.py"))
    assert bench["main"](["--smoke", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["batch"], r["M"]) for r in rows] == [(16, 1), (16, 4)]
    assert all(r["stacked_steps_per_s"] > 0 and r["one_by_one_steps_per_s"] > 0 for r in rows)
    assert "speedup" in capsys.readouterr().out


@pytest.mark.parametrize("model", ["transformer", "code_mlp", "lstm", "birnn"])
def test_bench_population_model_smoke(tmp_path, model):
    out = tmp_path / "bench.json"
    bench = runpy.run_path(str(Path(__file__).parents[2] / "benchmarks" / "bench_population.py"))
    assert bench["main"](["--smoke", "--model", model, "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["model"], r["M"]) for r in rows] == [(model, 1), (model, 4)]
    assert all(r["stacked_gflops"] > 0 and 0 < r["share_of_peak"] < 1 for r in rows)  # the stack's matmuls counted
