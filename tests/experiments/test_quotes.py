"""Every claim's quote is the paper's own text: found verbatim (whitespace and line-break hyphenation aside)
in the paper it cites, with a kind and a place. The papers' texts lie in shared/papers/ beside the checkout."""
import re
from pathlib import Path

import pytest

from groklab.experiments import PAPERS
from groklab.experiments.quotes import KINDS, quotes

PAPERS_DIR = Path(__file__).resolve().parents[3] / "shared" / "papers"
TEXT = {"embedding": "000_", "investigation": "002_", "beyond": "004_"}


def _norm(text: str) -> str:
    """Whitespace collapsed, a word hyphenated across a line break joined, quotes and dashes unified."""
    text = re.sub(r"-\s*\n\s*", "", text)
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", " ", text).strip()


def _paper(package: str) -> str:
    files = sorted(PAPERS_DIR.glob(TEXT[package] + "*.txt"))
    if not files:
        pytest.skip(f"the paper texts are not beside this checkout ({PAPERS_DIR})")
    return _norm(files[0].read_text(encoding="utf-8"))


def _found(quote: str, text: str) -> bool:
    """The quote in the text; a quote the extraction split (a figure caption inside a sentence) is given as its
    fragments joined by ' [...] ', each found verbatim after the one before."""
    at = 0
    for part in quote.split(" [...] "):
        at = text.find(part, at)
        if at < 0:
            return False
        at += len(part)
    return True


@pytest.mark.parametrize("package", sorted(TEXT))
def test_every_quote_is_found_in_its_paper(package):
    table = quotes(package)
    if not table:
        pytest.skip(f"{package}/quotes.yaml not written yet")
    text = _paper(package)
    missing = []
    for study, claims in table.items():
        assert study in PAPERS[package], f"{package}/quotes.yaml names an unknown study {study}"
        for cid, q in claims.items():
            assert q["kind"] in KINDS and q.get("where"), (study, cid)
            assert isinstance(q.get("thresholds", {}), dict), (study, cid)
            if not _found(_norm(q["quote"]), text):
                missing.append(f"{study}/{cid}")
    assert not missing, f"quotes not found verbatim in the paper: {missing}"


def test_the_early_warning_claims_quote_their_papers_verbatim():
    import json

    doc = json.loads((Path(__file__).resolve().parents[2] / "results" / "earlywarn-quick" / "earlywarn" /
                      "claims.json").read_text())
    papers = {"000": "embedding", "004": "beyond"}
    for c in doc["claims"]:
        assert _found(_norm(c["quote"]), _paper(papers[c["where"].split()[0]])), c["id"]


def test_thresholds_read_at_the_level_of_the_study_s_looks():
    """A study judged at its second look holds intervals at 97.5% and p at 0.025: its threshold texts say so."""
    from groklab.experiments.quotes import at_looks

    th = {"(first - last) / first, 95% CI above 0.2": "ours", "one-sided p <= 0.05 (holds)": "ours, a 95% CI"}
    two = at_looks(th, 2)
    assert "(first - last) / first, 97.5% CI above 0.2 (look 2: 0.05 / 2)" in two
    assert two["one-sided p <= 0.025 (holds) (look 2: 0.05 / 2)"] == "ours, a 97.5% CI"
    assert at_looks(th, 1) == th and at_looks({"p <= 0.051": "x"}, 2) == {"p <= 0.051": "x"}
