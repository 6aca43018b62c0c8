"""store/citation.py: one citable line per claim, numbers as a reader cites them."""
import json
import re
from pathlib import Path

import pytest

from groklab.store.citation import line, number, statistics

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("x, text", [(4.999750012499375e-05, "5e-05"), (0.6383333333333333, "0.638"), (737.0, "737"),
                                     (30, "30"), (12345.678, "1.23e+04"), (True, "yes"), (float("nan"), "nan"),
                                     (-0.00123456, "-0.00123"), (2.5e6, "2.5e+06")])
def test_numbers_to_three_significant_digits(x, text):
    assert number(x) == text


def test_a_cell_reads_as_cited_medians_with_intervals_and_n_per_arm():
    agg = {"mul": {"P(adam_lr first)": 0.825, "p": 4.999750012499375e-05, "n": [30, 30],
                   "median adam_lr": [1000.0, 850.0, 1100.0], "open pairs": 1}, "verdict at test acc 0.95": "holds"}
    assert statistics(agg) == ("mul: P(adam_lr first) = 0.825, p = 5e-05, n = 30/30, median adam_lr = 1000 [850, "
                               "1100], open pairs = 1; verdict at test acc 0.95 = holds")
    c = {"holds": None, "reason": "underpowered", "kind": "measurement", "where": "§5.2, Fig. 6",
         "text": "Adam-LR groks mul sooner.", "aggregate": agg}
    assert line(c, "000").startswith("inconclusive (underpowered) (measurement) | 000 §5.2, Fig. 6 | Adam-LR groks mul")
    deep = {"a": {"b": [[[[[[1]]]]]]}}
    assert "…" in statistics(deep)  # a forged document cannot nest without end


def test_no_archived_verdict_prints_a_float_with_eight_decimals():
    """Over every claim of every archive: the printed line never shows a raw float repr."""
    files = sorted(ROOT.glob("results/*/*/claims.json"))
    assert files
    for f in files:
        doc = json.loads(f.read_text())
        for c in doc["claims"]:
            text = line(c, doc.get("source"))
            assert not re.search(r"\d\.\d{8,}", text), (f, c["id"], text[:200])
            assert "{'" not in text and "': " not in text, (f, c["id"])  # no Python dict repr
