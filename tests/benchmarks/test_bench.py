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


def test_stop_vs_horizon_compares_a_stopped_run_with_its_longer_twin(tmp_path, monkeypatch, capsys):
    """A curve stopped at 400 and its twin trained on to 800, differing from step 300, rising late: the script
    reports the stop, the first difference and the U-Acc the stop missed."""
    def write(root, rows, run="strip/k67/s0"):
        (root / run).mkdir(parents=True)
        (root / run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    row = lambda s, te, lo=1.0: {"step": s, "train/acc": 1.0 if s else 0.0, "train/loss": lo, "test/acc": te}  # noqa: E731
    write(tmp_path / "a", [row(s, 0.05) for s in range(0, 500, 100)])
    write(tmp_path / "b", [row(s, 0.05 if s < 600 else 0.3, 1.0 if s < 300 else 0.5) for s in range(0, 900, 100)])
    never = [{"step": s, "train/acc": 0.1, "train/loss": 1.0, "test/acc": 0.01} for s in range(0, 500, 100)]
    write(tmp_path / "a", never, "strip/k60/s0")  # never fits its training set: no U-Acc, printed as such
    write(tmp_path / "b", never, "strip/k60/s0")
    out = tmp_path / "c.json"
    argv = ["stop_vs_horizon.py", str(tmp_path / "a"), str(tmp_path / "b"), "--json", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    script = runpy.run_path(str(Path(__file__).parents[2] / "benchmarks" / "stop_vs_horizon.py"))
    assert script["main"]() == 0
    r = json.loads(out.read_text())["rows"][1]
    assert (r["stop"], r["on_to"], r["first_difference"], r["go_stop"], r["go_on"]) == (400, 800, 300, None, 600)
    printed = capsys.readouterr().out
    assert r["u_stop"] == 0.05 and r["u_on"] == 0.3 and "+25.0 pt" in printed
    assert "U-Acc – -> – (– pt)" in printed


def test_same_runs_finds_the_run_whose_outcome_moved(tmp_path, monkeypatch, capsys):
    """Two trees of the same tiny runs: identical where nothing changed; a changed lr moves one run's curve."""
    from conftest import tiny
    from groklab import make_config, train

    for tree, lr in (("a", 0.01), ("b", 0.01), ("c", 0.02)):
        for seed in (0, 1):
            lr_here = lr if seed == 1 else 0.01  # only seed 1 differs in tree c
            train(make_config(tiny(seed=seed, **{"optim.lr": lr_here})), out=tmp_path / tree / f"s{seed}")
    script = runpy.run_path(str(Path(__file__).parents[2] / "benchmarks" / "same_runs.py"))
    same = script["compare"](script["runs"](tmp_path / "a"), script["runs"](tmp_path / "b"))
    assert [r["max_abs_diff"] for r in same] == [0.0, 0.0] and all(r["first_difference"] is None for r in same)
    moved = {r["run"]: r for r in script["compare"](script["runs"](tmp_path / "a"), script["runs"](tmp_path / "c"))}
    assert moved["s0"]["max_abs_diff"] == 0.0 and moved["s1"]["max_abs_diff"] > 0
    out = tmp_path / "j.json"
    monkeypatch.setattr(sys, "argv", ["same_runs.py", str(tmp_path / "a"), str(tmp_path / "c"), "--json", str(out)])
    assert script["main"]() == 0
    assert json.loads(out.read_text())["summary"]["identical"] == 1 and "1 bit-identical" in capsys.readouterr().out
    for tree, verdict in (("a", "holds"), ("c", "does not hold")):  # judged trees: verdicts side by side
        (tmp_path / tree / "claims.json").write_text(json.dumps({"claims": [{"id": "x", "verdict": verdict},
                                                                            {"id": "y", "verdict": "holds"}]}))
    assert script["main"]() == 0
    doc = json.loads(out.read_text())
    assert doc["summary"]["verdicts_differ"] == ["x"] and "x: holds vs does not hold" in capsys.readouterr().out
    assert script["verdicts"](tmp_path / "a", tmp_path / "b") == []  # b not judged: nothing compared
