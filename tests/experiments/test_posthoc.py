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


def test_a_rule_is_dated_against_its_data_and_a_rule_written_after_them_is_marked(monkeypatch):
    from groklab.experiments import posthoc
    from groklab.report import counts

    table = {"embedding": {"fig6": {"x": {"commit": "abc1234", "date": "2026-11-25T09:19:56+00:00",
                                          "how": "named"}}}}
    monkeypatch.setattr(posthoc, "_rules_fixed", lambda: table)
    fixed = lambda first: posthoc.fixed("embedding", "fig6", {"id": "x"}, first)  # noqa: E731
    assert fixed("2026-11-26 05:44:11 UTC")["before_data"] is True
    assert fixed("2026-11-25 08:51:36 UTC") == {"date": "2026-11-25", "commit": "abc1234", "before_data": False,
                                                "how": "named"}
    assert fixed(None)["before_data"] is None  # no session date: cannot tell, never guessed
    unnamed = posthoc.fixed("embedding", "fig6", {"id": "y"}, "2026-11-26 05:44:11 UTC")
    assert unnamed["before_data"] is None and unnamed["how"] == "not yet in a commit"
    revised_claim = {"id": "x", "post_hoc": {"since": "2026-11-28"}}
    assert posthoc.fixed("embedding", "fig6", revised_claim, "2026-11-20 00:00:00 UTC")["before_data"] is False

    after = {**_claim(True).to_dict(), "fixed": fixed("2026-11-25 08:51:36 UTC")}
    ClaimDoc.model_validate(after)
    assert "(post hoc: rule first fixed 2026-11-25, after its data)" in line(after)
    before = {**_claim(True).to_dict(), "fixed": fixed("2026-11-26 05:44:11 UTC")}
    assert "post hoc" not in line(before)
    assert counts([after, before])["post_hoc"] == 1


def test_every_archived_claim_carries_when_its_rule_was_fixed():
    """The back-filled table (benchmarks/rules_fixed.py) names every archived claim, and the archives carry it."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "results"
    undated = [f"{f.parent.parent.name}/{f.parent.name}/{c['id']}"
               for f in sorted(root.glob("*/*/claims.json")) if f.parent.parent.name.split("-")[0] != "grokbench"
               for c in json.loads(f.read_text())["claims"]
               if not (c.get("fixed") or {}).get("date") or (c.get("fixed") or {}).get("before_data") is None
               or not (c.get("fixed") or {}).get("commit")]  # a revised rule too: the commit of its latest change
    assert not undated, undated[:5]


def test_a_revised_rule_is_dated_by_its_latest_change_and_the_commit_that_wrote_it(monkeypatch):
    from groklab.experiments import posthoc

    table = {"revisions": {"judged per dataset": {"commit": "def5678", "date": "2026-12-07T10:00:00+00:00"}}}
    monkeypatch.setattr(posthoc, "_rules_fixed", lambda: table)
    chain = {"id": "x", "post_hoc": {"since": "2026-11-28", "rule": "censor runs; then, 2026-12-07: judged per "
                                     "dataset", "replaced": "r", "verdict": "holds"}}
    assert posthoc.fixed("embedding", "fig4", chain, None) == {"date": "2026-12-07", "commit": "def5678",
                                                               "before_data": False, "how": "revised after its data"}
    sign = {"id": "x", "post_hoc": {"since": "2026-11-26", "rule": posthoc.SIGN_RULE.rule}}
    assert posthoc.fixed("embedding", "fig4", sign, None)["commit"] == "c0bce27"
    unknown = {"id": "x", "post_hoc": {"since": "2026-11-28", "rule": "never committed"}}
    assert posthoc.fixed("embedding", "fig4", unknown, None)["commit"] is None
