"""The benchmark script must keep running (its numbers are read by people, not asserted here)."""
import json
import runpy
import sys
from pathlib import Path


def test_bench_smoke(tmp_path, monkeypatch, capsys):
    out = tmp_path / "bench.json"
    monkeypatch.setattr(sys, "argv", ["bench.py", "--smoke", "--json", str(out)])
    bench = runpy.run_path(str(Path(__file__).parents[2] / "benchmarks" / "bench.py"))
    assert bench["main"]() == 0
    res = json.loads(out.read_text())
    assert [r["batch"] for r in res["steps"]] == [64, "full"]
    assert all(r["ratio"] > 0 for r in res["steps"]) and 0 <= res["eval"][0]["eval_share"] < 1
    assert "ratio" in capsys.readouterr().out


def test_bench_transformer_smoke(tmp_path, monkeypatch, capsys):
    out = tmp_path / "bt.json"
    monkeypatch.setattr(sys, "argv", ["bench_transformer.py", "--smoke", "--json", str(out)])
    bench = runpy.run_path(str(Path(__file__).parents[2] / "benchmarks" / "bench_transformer.py"))
    assert bench["main"]() == 0
    res = {r["case"]: r for r in json.loads(out.read_text())}
    assert res["power"]["ratio"] > 0 and res["power"]["layers"] == 2
    assert res["beyond"]["ratio"] > 0 and res["beyond"]["layers"] == 1 and res["beyond"]["batch"] == "full"
