"""Controls: runs that must show the phenomenon before the claims resting on them are judged
(experiments/controls.py)."""
import types

import pandas as pd
import pytest
import yaml

from conftest import tiny
from groklab.experiments.controls import Control, apply, check
from groklab.experiments.runner import run_figure, specs_of
from groklab.experiments.spec import PROFILES, Claim, RunSpec

BASE = Control("base/*", "the baseline", 0.99, spare=("base_groks",))


def rows(best: dict[str, float]) -> pd.DataFrame:
    """Two evals per run, the second at its highest test accuracy."""
    return pd.DataFrame([{"run": r, "step": s, "test/acc": v * s / 2} for r, v in best.items() for s in (1, 2)])


def claims():
    return [Claim("base_groks", "t", "s", holds=False), Claim("a_before_b", "t", "s", holds=True),
            Claim("underpowered", "t", "s").inconclusive("underpowered", "n = 3")]


def test_a_control_that_shows_the_phenomenon_leaves_every_verdict():
    out, (got,) = apply(types.SimpleNamespace(CONTROLS=[BASE]), rows({"base/s0": 1.0, "base/s1": 0.995}), claims())
    assert [c.holds for c in out] == [False, True, None] and got["ok"] and got["short"] == []
    assert got["best"] == {"base/s0": 1.0, "base/s1": 0.995}


def test_one_control_run_short_of_reach_makes_the_resting_claims_inconclusive_not_false():
    df = rows({"base/s0": 1.0, "base/s1": 0.93, "other/s0": 0.2})
    out, (got,) = apply(types.SimpleNamespace(CONTROLS=[BASE]), df, claims())
    spared, resting, weak = out
    assert spared.holds is False and spared.reason == ""  # the claim about the control is judged as usual
    assert resting.holds is None and resting.reason == "precondition"
    assert "the baseline never reached test accuracy 0.99 in base/s1 (highest 0.930)" in resting.note
    assert "(read without it: holds)" in resting.note
    assert weak.reason == "precondition" and weak.note.startswith("n = 3")  # a stronger reason than its own
    assert got == {"what": "the baseline", "runs": "base/*", "reach": 0.99, "best": {"base/s0": 1.0, "base/s1": 0.93},
                   "short": ["base/s1"], "ok": False}


def test_a_control_with_no_run_is_not_shown():
    got = check(BASE, rows({"other/s0": 1.0}))
    assert got["ok"] is False and got["best"] == {}
    out, _ = apply(types.SimpleNamespace(CONTROLS=[BASE]), pd.DataFrame(), claims())
    assert "in any run (none trained)" in out[1].note


def curve(fit: int, hit: int | None, last: int = 40) -> list[dict]:
    """Evals every step to `last`: training accuracy 1 from `fit` on, test accuracy 1 from `hit` on (None: never)."""
    return [{"step": s, "train/acc": float(s >= fit), "test/acc": float(hit is not None and s >= hit)}
            for s in range(1, last + 1)]


def test_a_grokking_control_must_generalize_long_after_it_fits():
    groks = Control("base/*", "the baseline", 0.99, spare=("base_groks",), delay=3)
    df = pd.DataFrame([{"run": run, **r} for run, (fit, hit) in {"base/s0": (5, 30), "base/s1": (10, 30)}.items()
                       for r in curve(fit, hit)])
    got = check(groks, df)
    assert got["ok"] and got["ratio"] == {"base/s0": 6.0, "base/s1": 3.0} and got["delay"] == 3
    # ordinary learning: test accuracy reaches 0.99 just after the fit (1.2x) -- it reached, but did not grok
    late = pd.DataFrame([{"run": run, **r} for run, (fit, hit) in {"base/s0": (5, 30), "base/s1": (25, 30),
                                                                   "base/s2": (99, 30)}.items()
                         for r in curve(fit, hit)])
    out, (got,) = apply(types.SimpleNamespace(CONTROLS=[groks]), late, claims())
    assert got["short"] == ["base/s1", "base/s2"] and got["ratio"]["base/s2"] is None and not got["ok"]
    assert out[1].holds is None and out[1].reason == "precondition"
    assert ("did not grok (test accuracy 0.99 at least 3x the steps to fit the training set) in base/s1 "
            "(t_test / t_train 1.2), base/s2 (never fit)") in out[1].note
    assert out[0].holds is False  # the claim about the control itself is judged as usual
    assert check(BASE, late)["ok"] and "ratio" not in check(BASE, late)  # reaching suffices without a delay


def test_rests_limits_the_claims_a_control_decides():
    only = Control("base/*", "the baseline", rests=("a_before_b",))
    out, _ = apply(types.SimpleNamespace(CONTROLS=[only]), rows({"base/s0": 0.5}), claims())
    assert [c.reason for c in out] == ["", "precondition", "underpowered"]


def test_the_runner_writes_the_check_and_judges_each_arm_with_it(tmp_path):
    m = types.ModuleType("groklab.experiments.embedding.fake")
    m.NAME, m.TITLE, m.PAPER = "fake", "a fake study", "nothing"
    m.CONTROLS = [Control("x/*", "run x", reach=1.01)]  # no run can reach it
    m.runs = lambda profile, seeds: [RunSpec("x/s0", tuple(tiny()))]
    m.analyze = lambda df, out, profile: ([], [Claim("c", "t", "s", holds=True)])
    doc = run_figure(m, tmp_path, seeds=1, echo=lambda *_: None)
    assert doc["claims"][0]["verdict"] == "inconclusive (precondition)"
    assert doc["controls"][0]["short"] == ["x/s0"] and doc["controls"][0]["ok"] is False
    from groklab.report import write_report
    assert "Controls" in write_report(tmp_path).read_text()


def _paper_claims(paper: str) -> dict:
    from pathlib import Path

    import groklab.experiments as ex
    return yaml.safe_load((Path(ex.__file__).parent / paper / "quotes.yaml").read_text())


@pytest.mark.parametrize("paper", ["beyond", "investigation"])
def test_every_declared_control_matches_runs_and_names_real_claims(paper):
    from groklab.experiments import PAPERS

    quotes = _paper_claims(paper)
    declared = 0
    for name, m in PAPERS[paper].items():
        for c in getattr(m, "CONTROLS", ()):
            declared += 1
            ids = set(quotes[name])
            assert set(c.spare) <= ids and set(c.rests or ()) <= ids, (name, c)
            for profile in PROFILES:
                names = [s.name for s in specs_of(m, profile, 1)]
                assert any(c.matches(n) for n in names), (name, profile, c.runs)
    assert declared >= 6


def test_every_study_follows_the_study_protocol():
    """experiments/__init__.py's protocol: NAME (its key), TITLE, PAPER, runs(profile, seeds[, p]) and
    analyze(df, out, profile); ASSUMPTIONS and CONTROLS typed; 002's and 004's docstrings list their differences
    from the paper and its released code."""
    import inspect

    from groklab.experiments import PAPERS
    from groklab.experiments.assumptions import Assumption

    for paper, figs in PAPERS.items():
        for name, m in figs.items():
            assert m.NAME == name and m.TITLE.strip() and m.PAPER.strip(), name
            assert list(inspect.signature(m.runs).parameters)[:2] == ["profile", "seeds"], name
            assert list(inspect.signature(m.analyze).parameters) == ["df", "out", "profile"], name
            assert all(isinstance(a, Assumption) for a in getattr(m, "ASSUMPTIONS", ())), name
            assert all(isinstance(c, Control) for c in getattr(m, "CONTROLS", ())), name
            if paper in ("beyond", "investigation"):
                assert "Differences from the paper and its released code:\n- " in (m.__doc__ or ""), name
