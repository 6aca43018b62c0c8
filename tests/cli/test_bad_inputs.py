"""Every case of benchmarks/bad_inputs.py (the table of docs/reliability.md), run in-process: the expected
exit code, one `groklab: error:` line and no traceback, nothing left where the case says."""
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
B = runpy.run_path(str(ROOT / "benchmarks" / "bad_inputs.py"))
CASES = B["CASES"]


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad")
    fixture = B["_train_fixture"](root)
    B["_repro_fixture"](root)
    return root, fixture


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_one_line(case, fixtures, monkeypatch):
    monkeypatch.delenv("GROKLAB_ALLOW_LARGE", raising=False)
    r = B["run_case"](case, *fixtures, inproc=True)
    assert r["rc"] == r["expect"], r
    assert r["clean"], r


def test_cases_cover_every_subcommand_and_the_docs_list_them():
    from groklab.cli.parser import parser

    _, subs = parser()
    commands = {c[1][0] for c in CASES if c[1]}
    assert set(subs) <= commands | {"train"}  # resume cases are `train --resume`
    assert len(CASES) >= 250  # the reliability issue's floor
    doc = (ROOT / "docs" / "reliability.md").read_text()
    missing = [c[0] for c in CASES if f"| {c[0]} |" not in doc]
    assert not missing, f"docs/reliability.md lacks {missing}; run: python benchmarks/bad_inputs.py --write ..."


def test_a_refusal_that_changed_or_removed_a_file_is_not_clean(tmp_path, fixtures):
    """The before/after snapshot behind `touched`: a changed or removed file counts, a new one is left to the
    case's `absent` paths, and a recovering case (exit 0) answers only for the user's folder `mine/`."""
    B["setup"](tmp_path, fixtures[1], "run|mine")
    before = B["snapshot"](tmp_path)
    assert "mine/thesis.tex" in before and any(k.startswith("run/") for k in before)
    (tmp_path / "run" / "summary.json").write_text("{}")
    (tmp_path / "mine" / "thesis.tex").unlink()
    (tmp_path / "new.txt").write_text("x")
    after = B["snapshot"](tmp_path)
    assert B["changed"](before, after) == ["mine/thesis.tex", "run/summary.json"]
    assert B["changed"](before, after, mine_only=True) == ["mine/thesis.tex"]
