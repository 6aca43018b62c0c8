"""The early-warning judge: states normalised at the fit, AUROC and its stratified interval, the explore-fixed
threshold's false-positive rate, alarms, ROC curves, and the whole study at a tiny size (trained and judged; its
archive re-judged byte for byte is tests/test_results.py's, on results/earlywarn-quick)."""
import math

import numpy as np
import pytest

from groklab.experiments.earlywarn.events import Events
from groklab.experiments.earlywarn.states import (
    Series,
    alarm,
    auroc,
    auroc_ci,
    labelled,
    roc_points,
    threshold_on,
)


def _run(values, t_fit=100, T=None, norm="relative", every=50):
    steps = np.arange(0, every * len(values), every)
    return Series(steps, np.array(values, dtype=float), Events(t_fit, T, 10_000), norm)


def test_a_state_is_the_last_value_relative_to_the_value_at_the_fit():
    s = _run([4.0, 3.0, 2.0, 1.0, 3.0])  # steps 0..200, fit at 100 (value 2)
    assert s.state(100) == 0.0 and s.state(175) == pytest.approx(-0.5) and s.state(10_000) == pytest.approx(0.5)
    assert _run([0.0, 0.0, 0.0, 0.5], norm="difference").state(150) == 0.5  # a share that starts at 0: differences
    assert _run([1.0, 2.0], t_fit=None).state(50) is None  # never fit: no state
    steps, st = s.after_fit()
    assert steps.tolist() == [150, 200] and st.tolist() == pytest.approx([-0.5, 0.5])


def test_auroc_counts_ties_as_halves_and_its_stratified_interval_keeps_both_groups():
    x, y = np.array([3.0, 4.0, 1.0, 2.0]), np.array([True, True, False, False])
    assert auroc(x, y) == 1.0 and auroc(-x, y) == 0.0 and auroc(np.ones(4), y) == 0.5
    assert auroc_ci(x, y, 500, 0.95, 0) == (1.0, 1.0)  # every draw has grokking and censored runs
    lo, hi = auroc_ci(np.array([3.0, 1.5, 1.0, 2.0, 0.5]), np.array([True, True, False, False, False]), 2000,
                      0.95, 0)
    assert 0 <= lo < auroc(np.array([3.0, 1.5, 1.0, 2.0, 0.5]), np.array([True, True, False, False, False])) <= hi
    assert math.isnan(auroc(x, np.ones(4, dtype=bool)))


def test_the_roc_curve_encloses_the_auroc_ties_included():
    rng = np.random.default_rng(0)
    x, y = np.round(rng.normal(size=60), 1), rng.random(60) < 0.4
    fpr, tpr = roc_points(x, y)
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0, 0, 1, 1) and np.all(np.diff(fpr) >= 0)
    assert np.trapezoid(tpr, fpr) == pytest.approx(auroc(x, y))


def test_the_threshold_lets_at_most_the_declared_share_of_explore_non_grokkers_alarm():
    runs = {f"explore/a/s{i}": _run([1.0, 1.0, 1.0, 1.0 + i]) for i in range(1, 21)}  # peaks 1..20 after the fit
    runs["explore/a/s99"] = _run([1.0, 1.0, 1.0, 100.0], T=400)  # a grokking run: not a false positive
    thr = threshold_on(runs, +1, 0.05)
    assert thr == 19.0
    assert sum(alarm(s, +1, thr) is not None for r, s in runs.items() if not s.ev.grokked) == 1  # 1 of 20
    assert alarm(runs["explore/a/s99"], +1, thr) == 150 and alarm(runs["explore/a/s1"], -1, -0.5) is None


def test_runs_that_grokked_before_the_point_or_never_fit_are_left_out():
    S = {"a": _run([1, 1, 1, 2, 3], T=200), "b": _run([1, 1, 1, 1, 1], T=1000), "c": _run([1, 1, 1, 1, 1]),
         "d": _run([1, 1, 1, 1, 1], t_fit=None)}
    x, y = labelled(S, 100)  # at t_fit + 100 = 200: a has grokked (T 200): out; d never fit: out
    assert y.tolist() == [True, False] and len(x) == 2


def _tiny_protocol(tmp_path):
    from groklab.experiments.earlywarn.protocol import PROTOCOL

    text = PROTOCOL.read_text()
    for old, new in [("steps=10000", "steps=200"),
                     ("model.d_emb=32, model.d_hidden=128", "model.d_emb=8, model.d_hidden=32"),
                     ("model.d_emb=64, model.d_hidden=256", "model.d_emb=16, model.d_hidden=32"),
                     ("model.d_emb=64,\n                                                        model.d_hidden=256",
                      "model.d_emb=16, model.d_hidden=32"),
                     ("explore: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]",
                      "explore: [0, 1]"),
                     ("evaluate: [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]",
                      "evaluate: [20, 21]"),
                     ("held_out: [40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59]",
                      "held_out: [40, 41]")]:
        assert old in text, old
        text = text.replace(old, new)
    f = tmp_path / "tiny.yaml"
    f.write_text(text)
    return f


def test_the_study_at_a_tiny_size_is_trained_and_judged_into_its_board_claims_and_report(tmp_path):
    from groklab import earlywarn
    from groklab.experiments.earlywarn.judge import COLUMNS
    from groklab.experiments.earlywarn.protocol import sha256

    proto = _tiny_protocol(tmp_path)
    doc = earlywarn(tmp_path / "run", protocol=proto, echo=lambda *a: None)
    root = tmp_path / "run" / "earlywarn"
    board = (root / "board.csv").read_text().splitlines()
    assert board[0].split(",") == COLUMNS
    assert len(board) - 1 == 20 * 7  # 19 measures and t_fit, over 5 settings, their pool and the held-out one
    assert {c["id"] for c in doc["claims"]} == {"med_tracks_test_loss", "hessian_E_falls_as_validation_improves",
                                               "W_rank_declines_with_grokking"}
    assert all(c["quote"] and c["fixed"]["before_data"] is not bool(c.get("post_hoc")) for c in doc["claims"])
    assert all(c["fixed"]["commit"] for c in doc["claims"] if not c.get("post_hoc"))  # the protocol's freezing
    assert doc["protocol"]["sha256"] == sha256(proto) and doc["runs"] == 22
    page = (root / "report.html").read_text()
    assert "Table <code>board.csv</code>" in page and "auroc_ci_low" in page and "false_positive_rate" in page
    assert (root / "protocol.yaml").read_bytes() == proto.read_bytes()
    # re-judging an archive to the same bytes: tests/test_results.py, on results/earlywarn-quick itself


def test_e_falls_as_validation_improves_is_judged_from_the_rise_on_the_mlp_runs():
    """E's top eigenvalue climbs after the fit, then falls through the test-accuracy rise: from GO to T it fell on
    every MLP run (holds, post hoc), while the frozen fit-to-T window saw it rise; Transformer runs are a
    measurement beside, never judged."""
    import pandas as pd

    from groklab.experiments.earlywarn.claims import _rising
    from groklab.experiments.earlywarn.events import Events
    from groklab.experiments.earlywarn.states import Series
    from groklab.experiments.spec import Claim

    steps = np.arange(0, 1100, 100)
    test = [0.0, 0.0, 0.0, 0.0, 0.0, 0.3, 0.6, 0.9, 1.0, 1.0, 1.0]  # the fit at 100, GO at 500, T at 800
    E = [1.0, 1.0, 30.0, 40.0, 35.0, 20.0, 10.0, 5.0, 3.0, 3.0, 3.0]  # climbs after the fit, falls through the rise
    rows, S, evs = [], {}, {}
    for i, arch in enumerate(["mlp"] * 6 + ["transformer"] * 3):
        run = f"evaluate/add_{arch}/s{i}"
        vals = E if arch == "mlp" else E[::-1]
        rows += [{"run": run, "step": s, "train/acc": 1.0 if s >= 100 else 0.5, "test/acc": a}
                 for s, a in zip(steps, test)]
        evs[run] = Events(100, 800, 1000)
        S[run] = Series(steps, np.array(vals, dtype=float), evs[run])
    c = _rising(Claim("hessian_E_falls_as_validation_improves", "t", "rule", holds=None, reason="underpowered"),
                S, evs, pd.DataFrame(rows))
    assert c.holds is True and c.aggregate["fell"] == 6 and c.aggregate["rose"] == 0
    assert c.aggregate["transformer (measurement)"] == {"fell": 0, "rose": 3, "n": 3}
    assert c.post_hoc["verdict"] == "does not hold"  # fit to T, pooled: every run rose (the post-fit climb)
    assert c.aggregate["frozen rule (fit to T, pooled)"]["rose"] == 9
