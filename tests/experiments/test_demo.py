from groklab.cli import main
from groklab.experiments.embedding.demo import run_demo
from groklab.store import read_summary


def test_demo_runs_writes_figure_and_skips_finished_runs(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "--p", "11", "--steps", "20", "--seeds", "1"]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "demo.png").stat().st_size > 10_000
    assert out.count("seed 0") == 6 and "median over seeds" in out
    runs = sorted(p.parent for p in tmp_path.rglob("summary.json"))
    assert len(runs) == 6 and {read_summary(r)["status"] for r in runs} <= {"completed", "early_stop"}
    before = {r: (r / "metrics.jsonl").read_text() for r in runs}
    rows = run_demo(out=tmp_path, p=11, steps=20, seeds=1, echo=lambda *_: None)
    assert len(rows) == 6 and all((r / "metrics.jsonl").read_text() == before[r] for r in runs)
