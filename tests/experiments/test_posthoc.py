"""experiments/posthoc.py: a rule changed after its data is marked in claims.json and in every citable line, with
the verdict the replaced rule gives on the same runs; a rule fixed in advance carries no mark."""
from groklab.experiments.posthoc import Revision, revised
from groklab.experiments.spec import Claim
from groklab.store.citation import line
from groklab.store.schema import ClaimDoc

REV = Revision("2026-11-28", "censor runs still rising", "a run below the level fails", "a read of the verdicts")


def _claim(holds, reason=""):
    c = Claim("x", "X reaches 0.95.", "rule", {"g": [0.5]}, {"min": 0.5}, bool(holds))
    return c.inconclusive(reason, "a seed cannot tell") if holds is None else c


def test_a_revised_rule_is_marked_with_the_replaced_verdict_beside_it():
    c = revised(_claim(None, "censored"), _claim(False), REV)
    d = c.to_dict()
    assert d["post_hoc"] == {"since": "2026-11-28", "rule": "censor runs still rising",
                             "replaced": "a run below the level fails", "verdict": "does not hold",
                             "why": "a read of the verdicts"}
    assert "under the rule it replaced (a run below the level fails) it does not hold" in d["note"]
    ClaimDoc.model_validate(d)  # the archive schema takes it
    assert line(d).startswith("inconclusive (censored) (post hoc since 2026-11-28; under the replaced rule: "
                              "does not hold) | ")


def test_the_same_verdict_under_both_rules_is_still_marked_and_a_fixed_rule_is_not():
    same = revised(_claim(True), _claim(True), REV).to_dict()
    assert same["post_hoc"]["verdict"] == "holds" and "post hoc" not in same["note"]
    assert "(post hoc since 2026-11-28; under the replaced rule: holds)" in line(same)
    plain = _claim(True).to_dict()
    assert "post_hoc" not in plain and "post hoc" not in line(plain)
