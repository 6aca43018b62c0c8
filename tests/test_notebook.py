"""quickstart.ipynb runs top to bottom (its code cells executed in order, as a kernel would), writing only
below its OUT folder."""
import json
import os
from pathlib import Path

import matplotlib

ROOT = Path(__file__).resolve().parents[1]


def test_the_quickstart_notebook_runs(tmp_path, monkeypatch):
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    cells = [c for c in json.loads((ROOT / "quickstart.ipynb").read_text())["cells"] if c["cell_type"] == "code"]
    ns: dict = {}
    for i, cell in enumerate(cells):
        exec(compile("".join(cell["source"]), f"quickstart cell {i}", "exec"), ns)
        if i == 0:  # the paths the notebook reads and writes, pointed at the repository and a temp folder
            ns["RESULTS"], ns["OUT"] = str(ROOT / "results"), str(tmp_path / "out")
    assert set(ns["claims"]["kind"]) <= {"paper", "measurement"} and len(ns["claims"]) >= 10
    summary = ns["res"].summary  # the run the notebook says groks: fits early, generalizes within its 1,000 steps
    assert summary["status"] in ("completed", "early_stop") and summary["t_train"] < summary["t_test"] <= 1000
    assert sorted(os.listdir(tmp_path)) == ["out"]
