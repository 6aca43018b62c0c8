"""Readings of our analysis weighed on the same runs (experiments/choices.py): a verdict one plausible reading does not
reproduce depends on it, marked post hoc with our reading's verdict beside."""
from groklab.experiments.choices import READINGS, weigh
from groklab.experiments.claims import time_claim
from groklab.experiments.embedding import fig10
from groklab.experiments.posthoc import Revision, revised
from groklab.experiments.spec import Claim

N = None


def _c(holds, reason="", **kw):
    return Claim("x", "A holds.", "stat", {"g": [1, 2]}, {}, holds, reason=reason, **kw)


def test_a_reading_that_decides_otherwise_makes_the_verdict_depend_on_it():
    c = weigh(_c(False), "bar", "0.5", {"0": _c(True), "0.3": _c(False)})
    d = c.to_dict()
    assert d["verdict"] == "depends on an unstated setting (bar)" and c.depends_on == ["bar"]
    assert d["sensitivity"]["bar=0"]["verdict"] == "holds" and d["sensitivity"]["bar=0.3"]["verdict"] == "does not hold"
    assert c.post_hoc["since"] == READINGS.since and c.post_hoc["verdict"] == "does not hold"  # ours alone beside
    assert "with 0: holds" in c.note


def test_an_undecided_reading_rescues_nothing_and_agreement_changes_nothing():
    c = weigh(_c(False), "rank definition", "rtol1e-4", {"stable": _c(None, "underpowered")})
    assert c.to_dict()["verdict"] == "does not hold" and not c.depends_on and not c.post_hoc
    assert "with stable: inconclusive (underpowered)" in c.note and "stable" in c.sensitivity.__repr__()
    same = weigh(_c(True), "rank definition", "rtol1e-4", {"stable": _c(True)})
    assert same.holds is True and not same.depends_on and not same.post_hoc and "the same under every" in same.note
    # undecided under ours: nothing of ours decided it, the other reading is said, not weighed in
    open_ = weigh(_c(None, "censored"), "bar", "0.5", {"0": _c(True)})
    assert open_.holds is None and not open_.depends_on and not open_.post_hoc and "with 0: holds" in open_.note


def test_a_second_change_keeps_the_first_replaced_rule():
    first = Revision("2026-11-28", "rule B", "rule A")
    c = revised(_c(False), _c(True), first)
    c = weigh(c, "bar", "0.5", {"0": _c(True)})
    assert c.post_hoc["since"] == "2026-11-28" and c.post_hoc["replaced"] == "rule A"
    assert c.post_hoc["verdict"] == "holds" and "then, 2026-12-06" in c.post_hoc["rule"]


def test_a_time_claim_that_the_other_threshold_reverses_depends_on_it():
    sep = {"add": ([100, 110, 120, 130, 140], [500, 510, 520, 530, 540])}  # every A first: holds at 0.99
    flip = {"add": ([500, 510, 520, 530, 540], [100, 110, 120, 130, 140])}  # every B first at 0.95
    mixed = {"add": ([100, 510, 120, 530, 140], [500, 110, 520, 130, 540])}  # no order at 0.95
    c = time_claim("x", "A is faster.", sep, ("a", "b"), "t_test at 0.99", {"test acc 0.95": flip})
    d = c.to_dict()
    assert d["verdict"] == "depends on an unstated setting (accuracy threshold)"
    assert d["sensitivity"]["accuracy threshold=test acc 0.95"]["verdict"] == "does not hold"
    assert c.post_hoc["verdict"] == "holds"
    stands = time_claim("x", "A is faster.", sep, ("a", "b"), "t", {"test acc 0.95": mixed})
    assert stands.holds is True and not stands.depends_on and "inconclusive (underpowered)" in stands.note


def test_fig10_paper_claims_weigh_the_other_rank_definitions():
    def claim(d, holds):
        return Claim(f"rank_E_stable[{d}]", "E stable.", "s", {}, {}, holds, reason="" if holds is not None else
                     "underpowered")
    judged = [claim("rtol1e-4", True), claim("rtol1e-2", False), claim("rtol1e-3", False), claim("stable", True)]
    out = {c.id: c for c in fig10.readings(judged)}
    ours = out["rank_E_stable[rtol1e-4]"]
    assert ours.depends_on == ["rank definition"] and set(ours.sensitivity) == {
        "rank definition=rtol1e-2", "rank definition=rtol1e-3", "rank definition=stable"}
    assert not out["rank_E_stable[stable]"].depends_on  # the measurements are left as they are
