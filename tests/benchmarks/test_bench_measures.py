"""The measures benchmark must keep running (its numbers are read by people, not asserted here)."""
import json
import runpy
import sys
from pathlib import Path


def test_measures_bench_smoke(tmp_path, monkeypatch):
    out = tmp_path / "m.json"
    monkeypatch.setattr(sys, "argv", ["measures.py", "--smoke", "--json", str(out)])
    bench = runpy.run_path(str(Path(__file__).parents[2] / "benchmarks" / "measures.py"))
    assert bench["main"]() == 0
    res = json.loads(out.read_text())
    assert set(res["ms"]) >= {"hessian", "spectra", "landscape"} and set(res["hessian"]) == {"E", "W", "all"}
