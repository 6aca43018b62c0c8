"""What each claim rests on: the paper's sentence verbatim, where it stands, and whether it is the paper's.

Each paper package (embedding/, beyond/, investigation/) keeps a `quotes.yaml`:

    fig6:                                   # the study
      adam_lr_faster_add:                   # the claim id
        kind: paper                         # paper: the paper says it; measurement: our own check
        where: "§5.2, Fig. 6"
        quote: "..."                        # verbatim (whitespace and hyphenation may differ)
        thresholds:                         # every number of the decision rule, with its source
          ratio CI above 1: "our reading: 'significantly faster' as a 95% interval"

`cite` adds these fields to a claims.json document; a measurement is reported beside the paper's claims and
never counted among them. tests/experiments/test_quotes.py finds every quote in its paper's text.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml

KINDS = ("paper", "measurement")


@lru_cache(maxsize=None)
def quotes(package: str) -> dict:
    """{study: {claim id: entry}} of a paper package ('embedding', 'beyond', 'investigation'); {} without a file."""
    f = Path(__file__).parent / package / "quotes.yaml"
    return (yaml.safe_load(f.read_text(encoding="utf-8")) or {}) if f.is_file() else {}


def cite(package: str, doc: dict, first_data: str | None = None) -> dict:
    """claims.json content with each claim's `kind`, `quote`, `where` and `thresholds` filled from quotes.yaml
    (kind 'paper' and no quote when the file does not name the claim yet), when its rule was `fixed` and whether
    before the study's data (`first_data`: the first session that trained its runs), and the paper's short id as
    `source` (what every verdict line cites: store/citation.py). A claim whose rule was fixed after its data
    says "(post hoc)" in its `verdict` too."""
    from groklab.experiments.papers import REFERENCES
    from groklab.experiments.posthoc import fixed
    from groklab.store.citation import POST_HOC, after_data

    table = quotes(package).get(doc["figure"], {})
    n = len(doc.get("looks") or []) or 1
    claims = []
    for c in doc["claims"]:
        q = table.get(c["id"], {})
        entry = {**c, "kind": q.get("kind", "paper"), "quote": q.get("quote"), "where": q.get("where"),
                 "thresholds": at_looks(q.get("thresholds", {}), n),
                 "fixed": fixed(package, doc["figure"], c, first_data)}
        if after_data(entry) and "verdict" in entry:  # the verdict itself says its rule came after its data
            entry["verdict"] += POST_HOC
        claims.append(entry)
    return {**doc, "source": REFERENCES[package]["id"], "claims": claims}


def at_looks(thresholds: dict, n: int) -> dict:
    """quotes.yaml's threshold texts at the level the verdicts were held to: a study judged at its n-th look holds
    every interval at 1 - 0.05 / n and every p to 0.05 / n (stats.alpha), so "95% CI" and "p <= 0.05" read so
    there (a twentieth read: thresholds said 95% where the statistic used 97.5%)."""
    if n <= 1:
        return dict(thresholds)
    level, bar = f"{100 * (1 - 0.05 / n):.4g}%", f"{0.05 / n:.3g}"

    def fix(text):
        if not isinstance(text, str):
            return text
        return re.sub(r"p <= 0\.05\b", f"p <= {bar}", text.replace("95% CI", f"{level} CI").replace(
            "95% bootstrap CI", f"{level} bootstrap CI"))
    said = f" (look {n}: 0.05 / {n})"
    return {fix(k) + (said if fix(k) != k else ""): fix(v) for k, v in thresholds.items()}

