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


def test_ab_trees_smoke(capsys):
    """The before/after script times one config under two source trees (here the same one, twice)."""
    ab = runpy.run_path(str(Path(__file__).parents[2] / "benchmarks" / "ab_trees.py"))
    src = str(Path(__file__).parents[2] / "src")
    assert ab["main"]([src, src, "--smoke"]) == 0
    out = capsys.readouterr().out
    assert "ratio after/before" in out and "median of 1" in out
