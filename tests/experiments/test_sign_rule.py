"""The 2026-11-26 change of "does not hold" (posthoc.SIGN_RULE): the builders judge by the replaced rule inside
stats.by_sign, and a study whose data came before the change has every claim it touched marked post hoc, with the
verdict under the replaced rule (recomputed on the same runs) beside it."""
from groklab.experiments import posthoc
from groklab.experiments.claims import time_claim
from groklab.experiments.levels import below, contrast, not_below, trend
from groklab.experiments.posthoc import Revision, revised, sign_rule, signed_before
from groklab.experiments.stats import by_sign, sign_decides

A, B = [100.0, 300.0, 500.0, 700.0], [200.0, 400.0, 450.0, 600.0]  # A slightly later: P(A first) < 1/2, noise


def _both(build):
    today = build()
    with by_sign():
        assert sign_decides()
        old = build()
    assert not sign_decides()
    return today, old


def test_the_replaced_rule_reads_a_point_estimate_on_the_wrong_side_as_does_not_hold():
    t, o = _both(lambda: time_claim("t", "A sooner.", {"all": (A, B)}, ("A", "B"), "t_test"))
    assert t.holds is None and o.holds is False and o.reason == ""
    assert "P <= 1/2" in o.statistic and "opposite order" in t.statistic
    lo, hi = LO, HI
    t, o = _both(lambda: contrast("c", "a above b.", "acc", {"a": lo, "b": hi}, "a", "b", +1))
    assert (t.holds, t.reason) == (None, "underpowered") and (o.holds, o.reason) == (False, "")
    t, o = _both(lambda: not_below("n", "a not below b.", "acc", {"a": lo, "b": hi}, "a", "b", margin=0.005))
    assert t.holds is None and o.holds is False
    cells = {"x1": [0.5, 0.6, 0.4], "x2": [0.45, 0.55, 0.5], "x3": [0.4, 0.6, 0.45]}
    t, o = _both(lambda: trend("r", "rises.", "acc", cells, {"x1": 1, "x2": 2, "x3": 3}, +1))
    assert t.holds is None and o.holds is False
    t, o = _both(lambda: below("b", "below 0.5.", "acc", {"c": [0.45, 0.52, 0.56]}, ["c"], 0.5))
    assert t.holds is None and o.holds is False and "mean of c is not below" in o.note
    t, o = _both(lambda: time_claim("h", "B sooner.", {"all": ([10.0, 20.0, 30.0, 40.0], [50.0, 60.0, 70.0, 80.0])},
                                    ("A", "B"), "t_test"))
    assert t.holds is True and o.holds is True  # evidence for the claim: both rules agree


def _table(monkeypatch, date="2026-11-23T10:00:00+00:00"):
    monkeypatch.setattr(posthoc, "_rules_fixed", lambda: {"embedding": {"fig4": {
        "t": {"commit": "abc1234", "date": date, "how": "named"}}}})


LO, HI = [0.50, 0.52, 0.49, 0.51], [0.50, 0.51, 0.52, 0.53]  # a below b by a hair, CI over 0


def _pair(lo=LO):
    return _both(lambda: contrast("t", "a above b.", "acc", {"a": lo, "b": HI}, "a", "b", +1))


def test_a_touched_claim_of_data_before_the_change_is_marked_with_the_replaced_verdict(monkeypatch):
    _table(monkeypatch)
    assert signed_before("2026-11-25 08:51:36 UTC") and not signed_before("2026-11-26 17:00:00 UTC")
    assert not signed_before(None)
    today, old = _pair()
    c = sign_rule("embedding", "fig4", [today], [old])[0]
    assert c.post_hoc["since"] == "2026-11-26" and c.post_hoc["verdict"] == "does not hold"
    assert "under the rule it replaced" in c.note and "it does not hold" in c.note


def test_a_rule_named_after_the_change_or_a_claim_it_never_touched_carries_no_mark(monkeypatch):
    _table(monkeypatch, date="2026-11-27T10:00:00+00:00")  # a rule first written under today's rule
    today, old = _pair()
    assert not sign_rule("embedding", "fig4", [today], [old])[0].post_hoc
    _table(monkeypatch)
    same, _ = _pair([0.6, 0.61, 0.62, 0.63])
    assert not sign_rule("embedding", "fig4", [same], [same])[0].post_hoc  # read alike both ways
    assert not sign_rule("embedding", "fig4", [today], [])[0].post_hoc  # no reverted judgement: nothing to show


def test_a_later_revision_joins_the_change_in_date_order_with_the_verdict_under_both_replaced_rules(monkeypatch):
    _table(monkeypatch)
    later = Revision("2026-12-07", "judged per dataset", "judged on every dataset", "a fresh read")
    today, old = _pair()
    first = contrast("t", "a above b.", "acc", {"a": HI, "b": LO}, "a", "b", +1)  # what the first rule read
    with by_sign():
        first_old = contrast("t", "a above b.", "acc", {"a": LO, "b": HI}, "a", "b", +1).inconclusive("precondition",
                                                                                                     "x")
    today, old = revised(today, first, later), revised(old, first_old, later)
    c = sign_rule("embedding", "fig4", [today], [old])[0]
    assert c.post_hoc["since"] == "2026-11-26"
    assert c.post_hoc["rule"].startswith("'does not hold' only on evidence") and "then, 2026-12-07: judged per" \
        in c.post_hoc["rule"]
    assert c.post_hoc["verdict"] == "inconclusive (precondition)"  # both replaced rules: the reverted pass's first
    assert "a fresh read" in c.post_hoc["why"] and "20% of one-cell" in c.post_hoc["why"]
