"""Sensitivity arms: a study's runs trained again with the other plausible value of a setting its paper does not
state, and each verdict combined with the arm's (experiments/assumptions.py)."""
import types
from pathlib import Path

import pytest
import yaml

from conftest import tiny
from groklab.experiments.archive import archive
from groklab.experiments.assumptions import (
    Assumption,
    arm_of,
    combine,
    complete_arms,
    keeps,
    split_arms,
)
from groklab.experiments.runner import run_figure, specs_of
from groklab.experiments.spec import Claim, RunSpec, seed_of
from groklab.report import arm_value, counts, headline, verdict

LR = Assumption("lr", "optim.lr", "0.01", "unstated", other="0.001")


def claim(holds, reason="", note=""):
    c = Claim("c", "text", "rule", {"a": [1.0]}, {"mean": 1.0}, bool(holds))
    return c.inconclusive(reason, note) if holds is None else c


def test_same_verdict_stands_and_says_so():
    other = Claim("c", "text", "rule", {"a": [2.0]}, {"mean": 2.0}, True)
    c = combine(claim(True), other, LR)
    assert c.holds is True and not c.depends_on and "the same with optim.lr=0.001" in c.note
    assert c.sensitivity["optim.lr"]["verdict"] == "holds"
    # an arm that gives the claim its very values (its cells untrained there, or values the setting cannot move,
    # as an init read at step 0): said so, not "the same"
    same = combine(claim(True), claim(True), LR)
    assert "optim.lr" not in same.note  # said in sensitivity only, and as no test of the claim
    assert same.sensitivity["optim.lr"]["verdict"].startswith("not tested: the arm moves none of this claim's")
    # both undecided alike: the arm supports nothing
    both = combine(claim(None, "censored"), Claim("c", "t", "r", {"a": [3.0]}, {}, None, reason="censored"), LR)
    assert "also inconclusive (censored): neither value decides it (the arm's values where they differ from ours: " \
           "a 3)" in both.note, both.note
    # up to five seeds each said (a range would hide the one outlier), more as a range
    few = combine(claim(None, "censored"), Claim("c", "t", "r", {"a": [0.95, 0.27, 0.94]}, {}, None,
                                                 reason="censored"), LR)
    assert "a 0.95, 0.27, 0.94)" in few.note, few.note
    many = combine(claim(None, "censored"), Claim("c", "t", "r", {"a": [0.1 * k for k in range(1, 8)]}, {}, None,
                                                  reason="censored"), LR)
    assert "a 0.1-0.7)" in many.note, many.note


def test_different_decided_verdicts_keep_ours_and_mark_the_dependence():
    c = combine(claim(False), claim(True), LR)
    assert c.holds is False and c.depends_on == ["optim.lr"]
    assert "depends on optim.lr: with 0.001 it holds" in c.note
    assert verdict(c.to_dict()) == c.to_dict()["verdict"] == "depends on an unstated setting (optim.lr)"
    # the fourth outcome of a headline: counted neither among the claims that hold nor those that do not
    held = {**claim(True).to_dict(), "id": "h"}
    assert counts([c.to_dict(), held])["depends"] == 1 and counts([c.to_dict(), held])["fails"] == 0
    assert headline([c.to_dict(), held]) == "1 of 2 paper claims hold, 0 do not, 1 depend on an unstated setting"


def test_a_failed_precondition_is_judged_on_the_arm_that_meets_it():
    ours = claim(None, "precondition", "setup X never fits its training set")
    alt = Claim("c", "text", "rule", {"a": [2.0]}, {"mean": 2.0}, True)
    c = combine(ours, alt, LR)
    assert c.holds is True and c.per_seed == {"a": [2.0]}  # the arm's evidence decides, and is shown
    assert c.sensitivity["optim.lr"]["per_seed"] == {"a": [1.0]}  # ours kept beside it
    assert c.note.startswith("judged with optim.lr=0.001 (its runs meet the precondition); with our 0.01: setup X")
    assert c.sensitivity["optim.lr"]["at"] == "0.01" and c.sensitivity["optim.lr"]["judged_with"] == "0.001"
    assert verdict(c.to_dict()) == "holds (judged with optim.lr=0.001)"


@pytest.mark.parametrize("reason", ["censored", "underpowered"])
def test_other_inconclusive_verdicts_are_not_replaced_by_the_arm(reason):
    c = combine(claim(None, reason, "why"), claim(False), LR)
    assert c.holds is None and c.reason == reason and not c.depends_on
    assert c.note == "why; with optim.lr=0.001: does not hold"


def test_a_claim_without_arm_has_no_sensitivity_keys():
    assert "sensitivity" not in claim(True).to_dict() and "depends_on" not in claim(True).to_dict()


def test_arm_names_and_split():
    import pandas as pd

    assert arm_of("arm-lr/x/s0") == "lr" and arm_of("x/s0") is None and arm_of("arm-lr") is None
    df = pd.DataFrame({"run": ["x/s0", "arm-lr/x/s0", "arm-lr/y/s1"], "step": [0, 0, 0]})
    own, arms = split_arms(df)
    assert own["run"].tolist() == ["x/s0"] and arms["lr"]["run"].tolist() == ["x/s0", "y/s1"]


def test_an_arm_is_used_whole_at_the_studys_seeds_at_fewer_or_not_at_all():
    names = [f"{arm}x/s{s}" for arm in ("", "arm-lr/", "arm-wd/", "arm-c/") for s in range(5)] + ["arm-c/y"]
    cut = complete_arms(names, ["arm-lr/x/s3", "arm-lr/x/s4", "arm-wd/x/s1", "arm-c/y"])
    assert cut == {"lr": 3, "wd": None, "c": None}  # wd: 1 seed is too few; c: a run without a seed
    assert [n for n in names if keeps(cut, n)] == [f"x/s{s}" for s in range(5)] + [f"arm-lr/x/s{s}" for s in range(3)]
    assert complete_arms(names, []) == {} and all(keeps({}, n) for n in names)
    assert seed_of("a/b/s12") == 12 and seed_of("a/b") is None and seed_of("s3") is None


def test_an_arm_whole_at_fewer_seeds_than_the_study_is_judged_at_its_own(tmp_path):
    """A study taken to 4 seeds beside its arm left at 3 (an arm's seeds are what a GPU call could afford):
    re-judged from the archive, the arm is judged on its 3 seeds, the study's runs it borrows at those 3,
    and the claim says so."""
    seen, quiet = [], {"echo": lambda *_: None}
    m = _study()
    base = m.analyze

    def analyze(df, out, profile):
        seen.append(sorted(set(df["run"])))
        return base(df, out, profile)
    m.analyze = analyze
    run_figure(m, tmp_path / "t", seeds=3, **quiet)
    run_figure(m, tmp_path / "t", seeds=4, only="x/*", **quiet)
    arch = Path(archive(tmp_path / "t", tmp_path / "res", command="test")["path"])
    seen.clear()
    doc = run_figure(m, tmp_path / "j", seeds=4, source=arch / "fake", **quiet)
    assert seen == [[f"x/s{s}" for s in range(4)], [f"x/s{s}" for s in range(3)]]
    (c,) = doc["claims"]
    assert c["holds"] is True and c["depends_on"] == ["optim.lr"]
    assert c["sensitivity"]["optim.lr"]["seeds"] == 3 and "with 0.001 (its arm at 3 seeds) it" in c["note"]
    assert set(doc["health"]) == {f"x/s{s}" for s in range(4)} | {f"arm-lr/x/s{s}" for s in range(3)}


def _study(profiles=("quick", "paper")):
    """A study whose one claim holds when its runs trained at lr 0.01 and fails otherwise."""
    m = types.ModuleType("groklab.experiments.embedding.fake")
    m.NAME, m.TITLE, m.PAPER = "fake", "a fake study", "nothing"
    m.ASSUMPTIONS = [Assumption("lr", "optim.lr", "0.01", "unstated", other="0.001", profiles=profiles)]
    m.runs = lambda profile, seeds: [RunSpec(f"x/s{s}", tuple(tiny(seed=s, **{"optim.lr": 0.01})))
                                     for s in range(seeds)]

    def analyze(df, out, profile):
        lrs = sorted(set(df["optim.lr"]))
        return [], [Claim("lr_is_ours", "trained at 0.01", "optim.lr", {"lr": lrs}, {}, lrs == [0.01])]
    m.analyze = analyze
    return m


def test_a_study_trains_its_arm_and_judges_the_dependence(tmp_path):
    m = _study()
    assert [s.name for s in specs_of(m, "quick", 2)] == ["x/s0", "x/s1", "arm-lr/x/s0", "arm-lr/x/s1"]
    doc = run_figure(m, tmp_path, seeds=2, echo=lambda *_: None)
    assert set(doc["health"]) == {"x/s0", "x/s1", "arm-lr/x/s0", "arm-lr/x/s1"}
    (c,) = doc["claims"]
    assert c["holds"] is True and c["depends_on"] == ["optim.lr"]
    assert c["sensitivity"]["optim.lr"]["verdict"] == "does not hold"
    arm_cfg = yaml.safe_load((tmp_path / "fake" / "arm-lr" / "x" / "s0" / "config.yaml").read_text())
    assert arm_cfg["optim"]["lr"] == 0.001 and arm_cfg["seed"] == 0
    assert doc["assumptions"] == [{"name": "lr", "field": "optim.lr", "ours": "0.01", "why": "unstated",
                                   "other": "0.001", "extra": [], "arm": "arm-lr", "in_runs": "0.01"}]


def test_an_arm_runs_only_at_its_profiles(tmp_path):
    assert len(specs_of(_study(profiles=("paper",)), "quick", 2)) == 2
    assert len(specs_of(_study(profiles=("paper",)), "paper", 2)) == 4


def test_an_arm_retrains_only_the_runs_its_field_changes_and_borrows_the_rest(tmp_path):
    seen = []
    m = _study()
    m.ASSUMPTIONS = [Assumption("lr", "optim.lr", "0.01", "unstated", other="0.001", extra=("steps=3",), only="y")]
    m.runs = lambda profile, seeds: [RunSpec(f"{k}/s{s}", tuple(tiny(seed=s, **{"optim.lr": 0.01})))
                                     for k in ("x", "y") for s in range(seeds)]
    base = m.analyze

    def analyze(df, out, profile):
        seen.append(sorted(zip(df.drop_duplicates("run")["run"], df.drop_duplicates("run")["optim.lr"])))
        return base(df, out, profile)
    m.analyze = analyze
    assert [s.name for s in specs_of(m, "quick", 1)] == ["x/s0", "y/s0", "arm-lr/y/s0"]
    doc = run_figure(m, tmp_path, seeds=1, echo=lambda *_: None)
    assert seen == [[("x/s0", 0.01), ("y/s0", 0.01)], [("x/s0", 0.01), ("y/s0", 0.001)]]  # x borrowed, once
    arm_cfg = yaml.safe_load((tmp_path / "fake" / "arm-lr" / "y" / "s0" / "config.yaml").read_text())
    assert arm_cfg["optim"]["lr"] == 0.001 and arm_cfg["steps"] == 3
    assert doc["claims"][0]["sensitivity"]["optim.lr"]["other"] == "0.001 steps=3"
    assert doc["assumptions"][0]["extra"] == ["steps=3"]
    assert arm_value(doc["assumptions"][0]) == "0.001 steps=3"  # the report's and docs' "also run with"
    assert arm_value({"other": "decoupled"}) == "decoupled"  # an archive judged before `extra` was stored


def test_every_paper_000_study_declares_its_unstated_settings_on_real_config_fields():
    from groklab.config import make_config
    from groklab.experiments import PAPERS

    cfg = make_config().to_dict()
    for name, m in PAPERS["embedding"].items():
        assert m.ASSUMPTIONS, name
        for a in m.ASSUMPTIONS:
            node = cfg
            for part in a.field.split("."):
                assert isinstance(node, dict) and part in node, (name, a.field)
                node = node[part]
            assert a.why and a.ours, (name, a.name)
            if a.other is not None:  # an arm's value is a valid override
                make_config([f"{a.field}={a.other}"])


def test_an_arm_too_thin_to_judge_is_kept_when_the_re_judged_tree_is_archived(tmp_path):
    """An arm at 2 seeds beside a study at 4 is judged without (fewer than MIN_ARM_SEEDS), but its archived runs
    are laid out with the rest, so archiving the re-judged tree (the merge recipe) does not lose them."""
    from groklab.store.archive import archived_runs

    quiet = {"echo": lambda *_: None}
    m = _study()
    run_figure(m, tmp_path / "t", seeds=2, **quiet)
    run_figure(m, tmp_path / "t", seeds=4, only="x/*", **quiet)
    arch = Path(archive(tmp_path / "t", tmp_path / "res", command="test")["path"])
    doc = run_figure(m, tmp_path / "j", seeds=4, source=arch / "fake", **quiet)
    assert doc["claims"][0]["sensitivity"]["optim.lr"]["verdict"].startswith("not judged")
    assert set(doc["health"]) == {f"x/s{s}" for s in range(4)}
    again = Path(archive(tmp_path / "j", tmp_path / "res2", command="test")["path"])
    assert {r["run"] for r in archived_runs(again / "fake")} == {f"x/s{s}" for s in range(4)} | {"arm-lr/x/s0",
                                                                                                "arm-lr/x/s1"}


def test_an_assumption_reports_the_value_its_runs_used():
    """The report's 'ours' is what the study's own runs used (a quick profile's lr, not the paper's), arms aside;
    a field no run records says nothing."""
    import pandas as pd

    from groklab.experiments.runner import in_runs

    df = pd.DataFrame({"run": ["add/s0", "add/s1", "arm-lr/add/s0"], "optim.lr": [0.01, 0.01, 0.001],
                       "optim.wd_mode": [None, None, "decoupled"]})
    assert in_runs(df, "optim.lr") == "0.01"
    assert in_runs(df, "optim.wd_mode") is None and in_runs(df, "model.depth") is None
    df.loc[1, "optim.lr"] = 0.003
    assert in_runs(df, "optim.lr") == "0.003, 0.01"
    df["optim.lr"] = [30.0, 3.0, 1.0]
    assert in_runs(df, "optim.lr") == "3, 30"  # numbers in numeric order
    assert in_runs(pd.DataFrame(), "optim.lr") is None


def test_an_arm_that_reverses_what_our_trained_setups_show_makes_the_claim_depend():
    from groklab.experiments.assumptions import TRAINED, Assumption, combine
    from groklab.experiments.spec import Claim

    a = Assumption("lr", "optim.lr", "0.01", "why", other="0.001")
    ours = Claim("x", "t", "s", {}, {TRAINED: "holds"}, True).inconclusive("precondition", "a setup never fits")
    alt = Claim("x", "t", "s", {"g": [1]}, {}, False)
    c = combine(ours, alt, a)
    assert c.holds is False and c.depends_on == ["optim.lr"] and c.post_hoc["verdict"] == "does not hold"
    plain = Claim("x", "t", "s", {}, {}, True).inconclusive("precondition", "a setup never fits")
    c2 = combine(plain, Claim("x", "t", "s", {"g": [1]}, {}, False), a)  # nothing of ours decided: judged on the arm
    assert c2.holds is False and not c2.depends_on and not c2.post_hoc
