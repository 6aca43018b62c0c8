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
