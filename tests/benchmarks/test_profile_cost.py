"""The profile-cost benchmark must keep running and add up what it timed (its numbers are read by people)."""
import json
import runpy
from pathlib import Path


def test_profile_cost_smoke(tmp_path):
    out = tmp_path / "cost.json"
    bench = runpy.run_path(str(Path(__file__).parents[2] / "benchmarks" / "profile_cost.py"))
    assert bench["main"](["investigation/optimizers", "--profile", "quick", "--seeds", "2", "--smoke",
                          "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    fig = doc["figures"]["optimizers"]
    from groklab.experiments.investigation import optimizers
    assert fig["runs"] == 2 * len(optimizers.cells("quick"))  # every cell at 2 seeds
    assert fig["seconds"] > 0 and doc["seconds"] == fig["seconds"] and doc["gflops"] > 0


def test_profile_cost_refuses_an_unknown_target(capsys):
    bench = runpy.run_path(str(Path(__file__).parents[2] / "benchmarks" / "profile_cost.py"))
    assert bench["main"](["investigation/nope", "--smoke"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "investigation/nope" in err
