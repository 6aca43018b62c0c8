"""Claims of paper 000 judged from measures (token statistics, Hessian, ranks, spectra, sampler, adaptive c)."""

import numpy as np
import pandas as pd
import pytest


def test_fig8_claims_on_given_token_statistics():
    from groklab.experiments.embedding import fig8

    mk = lambda imb, absent: {"imbalance": imb, "absent": [0.1, absent]}  # noqa: E731
    stats = {"random": [mk(2.0, 0.4)] * 2, "uniform": [mk(1.0, 0.3)] * 2, "skewed": [mk(6.0, 0.7)] * 2}
    assert all(c.holds for c in fig8.claims(stats))
    stats["skewed"] = [mk(6.0, 0.7), mk(1.5, 0.2)]  # one seed where skewed is not the most uneven
    assert not any(c.holds for c in fig8.claims(stats))
    assert not any(c.holds for c in fig8.claims({}))


def test_fig8_token_statistics_of_a_uniform_split(tmp_path):
    """The uniform split balances operand a to +-1 count; a full-batch sampler never misses a token."""
    from groklab import make_config, train
    from groklab.experiments.embedding.fig8 import token_stats

    cfg = make_config(["p=11", "split=uniform", "split.frac_train=0.5", "steps=0", "sampler=full",
                       "model.d_emb=4", "model.d_hidden=8", "progress=false"])
    train(cfg, out=tmp_path / "r")
    s = token_stats(tmp_path / "r")
    counts = [round(f * 60) for f in s["train"]]  # floor(0.5 * 121) = 60 training rows
    assert sum(counts) == 60 and max(counts) - min(counts) <= 1 and s["missing"] == 0
    assert s["absent"] == [0.0] * 11 and abs(sum(s["test"]) - 1) < 1e-9


def test_rarest_token_rows_from_stored_configs(tmp_path):
    """The skew claims' premise is read from each run's stored config: at 000's paper sizes skewing a + b leaves
    a token in <= 5 training rows, skewing a alone none below 20; only the named split's runs are read."""
    from groklab import make_config, train
    from groklab.experiments.embedding.profile import RARE, rare_rows

    base = ["p=97", "split=skewed", "split.frac_train=0.3", "split.test_reserve=0.2", "steps=0", "model.d_emb=4",
            "model.d_hidden=8", "bar=false"]
    for name, extra in {"a/skewed/s0": [], "ab/skewed/s0": ["split.skew_by=a+b", "split.skew=6"]}.items():
        train(make_config(base + extra), out=tmp_path / name)
    df = pd.DataFrame({"run": ["a/skewed/s0", "ab/skewed/s0", "ab/random/s0"],
                       "split.name": ["skewed", "skewed", "random"]})
    rows = rare_rows(df, tmp_path)
    assert set(rows) == {"a/skewed/s0", "ab/skewed/s0"}  # no folder for the random run: not read
    assert rows["a/skewed/s0"] >= 20 and rows["ab/skewed/s0"] <= RARE, rows


def test_fig3_claims_on_given_zero_shares():
    from groklab.experiments.embedding import fig3

    c = {x.id: x for x in fig3.claims({"random": [0.06, 0.07], "uniform": [0.05, 0.06], "skewed": [0.08, 0.09]})}
    assert c["sparse_gradient_columns"].holds and c["skewed_sparser_than_uniform"].holds
    c = {x.id: x for x in fig3.claims({"random": [0.0, 0.07], "uniform": [0.05, 0.06], "skewed": [0.04, 0.05]})}
    assert not c["sparse_gradient_columns"].holds and not c["skewed_sparser_than_uniform"].holds


def test_fig3_sparse_columns_must_be_the_absent_tokens():
    from groklab.experiments.embedding import fig3

    share = {"random": [0.1, 0.1], "uniform": [0.1, 0.1], "skewed": [0.1, 0.1]}
    ok = {k: [(1.0, 1.0, [])] * 2 for k in share}
    assert {x.id: x for x in fig3.claims(share, None, ok)}["sparse_gradient_columns"].holds
    bad = {**ok, "skewed": [(2 / 3, 1.0, [(10, 2, 1)]), (1.0, 1.0, [])]}  # a third of its zero cells: present tokens
    c = {x.id: x for x in fig3.claims(share, None, bad)}["sparse_gradient_columns"]
    assert c.holds is False and "skewed step 10 token 2 count 1" in c.note and c.post_hoc["verdict"] == "holds"
    near = {**ok, "skewed": [(0.978, 1.0, [(10, 2, 1)]), (1.0, 1.0, [])]}  # above the 95% bar, below 99% tried first
    c = {x.id: x for x in fig3.claims(share, None, near)}["sparse_gradient_columns"]
    assert c.holds and "1 of 6 runs here fall below 99% (lowest 97.8%)" in c.note


def test_fig3_unevenness_decides_not_the_share_of_empty_cells():
    from groklab.experiments.embedding import fig3

    # every token absent from the same number of batches: no unevenness; one token absent from most: uneven
    even = np.ones((8, 4))
    even[np.arange(8), np.arange(8) % 4] = 0
    assert fig3.unevenness(even) == 0.0
    skew = np.ones((10, 4))
    skew[:8, 0] = 0
    assert fig3.unevenness(skew) == pytest.approx(0.433, abs=1e-3) and np.isnan(fig3.unevenness(np.zeros((0, 4))))
    # skewed leaves MORE cells empty but updates tokens no more unevenly: the unevenness decides (does not hold),
    # the replaced rule (the share) holds beside it
    share = {"random": [0.06, 0.07], "uniform": [0.05, 0.06], "skewed": [0.08, 0.09]}
    c = {x.id: x for x in fig3.claims(share, {"uniform": [0.05, 0.06], "skewed": [0.03, 0.04]})}
    x = c["skewed_sparser_than_uniform"]
    assert x.holds is False and "unevenly" in x.text and "holds" in x.note
    # what the unevenness means in batches: the rarest and commonest token's presence, said per split
    assert fig3.presence(skew) == (0.2, 1.0) and fig3.presence(np.zeros((0, 4))) is None
    seen = {"skewed": [(0.64, 1.0), (0.8, 0.99)], "uniform": [(0.84, 0.97), (0.89, 0.98)]}
    x = {x.id: x for x in fig3.claims(share, {"uniform": [0.05, 0.06], "skewed": [0.03, 0.04]}, None, seen)}
    said = x["skewed_sparser_than_uniform"].note
    assert ("skewed: the rarest token gets a gradient in 64%-80% of measured batches, the commonest in 99%-100% "
            "(over 2 runs); uniform: the rarest token gets a gradient in 84%-89%") in said


def test_fig3_smaller_gradients_per_weight_and_never_decided_at_the_quick_sizes():
    """E's entries get a fifth of W's gradient on every random run: holds at the paper's sizes; the quick profile's
    other shapes cannot decide a per-weight ratio (post hoc, the verdict it replaced beside)."""
    from groklab.experiments.embedding import fig3

    rows = [{"run": f"{sp}/s{s}", "split.name": sp, "step": t, "grad_rms/E": 0.2 + 0.01 * s, "grad_rms/W": 1.0,
             "grad/E": 2.0, "grad/W": 1.0} for sp in fig3.SPLITS for s in range(3) for t in (0, 10, 20)]
    df = pd.DataFrame(rows)
    paper = fig3.smaller_updates(df, "paper")
    assert paper.holds is True and paper.per_seed["random"] == pytest.approx([np.log10(0.2 + 0.01 * s)
                                                                              for s in range(3)], abs=1e-4)
    quick = fig3.smaller_updates(df, "quick")
    assert quick.holds is None and quick.reason == "precondition" and quick.note.startswith("the quick model's E")
    assert quick.per_seed == paper.per_seed and "under the rule it replaced (judged at every profile) it holds" \
        in quick.note


def test_fig10_init_claim_is_judged_under_the_init_the_sentence_states():
    import pandas as pd

    from groklab.experiments.embedding import fig10
    from groklab.experiments.embedding.fig10_init import init_sigma, stated_ratio

    row = {"p": 97, "encoding": "op", "task.K": 2, "model.d_emb": 128, "model.d_hidden": 512, "seed": 0}
    r = stated_ratio(row)
    assert r == stated_ratio(dict(row)) and 0.85 < r < 1.0  # about 0.94: sqrt(2/128)(sqrt99+sqrt128) / 2
    # runs at PyTorch's defaults give ~18 (the [torch] measurement holds); the stated init: E is not the larger
    df = pd.DataFrame([{**row, "seed": s, "run": f"{fig10.PLAIN[0]}/s{s}", "step": 0, "sv/E_max": 20.5,
                        "sv/W_max": 1.15} for s in range(3)])
    paper, torch = init_sigma(df, fig10.PLAIN[0])
    assert paper.holds is False and not paper.depends_on and "not even the larger" in paper.note
    assert paper.post_hoc["verdict"] == "holds" and "2026-12-07" in paper.post_hoc["rule"]  # first rule kept
    assert "depends on" in paper.note and torch.id.endswith("[torch]") and torch.holds is True
    big = df.assign(**{"model.d_hidden": 16})  # a narrow W: the stated init's ratio passes 1, said as a span
    assert "not even" not in init_sigma(big, fig10.PLAIN[0])[0].note


def _hessian_df(ratio_of, seeds=2):
    rows = []
    for name in ("adam", "adam_lr", "adam_lr_adaptive"):
        for s in range(seeds):
            for step in (0, 100, 200, 300):
                w = 10.0 * (1.0 if name == "adam" else 0.5) + 0.01 * s
                rows.append({"run": f"{name}/s{s}", "step": step, "hessian/E_top": ratio_of[name] * w,
                             "hessian/W_top": w})
    return pd.DataFrame(rows)


def test_fig7_claims_from_hessian_metrics():
    from groklab.experiments.embedding import fig7

    df = _hessian_df({"adam": 0.01, "adam_lr": 0.3, "adam_lr_adaptive": 0.5}, seeds=4)
    per = {n: [fig7.median_censored(v) for k, v in sorted(fig7.ratios(df).items()) if k.startswith(n + "/")]
           for n in fig7.OPTIMS}
    w, last = fig7.w_medians(df)
    assert w["adam"] == [10.0, 10.01, 10.02, 10.03] and last["adam_lr"] == [300] * 4
    c = {x.id: x for x in fig7.claims(per, w, last)}
    assert all(x.holds for x in c.values()) and c["adam_E_much_flatter_than_W"].per_seed["adam"] == [0.01] * 4
    assert "W reduced" in c["adam_lr_closer"].aggregate and "end at step 300" in c["adam_lr_closer"].note
    # closer, but W not reduced: the sentence's first half fails, so the claim does
    same = {k: [10.0 + 0.01 * s for s in range(4)] for k in w}
    assert fig7.claims(per, same)[2].holds is None
    up = {**w, "adam_lr": [20.0] * 4}
    assert fig7.claims(per, up)[2].holds is False
    # over the steps every run measured, W reduced after all: weighed beside ours, said (an audit, 2026-12-07)
    c = fig7.claims(per, same, last, (per, {**same, "adam_lr": [1.0] * 4}, 300))[2]
    assert c.holds is None and "with steps every run measured (<= 300): holds" in c.note, c.note
    four = lambda a, b, d=None: {"adam": [a] * 4, "adam_lr": [b] * 4, **({"adam_lr_adaptive": [d] * 4} if d else {})}  # noqa: E731
    c = {x.id: x for x in fig7.claims(four(0.5, 0.05, 1.5))}
    assert c["adam_lr_closer"].holds is False  # |log 0.05| > |log 0.5|: farther apart, every run
    # E 2x flatter: "significantly smaller" (no factor named) holds; the order of magnitude, ours, does not
    assert c["adam_E_much_flatter_than_W"].holds and c["adam_E_order_of_magnitude_flatter"].holds is False
    assert c["adam_lr_adaptive_closer"].holds  # |log 1.5| < |log 0.5|: closer from above counts too
    c = {x.id: x for x in fig7.claims({"adam": [2.0, 2.5, 1.8]})}
    assert c["adam_E_much_flatter_than_W"].holds is False  # E sharper than W: the sentence fails
    c2 = {x.id: x for x in fig7.claims({"adam": [0.5] * 4, "adam_lr_adaptive": [0.9] * 4})}
    assert c2["adam_lr_adaptive_closer"].holds and not c2["adam_lr_closer"].holds  # no adam_lr runs: cannot hold
    near = {x.id: x for x in fig7.claims({"adam": [0.09, 0.111, 0.12], "adam_lr": [0.1, 0.2, 0.3]})}
    order = near["adam_E_order_of_magnitude_flatter"]
    assert order.holds is None and order.aggregate["ratio"]["lo"] < 0.1 < order.aggregate["ratio"]["hi"]  # straddles
    assert not near["adam_lr_closer"].holds  # closer in the mean, but its ranks overlap Adam's
    three = {x.id: x for x in fig7.claims({"adam": [0.3, 0.4, 0.5], "adam_lr": [0.6, 0.7, 0.8]})}
    assert three["adam_lr_closer"].aggregate["closer"]["all"]["p"] == 0.05  # 3 against 3: 1/20 at best
    assert three["adam_lr_closer"].post_hoc["since"] == "2026-12-07"
    assert fig7.claims({"adam": [0.02, 0.03, 0.025]})[1].holds


def test_fig10_e_rank_still_moving_at_the_horizon_is_censored_not_underpowered():
    from groklab.experiments.embedding import fig10
    from groklab.experiments.stats import boot_mean

    swing = {"adam_wd1e-3": [0.18, 0.14, 0.18, 0.22, 0.20], "adam_lr_wd1e-3": [0.05] * 5, "adam_wd5e-3": [0.05] * 5}
    agg = lambda per: {n: [boot_mean(v)["mean"]] for n, v in per.items()}  # noqa: E731
    late = {"adam_wd1e-3": [(1450.0, 1500.0)] * 3 + [(600.0, 1500.0)] * 2}
    c = fig10._stable("rtol1e-4", "rank", swing, swing, list(fig10.JUDGED), {}, agg, late)
    assert c.holds is None and c.reason == "censored" and "still moving at the end of 3 runs" in c.note, c.note
    assert "the horizon, not the seeds" in c.note and "inconclusive (underpowered)" in c.note  # the replaced rule
    late["adam_wd1e-3"] = [(1450.0, 1500.0)] + [(600.0, 1500.0)] * 4  # one run late: said, still underpowered
    c = fig10._stable("rtol1e-4", "rank", swing, swing, list(fig10.JUDGED), {}, agg, late)
    assert c.reason == "underpowered" and "still moving in the last tenth of 1 of 5 runs" in c.note


def test_fig10_a_rank_curve_settles_where_it_last_leaves_its_end_value():
    from groklab.experiments.embedding.fig10_ranks import settled

    steps = np.arange(0, 1501, 100)
    r = np.array([49, 49, 40, 30, 20, 12, 10, 10, 11, 10, 10, 10, 10, 10, 10, 10], dtype=float)
    assert settled(steps, r, 0.1) == 600  # 12 is 20% off 10; from 600 on every rank is within 10% of 10
    assert settled(steps, r, 0.25) == 500 and settled(steps, np.full(16, 7.0), 0.1) == 0
    assert settled(steps, np.r_[r[:-1], 20.0], 0.1) == 1500  # a last jump: it settles only at its end


def test_fig10_rank_definitions_on_a_known_spectrum():
    from groklab.experiments.embedding import fig10

    s = np.array([2.0, 1.0, 0.01, 0.001, 0.0001])  # sigma / sigma_max = 1, 0.5, 5e-3, 5e-4, 5e-5
    assert [fig10.rank_of(s, d) for d in ("rtol1e-2", "rtol1e-3", "rtol1e-4")] == [2.0, 3.0, 4.0]
    assert fig10.rank_of(s, "stable") == pytest.approx((4 + 1 + 1e-4 + 1e-6 + 1e-8) / 4)
    assert fig10.rank_of(np.zeros(3), "stable") == 0.0 and fig10.rank_of(np.ones(7), "rtol1e-2") == 7.0


def test_fig10_claims_under_each_definition():
    from groklab.experiments.embedding import fig10

    def pts(ew, e, w, swing=None):  # (first, at t_test, last, largest move) of each matrix, every definition
        return {(d, m): (*v, abs(v[2] - v[0]) if swing is None or m != "E" else swing)
                for d in fig10.DEFS for m, v in (("EW", ew), ("E", e), ("W", w))}

    st = {}
    for n in fig10.SETUPS:
        for s in range(3):
            lr = n.startswith("adam_lr")
            ew = (40.0, 20.0 + s, 10.0 if lr else 20.0 + s)
            st[f"{n}/s{s}"] = pts(ew, (49.0, 48.0, 47.0 - s), (256.0, 90.0, 60.0))
    c = {x.id: x for x in fig10.claims(st)}
    assert len(c) == 4 * len(fig10.DEFS) and all(x.holds for x in c.values())
    assert c["rank_E_stable[stable]"].per_seed["adam_wd1e-3"] == pytest.approx([2 / 49, 3 / 49, 4 / 49])
    # the later reading (from t_test + LATER): runs that end 0-200 steps past it cannot show a continued change
    # -- what the curves show instead: where each settles (within 10% of its end) and how long it holds there
    short = {r: {k: (*v, 30.0, 200.0 if r.endswith("s0") else -300.0, 600.0, 1500.0) for k, v in p.items()}
             for r, p in st.items()}
    only = {x.id: x for x in fig10.claims(short)}["only_adam_lr_changes_rank_after_grokking[stable]"]
    assert "no reading from t_test + 1,000 steps: the runs end 0-200 steps after it" in only.note, only.note
    assert "adam_lr_wd1e-3: 40 -> 20-22 at t_test -> 10, settled from step 600" in only.note, only.note
    assert "holds its end rank for its last 900 steps: a change after t_test is the collapse ending" in only.note
    late = {r: {k: (*v[:6], 1450.0, 1500.0) for k, v in p.items()} for r, p in short.items()}  # still moving
    only = {x.id: x for x in fig10.claims(late)}["only_adam_lr_changes_rank_after_grokking[stable]"]
    assert "for its last 50 steps" in only.note and "collapse ending" not in only.note, only.note
    long = {r: {k: (*v, 30.0, 5000.0) for k, v in p.items()} for r, p in st.items()}
    only = {x.id: x for x in fig10.claims(long)}["only_adam_lr_changes_rank_after_grokking[stable]"]
    assert "no later reading" not in only.note and "read from t_test + 1,000 steps to the end" in only.note
    # "throughout": a rank that halves mid-run and comes back is not stable, whatever its endpoints (post hoc)
    swung = {r: pts((40.0, 20.0, 20.0), (49.0, 48.0, 49.0), (256.0, 90.0, 60.0), swing=25.0) for r in st}
    e = {x.id: x for x in fig10.claims(swung)}["rank_E_stable[rtol1e-4]"]
    assert e.holds is False and e.post_hoc["verdict"] == "holds" and "throughout" in e.post_hoc["rule"]
    st["adam_wd5e-3/s1"] = pts((40.0, 20.0, 12.0), (49.0, 30.0, 20.0), (256.0, 250.0, 250.0))  # one seed moves on
    c = {x.id: x for x in fig10.claims(st)}
    assert not any(c[f"{k}[rtol1e-3]"].holds for k in ("only_adam_lr_changes_rank_after_grokking", "rank_E_stable",
                                                       "rank_W_decreases"))
    assert c["rank_EW_decreases[rtol1e-3]"].holds
    st["adam_lr_adaptive_wd1e-3/s0"] = pts((40.0, 20.0, 45.0), (49.0, 1.0, 1.0), (256.0, 256.0, 256.0))
    assert fig10.claims(st)[0].holds  # adaptive c is reported, not judged
    assert not any(x.holds for x in fig10.claims({}))
    # a setup that never fits its training set: a statement that holds on the setups that trained is
    # inconclusive (precondition), one that a trained setup violates does not hold
    import pandas as pd

    t_train = pd.Series({f"{n}/s{i}": (None if n == "adam_wd5e-3" else 300) for n in fig10.SETUPS for i in range(3)})
    unfit = fig10.unfit(t_train)
    assert list(unfit) == ["adam_wd5e-3"] and "3 of 3 seeds" in unfit["adam_wd5e-3"]
    c = {x.id: x for x in fig10.claims(st, unfit)}
    ew = c["rank_EW_decreases[rtol1e-3]"]
    assert ew.holds is None and ew.reason == "precondition" and "adam_wd5e-3 never fits" in ew.note
    assert ew.to_dict()["verdict"] == "inconclusive (precondition)"
    assert c["rank_E_stable[rtol1e-3]"].holds is None  # adam_wd5e-3's seed 1 moved, but it never fit
    st["adam_wd1e-3/s1"] = pts((40.0, 20.0, 12.0), (49.0, 30.0, 20.0), (256.0, 90.0, 60.0))  # a trained seed moves
    one = fig10.claims(st, unfit)[2]  # rank_E_stable[rtol1e-2]: its CI now straddles 0.2
    assert one.holds is None and one.reason == "underpowered" and "CI of adam_wd1e-3 reaches" in one.note
    for i in (0, 2):  # every seed of a trained setup moves: violated where it trained
        st[f"adam_wd1e-3/s{i}"] = pts((40.0, 20.0, 12.0), (49.0, 30.0, 21.0 + i), (256.0, 90.0, 60.0))
    assert fig10.claims(st, unfit)[2].holds is False
    # a plain Adam setup that never generalizes (no rank at t_test) cannot tell, but the other one keeps changing
    # after t_test: "only Adam-LR keeps changing" does not hold (until 2026-12-06 it read undecided), post hoc
    gen = {f"{n}/s{i}": pts((40.0, 20.0, 10.0 if n != "adam_wd5e-3" else 5.0), (49.0, 48.0, 47.0), (256.0, 90.0, 60.0))
           for n in fig10.SETUPS for i in range(3)}
    for i in range(3):
        gen[f"adam_wd5e-3/s{i}"] = pts((40.0, None, 5.0), (49.0, 48.0, 47.0), (256.0, 90.0, 60.0))
    only = {x.id: x for x in fig10.claims(gen)}["only_adam_lr_changes_rank_after_grokking[rtol1e-2]"]
    assert only.holds is False and only.post_hoc["verdict"].startswith("inconclusive")


def test_fig11_claims_on_key_shares_in_token_and_dlog_order():
    from groklab.experiments.embedding import fig11

    per = {"token": {"add": [0.9, 0.8, 0.95], "mul": [0.2, 0.25, 0.22], "div": [0.21, 0.23, 0.2]},
           "dlog": {"add": [0.3, 0.3, 0.3], "mul": [0.97, 0.99, 0.98], "div": [0.4, 0.5, 0.3]}}
    c = {x.id: x for x in fig11.claims(per)}
    assert c["add_peaked_token"].holds and not c["mul_peaked_token"].holds and c["mul_peaked_dlog"].holds
    assert c["add_peaked_vs_div_token"].holds and c["mul_peaked_vs_div_dlog"].holds
    assert not c["mul_peaked_vs_div_token"].holds  # 0.22 vs 0.21: the CI of the difference straddles 0
    said = c["mul_peaked_vs_div_token"].note  # it fails for want of mul's peaks: both levels said, and dlog's
    assert "mul 0.223 and div 0.213 sit alike" in said and "mul 0.980, div 0.400" in said
    assert c["mul_peaked_dlog"].aggregate["threshold"] == fig11.PEAKED and c["mul_peaked_dlog"].per_seed == {
        "mul": [0.97, 0.99, 0.98]}
    per["dlog"]["div"] = [0.96, 0.99, 0.97]  # div as peaked as mul in its own order: not "more diffuse"
    assert not {x.id: x for x in fig11.claims(per)}["mul_peaked_vs_div_dlog"].holds
    # the least difference was named after the data: marked post hoc, the replaced rule's verdict beside
    flat = {x.id: x for x in fig11.claims({"token": {"mul": [0.23, 0.231, 0.229, 0.23], "div": [0.23, 0.229, 0.231,
                                                                                              0.23]}})}
    x = flat["mul_peaked_vs_div_token"]
    assert x.holds is False and x.post_hoc["verdict"] == "inconclusive (underpowered)" and "underpowered" in x.note
    per["dlog"]["mul"] = [0.99]  # one seed: no CI, no verdict
    assert not {x.id: x for x in fig11.claims(per)}["mul_peaked_dlog"].holds
    assert not any(x.holds for x in fig11.claims({}))


def test_sampler_claims_on_given_entropies_and_times():
    from groklab.experiments.embedding import sampler

    ent = {"gamma1e-4": [0.0, 0.01, 0.002], "tau0.3": [0.86, 0.9, 0.88]}
    times = {"random": [1500.0, 1600.0, 1700.0], "tau0.3": [1000.0, 1100.0, 1200.0]}
    c = {x.id: x for x in sampler.claims(ent, times)}
    assert all(x.holds for x in c.values())
    assert c["entropy_sampler_groks_sooner"].aggregate["mul"]["median tau0.3"][0] == 1100
    ent["tau0.3"] = [0.995, 0.999, 0.998]  # indistinguishable from uniform
    times["tau0.3"] = [1400.0, 1800.0, 1600.0]
    c = {x.id: x for x in sampler.claims(ent, times)}
    assert not c["default_tau_samples_meaningfully"].holds
    assert c["entropy_sampler_groks_sooner"].holds is None  # P(tau0.3 first) = 1/2: no order either way
    times["tau0.3"] = [1800.0, 1900.0, 2000.0]  # every tau0.3 run after every random one: the opposite order
    assert {x.id: x for x in sampler.claims(ent, times)}["entropy_sampler_groks_sooner"].holds is False
    assert not any(x.holds for x in sampler.claims({}, {}))


def test_sampler_entropies_from_metric_rows():
    from groklab.experiments.embedding import sampler

    df = pd.DataFrame({"run": ["tau0.3/s0"] * 3 + ["tau0.3/s1"] * 2, "step": [0, 100, 200, 0, 100],
                       "sampler/entropy": [1.0, 0.8, 0.9, 1.0, 0.5]})
    assert sampler.entropies(df) == {"tau0.3": [pytest.approx(0.85), 0.5]}  # step 0 (uniform by construction) left out


def test_adaptive_c_claims_on_given_times_and_frequencies():
    from groklab.experiments.embedding import adaptive

    times, f_E = {}, {}
    for B in adaptive.BATCHES:
        for split in adaptive.SPLITS:
            rare = (B, split) == adaptive.RARE
            times[B, split, "fixed10"] = [1000.0, 1100.0, 1200.0]
            times[B, split, "mean"] = [1000.0, 1100.0, 1200.0]  # the same: before fixed's times x 1.25
            times[B, split, "row"] = [700.0, 800.0, 900.0] if rare else [1000.0, 1100.0, 1200.0]
            f_E[B, split, "mean"] = [0.8, 0.82, 0.81] if rare else [0.999, 0.998, 0.999]
    c = {x.id: x for x in adaptive.claims(times, f_E)}
    assert all(x.holds for x in c.values()), {k: x.aggregate for k, x in c.items()}
    assert c["row_c_faster_where_tokens_are_rare"].aggregate["b64/skewed"]["median row"][0] == 800
    times[512, "random", "mean"] = [1600.0, 1700.0, 1800.0]  # 60% later in one cell: after every stretched time
    f_E[512, "random", "mean"] = [0.9, 0.92, 0.91]
    c = {x.id: x for x in adaptive.claims(times, f_E)}
    assert c["adaptive_mean_no_later_than_fixed_c10"].holds is False and c["adaptive_row_no_later_than_fixed_c10"].holds
    assert not c["f_E_below_one_only_where_tokens_are_rare"].holds
    assert not any(x.holds for x in adaptive.claims({}, {}))
    from groklab.survival import Censored

    times[512, "random", "mean"] = [1000.0, 1100.0, Censored(3000)]  # one run never grokked: later than every
    c = {x.id: x for x in adaptive.claims(times, f_E)}["adaptive_mean_no_later_than_fixed_c10"]  # fixed10 run
    assert c.reason in ("underpowered", "no effect seen") and c.per_seed["b512/random mean"] == [1000, 1100, None]
    assert c.per_seed["b512/random fixed10"] == [1000, 1100, 1200]  # as measured, not stretched
    times[512, "random", "fixed10"] = [1000.0, 1100.0, 1200.0, 1050.0, 1150.0]
    times[512, "random", "mean"] = [1300.0, 1450.0, 1600.0, 1350.0, 1500.0]  # 30% later: past the margin, not
    c = {x.id: x for x in adaptive.claims(times, f_E)}["adaptive_mean_no_later_than_fixed_c10"]  # beyond noise
    assert c.holds is None and c.reason == "no effect seen"  # no lean toward "no later" either
    times[512, "random", "mean"] = [1600.0, 1760.0, 1920.0, 1680.0, 1840.0]  # 60% later: after every stretched time
    assert {x.id: x for x in adaptive.claims(times, f_E)}["adaptive_mean_no_later_than_fixed_c10"].holds is False


def test_fig8_counts_a_token_present_in_either_operand_position(tmp_path):
    """The embedding row of a token is updated wherever it appears: a batch that holds it only as operand b does
    not count it absent (the operand-a count, shown beside, does)."""
    from groklab import make_config, train
    from groklab.experiments.embedding.fig8 import token_stats

    cfg = make_config(["p=11", "split=skewed", "split.frac_train=0.5", "steps=0", "batch_size=8",
                       "model.d_emb=4", "model.d_hidden=8", "progress=false"])
    train(cfg, out=tmp_path / "r")
    s = token_stats(tmp_path / "r")
    assert all(x <= y for x, y in zip(s["absent"], s["absent_a"]))  # either position: never absent more often
    assert sum(s["absent"]) < sum(s["absent_a"])  # and, at batch 8 of p = 11, less often somewhere


def _timing_df(w_slope, e_noise):
    """Three Adam runs: train fit at step 100, test accuracy rising from 200 to 800, lambda_E falling throughout
    (with `e_noise` wobble), lambda_W rising to step 100 then falling by `w_slope` per step."""
    rows = []
    for s in range(3):
        for step in range(0, 1050, 50):
            rows.append({"run": f"adam/s{s}", "step": step, "train/acc": 1.0 if step >= 100 else 0.5,
                         "test/acc": 0.0 if step < 200 else min(1.0, (step - 200) / 600), "train/loss": 1.0,
                         "test/loss": 1.0, "hessian/E_top": 10.0 - step / 100 + e_noise * ((step // 50 + s) % 3),
                         "hessian/W_top": 5.0 + (step if step <= 100 else 100 - w_slope * (step - 100)) / 100})
    return pd.DataFrame(rows)


def test_fig7_timing_weighs_E_against_W_control():
    from groklab.experiments.embedding import fig7_timing

    # W keeps rising after the fit: E alone falls with the validation rise -- holds under both readings of "as"
    w, e = fig7_timing.claims(_timing_df(-0.5, 0.0))
    assert w.holds is False and e.holds is True and not e.depends_on and "the same under every" in e.note
    # W falls in lockstep with test accuracy, E more loosely: "any co-movement" holds, "E's beyond W's" does not
    w, e = fig7_timing.claims(_timing_df(1.0, 1.5))
    assert w.holds is True and e.depends_on == ["'as'"] and "does not hold" in e.note and e.post_hoc
    assert e.sensitivity[f"'as'={fig7_timing.SPECIFIC}"]["per_seed"]["adam"][0] > 0


def test_fig7_timing_names_the_cadence_where_fit_runs_cannot_place_w_peak():
    from groklab.experiments.embedding import fig7_timing

    df = _timing_df(1.0, 0.0)
    df["hessian/W_top"] = 10.0 - df["step"] / 100  # highest at the first measure: the peak lies in [0, 50]
    w, _ = fig7_timing.claims(df)
    assert w.holds is None and w.reason == "precondition" and "cadence" in w.note and w.post_hoc


def test_fig10_phases_shape_run_by_run():
    from groklab.experiments.embedding import fig10_phases as ph
    from groklab.experiments.spec import Claim

    steps = np.arange(0, 1001, 20)
    # drop 256 -> 156 over [0, 100], flat to 500, 156 -> 56 over [500, 700], flat after: the paper's shape
    three = np.interp(steps, [0, 100, 500, 700, 1000], [256, 156, 150, 56, 56])
    r = ph.shape(steps, three, 100, 500, 700)
    assert r["shows"] is True and r["measures"] == [6, 21, 11] and r["rates"][0] > 10 * abs(r["rates"][1])
    steady = np.interp(steps, [0, 1000], [256, 56])  # one steady decline: no plateau
    assert ph.shape(steps, steady, 100, 500, 700)["shows"] is False
    assert ph.shape(steps, three, 100, 500, None)["shows"] is None  # never generalized: untimed
    assert ph.shape(steps[::10], three[::10], 100, 500, 700)["shows"] is None  # too few measures per window
    # a final fall just after t_test: C ending at t_test misses it, C extended by `late` sees it (capped at the end)
    after = np.interp(steps, [0, 100, 500, 700, 800, 1000], [256, 156, 150, 148, 60, 60])
    assert ph.shape(steps, after, 100, 500, 700)["shows"] is False
    assert ph.shape(steps, after, 100, 500, 700, late=200)["shows"] is True
    assert ph.shape(steps, after, 100, 500, 700, late=5000)["measures"][2] == 26  # C ends at the last measure
    net = Claim("rank_W_decreases[x]", "W's rank ...", "net", {}, {})
    net.holds = True
    runs = {"a": [ph.shape(steps, three, 100, 500, 700)] * 3,
            "b": [ph.shape(steps, three, 100, 500, 700)] * 2 + [ph.shape(steps, steady, 100, 500, 700)]}
    c = ph.phases(net, runs)
    assert c.holds is True and c.post_hoc["verdict"] == "holds"
    runs["b"] = [ph.shape(steps, steady, 100, 500, 700)] * 2 + runs["b"][:1]
    c = ph.phases(net, runs)
    assert c.holds is False and "b: most runs" in c.note and "post hoc" in c.note
    runs["b"] = [ph.shape(steps, three, 100, 500, None)] * 3  # untimed: cannot tell
    c = ph.phases(net, runs)
    assert c.holds is None and c.reason == "precondition"
    # the early drop lands just after the fit (t_train 40, drop over [60, 160]): window A misses it unless it
    # ends `shift` steps after the fit (the reading weighed beside, 2026-12-07)
    late = np.interp(steps, [0, 60, 160, 500, 700, 1000], [256, 256, 156, 150, 56, 56])
    assert ph.shape(steps, late, 40, 500, 700)["shows"] is False
    assert ph.shape(steps, late, 40, 500, 700, shift=120)["shows"] is True
