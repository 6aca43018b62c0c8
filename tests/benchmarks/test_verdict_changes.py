"""benchmarks/verdict_changes.py: the claims whose verdict differs between two copies of an archive."""
import json
import runpy
from pathlib import Path

CHANGES = runpy.run_path(str(Path(__file__).parents[2] / "benchmarks" / "verdict_changes.py"))["changes"]


def _study(root: Path, claims: list[dict]) -> Path:
    (root / "fig1").mkdir(parents=True)
    (root / "fig1" / "claims.json").write_text(json.dumps({"claims": claims}))
    return root


def test_only_changed_verdicts_are_listed_and_the_fourth_outcome_counts_apart(tmp_path):
    same = {"id": "same", "text": "t", "holds": True}
    before = _study(tmp_path / "a", [same, {"id": "moved", "text": "t", "holds": False},
                                     {"id": "gone", "text": "t", "holds": None, "reason": "censored"}])
    after = _study(tmp_path / "b", [same, {"id": "moved", "text": "t", "holds": False, "depends_on": ["optim.lr"],
                                           "note": "depends on optim.lr"},
                                    {"id": "new", "text": "t", "holds": True}])
    lines, old, new = CHANGES(before, after)
    assert lines == ["fig1 moved [paper]: does not hold -> depends on an unstated setting (optim.lr) | depends on "
                     "optim.lr", "fig1 gone [paper]: inconclusive (censored) -> absent",
                     "fig1 new [paper]: absent -> holds"]
    assert len(old) == len(new) == 3
