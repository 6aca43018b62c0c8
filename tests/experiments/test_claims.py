"""Claim logic of the paper-000 experiments on synthetic metrics, where the right verdict is known."""
import math

import numpy as np
import pandas as pd
import pytest

from groklab.experiments.embedding import fig2, fig4, fig5, fig6
from groklab.experiments.stats import median_censored, paired_ratios, ratio, run_table, value_at

STEPS = list(range(0, 2001, 50))


def curve(run, t_train, t_test, last=2000, final_test=None, status=None, **cfg):
    """Eval rows of a run: train acc jumps to 1 at t_train, test acc to 1 at t_test (None: never)."""
    rows = []
    for s in [x for x in STEPS if x <= last]:
        train = 1.0 if t_train is not None and s >= t_train else 0.3
        test = 1.0 if t_test is not None and s >= t_test else 0.1
        rows.append({"run": run, "step": s, "train/acc": train, "test/acc": test})
    if final_test is not None:
        rows[-1]["test/acc"] = final_test
    df = pd.DataFrame(rows)
    df["status"] = status or ("early_stop" if t_test is not None else "completed")
    for k, v in cfg.items():
        df[k.replace("__", ".")] = v
    return df


def frame(parts):
    return pd.concat(parts, ignore_index=True)


def test_censored_statistics():
    assert median_censored([100, None, 300]) == 300
    assert median_censored([None, None, 5]) == math.inf
    assert ratio(math.inf, 10) == math.inf and ratio(10, math.inf) == 0.0 and math.isnan(ratio(math.inf, math.inf))
    assert paired_ratios([200, None], [100, 50]) == [2.0, math.inf]


def test_boot_ratio_needs_its_ci_to_exclude_one():
    from groklab.experiments.stats import boot_ratio

    r = boot_ratio([900, 1000, 1100], [300, 310, 320])
    assert r["ratio"] == pytest.approx(1000 / 310) and r["lo"] > 1 and r["sign"] == 1
    assert boot_ratio([300, 900, 500], [400, 800, 450])["sign"] == 0
    assert boot_ratio([100, 110], [300, 310])["sign"] == -1
    assert boot_ratio([900], [300])["sign"] == 0 and boot_ratio([], [1])["ratio"] is None


def test_run_table_events_and_value_at():
    df = curve("a", 100, 460, seed=0)
    t = run_table(df)
    assert t.loc[0, "t_train"] == 100 and t.loc[0, "t_test"] == 500  # first eval at or after 460
    assert value_at(df, "a", 490) == 0.1 and value_at(df, "a", 510) == 1.0


def _fig6(adam_t, lr_t):
    parts = []
    for task in fig6.TASKS:
        for s, (a, b) in enumerate(zip(adam_t, lr_t)):
            parts.append(curve(f"{task}/adam/s{s}", 50, a, seed=s, task__name=task, optim__name="adam",
                               optim__c=1.0, optim__c_mode="fixed"))
            parts.append(curve(f"{task}/adam_lr/s{s}", 50, b, seed=s, task__name=task, optim__name="adam",
                               optim__c=10.0, optim__c_mode="fixed"))
            parts.append(curve(f"{task}/adam_lr_adaptive/s{s}", 50, a, seed=s, task__name=task,
                               optim__name="adam", optim__c=10.0, optim__c_mode="adaptive"))
    return run_table(frame(parts))


def test_fig6_adam_lr_faster_holds_and_fails():
    good = {c.id: c for c in fig6.claims(_fig6([800, 1000, None], [300, 400, 500]))}
    assert all(c.holds for k, c in good.items() if not k.startswith("adam_lr_adaptive"))
    assert not any(c.holds for k, c in good.items() if k.startswith("adam_lr_adaptive"))  # as slow as Adam
    add = good["adam_lr_faster_add"].to_dict()
    assert add["per_seed"]["adam"] == [800, 1000, None]
    assert add["aggregate"]["ratio"] == pytest.approx((800 + 1000 + 2000) / (300 + 400 + 500))  # None: the horizon
    assert add["aggregate"]["lo"] > 1
    noisy = {c.id: c for c in fig6.claims(_fig6([500, 300, 900], [400, 350, 800]))}  # medians differ, CI holds 1
    assert noisy["adam_lr_faster_add"].aggregate["lo"] < 1 < noisy["adam_lr_faster_add"].aggregate["hi"]
    assert not noisy["adam_lr_faster_add"].holds
    bad = fig6.claims(_fig6([300, 400, 500], [800, 1000, None]))
    assert not any(c.holds for c in bad)
    neither = fig6.claims(_fig6([None] * 3, [None] * 3))  # inf vs inf: undecided, so not holding
    assert not any(c.holds for c in neither)


def _fig2(no_emb_add_final, mul_emb_t_test, add_test_at=100):
    parts = []
    for s in range(3):
        kw = dict(seed=s)
        parts.append(curve(f"add/mlp/s{s}", 100, add_test_at, final_test=no_emb_add_final, task__name="add",
                           model__name="mlp", **kw))
        parts.append(curve(f"mul/mlp/s{s}", None, None, task__name="mul", model__name="mlp", **kw))
        parts.append(curve(f"add/mlp_emb/s{s}", 100, 300, task__name="add", model__name="mlp_emb", **kw))
        parts.append(curve(f"mul/mlp_emb/s{s}", 100, mul_emb_t_test, task__name="mul", model__name="mlp_emb", **kw))
    df = frame(parts)
    return run_table(df), fig2.corise(df)


def test_fig2_claims():
    c = {x.id: x for x in fig2.claims(*_fig2(1.0, 600))}
    assert all(x.holds for x in c.values())
    assert c["emb_mul_groks_late"].aggregate["median_ratio"] == 6.0
    assert c["no_emb_add_rises_together"].per_seed["mul/mlp_emb lag"] == [5.0, 5.0, 5.0]  # the contrast
    c = {x.id: x for x in fig2.claims(*_fig2(0.5, 150))}
    assert not c["no_emb_add_reaches_0.95"].holds and not c["emb_mul_groks_late"].holds  # delay 1.5 < 2
    assert c["no_emb_fails_mul"].holds and c["emb_fits_both"].holds
    assert c["no_emb_add_rises_together"].holds  # rising together does not need reaching 0.95
    c = {x.id: x for x in fig2.claims(*_fig2(1.0, 600, add_test_at=400))}  # test rises 4x later: no co-rise
    assert not c["no_emb_add_rises_together"].holds and c["no_emb_add_reaches_0.95"].holds
    assert c["no_emb_add_rises_together"].per_seed["add/mlp lag"] == [3.0, 3.0, 3.0]


def test_half_rise_and_corise_on_smooth_curves():
    from groklab.measures.curves import half_rise

    steps = np.arange(0, 3001, 25)
    train = 1 - np.exp(-steps / 300)
    assert half_rise(steps, train) == 225  # first eval past 300 ln 2 = 208 (train ends just below 1)
    assert half_rise(steps, np.full(len(steps), 0.3)) is None  # no rise: no half-rise step
    rows = lambda test: pd.DataFrame({"run": "add/mlp/s0", "step": steps, "train/acc": train,  # noqa: E731
                                      "test/acc": test, "task.name": "add", "model.name": "mlp", "seed": 0})
    together = fig2.corise(rows(0.8 * (1 - np.exp(-steps / 330))))["add/mlp"]
    assert together["lag"][0] < 0.2 and together["corr"][0] > 0.99
    late = fig2.corise(rows(1 / (1 + np.exp(-(steps - 1500) / 50))))["add/mlp"]
    assert late["lag"][0] > 5 and late["corr"][0] < fig2.CORR


def _fig4(t_test):
    """t_test(split, B) -> a step (same for every task and seed)."""
    parts = []
    for task in fig4.TASKS:
        for B in fig4.BATCHES:
            for split in fig4.SPLITS:
                for s in range(2):
                    parts.append(curve(f"{task}/b{B}/{split}/s{s}", 100, t_test(split, B), seed=s,
                                       task__name=task, batch_size=B, split__name=split))
    return run_table(frame(parts))


def test_fig4_claims():
    paper = {("random", 64): 800, ("uniform", 64): 400, ("random", 512): 500, ("uniform", 512): 450}
    c = {x.id: x for x in fig4.claims(_fig4(lambda sp, B: None if sp == "skewed" else paper.get((sp, B), 600)))}
    assert all(x.holds for x in c.values()), {k: (x.holds, x.aggregate) for k, x in c.items()}
    assert c["uniform_faster_small_batch"].aggregate["add/b64"] == [2.0, 2.0, 2.0]  # identical seeds: a point CI
    # uniform slower at small batch, and a gap that grows: both claims fail; skewed as fast as random fails
    flipped = {("random", 64): 400, ("uniform", 64): 500, ("random", 512): 300, ("uniform", 512): 900}
    c = {x.id: x for x in fig4.claims(_fig4(lambda sp, B: flipped.get((sp, B), 400)))}
    assert not any(x.holds for x in c.values())


def _fig5(t_test_of_c, collapsing_c=()):
    parts = []
    for task in fig5.TASKS:
        for c in fig5.C_QUICK:
            for s in range(2):
                df = curve(f"{task}/c{c:g}/s{s}", 50, t_test_of_c(c), seed=s, task__name=task, optim__name="adam",
                           optim__c=c)
                if c in collapsing_c:  # groks, falls to 0.5 twice (recovering between), ends at 1
                    df.loc[df["step"].isin([1000, 1050, 1500]), "test/acc"] = 0.5
                parts.append(df)
    df = frame(parts)
    return fig5.with_collapses(run_table(df), df)


def test_fig5_claims():
    times = {0.1: None, 1.0: 900, 10.0: 300, 100.0: 250}
    c = {x.id: x for x in fig5.claims(_fig5(times.get, collapsing_c=(100.0,)))}
    assert all(x.holds for x in c.values()), {k: (x.holds, x.aggregate) for k, x in c.items()}
    assert c["c10_balances"].per_seed["add/c=100 collapses"] == [2, 2]  # a final value of 1 hides both
    assert c["c10_balances"].per_seed["add/c=100 min_after"] == [0.5, 0.5]
    assert c["small_c_slow"].aggregate["add t_test(c=0.1) - t_test(c=10)"][0] == 2000 - 300  # censored: horizon
    # c=100 fastest and never collapsing: c=10 (300) is within 1.5x of 250, but "large c unstable" fails
    c = {x.id: x for x in fig5.claims(_fig5(times.get))}
    assert c["c10_balances"].holds and not c["large_c_unstable"].holds
    # c=1 much faster than c=10: balance fails
    c = {x.id: x for x in fig5.claims(_fig5({0.1: 900, 1.0: 100, 10.0: 300, 100.0: 400}.get))}
    assert not c["c10_balances"].holds and c["small_c_slow"].holds
    # c=10 itself collapses: not stable, so it does not balance
    c = {x.id: x for x in fig5.claims(_fig5(times.get, collapsing_c=(10.0, 100.0)))}
    assert not c["c10_balances"].holds and not c["large_c_unstable"].holds


def test_after_grok_counts_each_fall_once():
    from groklab.measures.curves import after_grok

    acc = [0.1, 0.5, 0.995, 0.8, 0.7, 0.995, 0.95, 0.85, 0.99, 1.0]
    assert after_grok(range(10), acc) == (0.7, 2)  # 0.8 -> 0.7 is one fall; 0.95 is no collapse
    assert after_grok(range(3), [0.1, 0.5, 0.9]) == (None, 0)
    assert after_grok(range(3), [0.99, 0.99, 1.0]) == (0.99, 0)


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


def test_fig3_claims_on_given_zero_shares():
    from groklab.experiments.embedding import fig3

    c = {x.id: x for x in fig3.claims({"random": [0.06, 0.07], "uniform": [0.05, 0.06], "skewed": [0.08, 0.09]})}
    assert c["sparse_gradient_columns"].holds and c["skewed_sparser_than_uniform"].holds
    c = {x.id: x for x in fig3.claims({"random": [0.0, 0.07], "uniform": [0.05, 0.06], "skewed": [0.04, 0.05]})}
    assert not c["sparse_gradient_columns"].holds and not c["skewed_sparser_than_uniform"].holds


def _hessian_df(ratio_of):
    rows = []
    for name in ("adam", "adam_lr", "adam_lr_adaptive"):
        for s in range(2):
            for step in (0, 100, 200, 300):
                rows.append({"run": f"{name}/s{s}", "step": step, "hessian/E_top": ratio_of[name] * 10.0,
                             "hessian/W_top": 10.0})
    return pd.DataFrame(rows)


def test_fig7_claims_from_hessian_metrics():
    from groklab.experiments.embedding import fig7

    per = {n: [fig7.median_censored(v) for k, v in sorted(fig7.ratios(_hessian_df(r)).items()) if k.startswith(n + "/")]
           for r in [{"adam": 0.01, "adam_lr": 0.3, "adam_lr_adaptive": 0.5}] for n in fig7.OPTIMS}
    c = {x.id: x for x in fig7.claims(per)}
    assert all(x.holds for x in c.values()) and c["adam_E_much_flatter_than_W"].per_seed["adam"] == [0.01, 0.01]
    c = {x.id: x for x in fig7.claims({"adam": [0.5, 0.5], "adam_lr": [0.05, 0.05], "adam_lr_adaptive": [1.5, 1.5]})}
    assert not c["adam_E_much_flatter_than_W"].holds and not c["adam_lr_closer"].holds
    assert c["adam_lr_adaptive_closer"].holds  # |log 1.5| < |log 0.5|: closer from above counts too
    c2 = fig7.claims({"adam": [0.5, 0.5], "adam_lr_adaptive": [0.9, 0.9]})
    assert c2[2].holds and not c2[1].holds  # no adam_lr runs: that claim cannot hold
    near = fig7.claims({"adam": [0.09, 0.111, 0.12], "adam_lr": [0.1, 0.2, 0.3]})
    assert not near[0].holds and near[0].aggregate["lo"] < 0.1 < near[0].aggregate["hi"]  # CI straddles 0.1
    assert not near[1].holds  # closer in the mean, but not beyond the seeds' spread
    assert fig7.claims({"adam": [0.02, 0.03, 0.025]})[0].holds


def test_fig10_rank_definitions_on_a_known_spectrum():
    from groklab.experiments.embedding import fig10

    s = np.array([2.0, 1.0, 0.01, 0.001, 0.0001])  # sigma / sigma_max = 1, 0.5, 5e-3, 5e-4, 5e-5
    assert [fig10.rank_of(s, d) for d in ("rtol1e-2", "rtol1e-3", "rtol1e-4")] == [2.0, 3.0, 4.0]
    assert fig10.rank_of(s, "stable") == pytest.approx((4 + 1 + 1e-4 + 1e-6 + 1e-8) / 4)
    assert fig10.rank_of(np.zeros(3), "stable") == 0.0 and fig10.rank_of(np.ones(7), "rtol1e-2") == 7.0


def test_fig10_claims_under_each_definition():
    from groklab.experiments.embedding import fig10

    def pts(ew, e, w):  # (first, at t_test, last) of each matrix, the same under every definition
        return {(d, m): v for d in fig10.DEFS for m, v in (("EW", ew), ("E", e), ("W", w))}

    st = {}
    for n in fig10.SETUPS:
        for s in range(3):
            lr = n.startswith("adam_lr")
            ew = (40.0, 20.0 + s, 10.0 if lr else 20.0 + s)
            st[f"{n}/s{s}"] = pts(ew, (49.0, 48.0, 47.0 - s), (256.0, 90.0, 60.0))
    c = {x.id: x for x in fig10.claims(st)}
    assert len(c) == 4 * len(fig10.DEFS) and all(x.holds for x in c.values())
    assert c["rank_E_stable[stable]"].per_seed["adam_wd1e-3"] == pytest.approx([2 / 49, 3 / 49, 4 / 49])
    st["adam_wd5e-3/s1"] = pts((40.0, 20.0, 12.0), (49.0, 30.0, 20.0), (256.0, 250.0, 250.0))  # one seed moves on
    c = {x.id: x for x in fig10.claims(st)}
    assert not any(c[f"{k}[rtol1e-3]"].holds for k in ("only_adam_lr_changes_rank_after_grokking", "rank_E_stable",
                                                       "rank_W_decreases"))
    assert c["rank_EW_decreases[rtol1e-3]"].holds
    st["adam_lr_adaptive_wd1e-3/s0"] = pts((40.0, 20.0, 45.0), (49.0, 1.0, 1.0), (256.0, 256.0, 256.0))
    assert fig10.claims(st)[0].holds  # adaptive c is reported, not judged
    assert not any(x.holds for x in fig10.claims({}))


def test_fig11_claims_on_key_shares_in_token_and_dlog_order():
    from groklab.experiments.embedding import fig11

    per = {"token": {"add": [0.9, 0.8, 0.95], "mul": [0.2, 0.25, 0.22], "div": [0.21, 0.23, 0.2]},
           "dlog": {"add": [0.3, 0.3, 0.3], "mul": [0.97, 0.99, 0.98], "div": [0.4, 0.5, 0.3]}}
    c = {x.id: x for x in fig11.claims(per)}
    assert c["add_peaked_token"].holds and not c["mul_peaked_token"].holds and c["mul_peaked_dlog"].holds
    assert c["add_peaked_vs_div_token"].holds and c["mul_peaked_vs_div_dlog"].holds
    assert not c["mul_peaked_vs_div_token"].holds  # 0.22 vs 0.21: the CI of the difference straddles 0
    assert c["mul_peaked_dlog"].aggregate["threshold"] == fig11.PEAKED and c["mul_peaked_dlog"].per_seed == {
        "mul": [0.97, 0.99, 0.98]}
    per["dlog"]["div"] = [0.96, 0.99, 0.97]  # div as peaked as mul in its own order: not "more diffuse"
    assert not {x.id: x for x in fig11.claims(per)}["mul_peaked_vs_div_dlog"].holds
    per["dlog"]["mul"] = [0.99]  # one seed: no CI, no verdict
    assert not {x.id: x for x in fig11.claims(per)}["mul_peaked_dlog"].holds
    assert not any(x.holds for x in fig11.claims({}))


def test_sampler_claims_on_given_entropies_and_times():
    from groklab.experiments.embedding import sampler

    ent = {"gamma1e-4": [0.0, 0.01, 0.002], "tau0.3": [0.86, 0.9, 0.88]}
    times = {"random": [1500.0, 1600.0, 1700.0], "tau0.3": [1000.0, 1100.0, 1200.0]}
    c = {x.id: x for x in sampler.claims(ent, times)}
    assert all(x.holds for x in c.values()) and c["entropy_sampler_groks_sooner"].aggregate["diff"] == 500.0
    ent["tau0.3"] = [0.995, 0.999, 0.998]  # indistinguishable from uniform
    times["tau0.3"] = [1400.0, 1800.0, 1600.0]
    c = {x.id: x for x in sampler.claims(ent, times)}
    assert not c["default_tau_samples_meaningfully"].holds and not c["entropy_sampler_groks_sooner"].holds
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
            times[B, split, "mean"] = [1050.0, 1150.0, 1250.0]  # 5% later: within the 25% margin
            times[B, split, "row"] = [700.0, 800.0, 900.0] if rare else [1000.0, 1100.0, 1200.0]
            f_E[B, split, "mean"] = [0.8, 0.82, 0.81] if rare else [0.999, 0.998, 0.999]
    c = {x.id: x for x in adaptive.claims(times, f_E)}
    assert all(x.holds for x in c.values()), {k: x.aggregate for k, x in c.items()}
    assert c["row_c_faster_where_tokens_are_rare"].aggregate["diff"] == 350.0
    times[512, "random", "mean"] = [1500.0, 1600.0, 1700.0]  # 45% later in one cell
    f_E[512, "random", "mean"] = [0.9, 0.92, 0.91]
    c = {x.id: x for x in adaptive.claims(times, f_E)}
    assert not c["adaptive_mean_no_later_than_fixed_c10"].holds and c["adaptive_row_no_later_than_fixed_c10"].holds
    assert not c["f_E_below_one_only_where_tokens_are_rare"].holds
    assert not any(x.holds for x in adaptive.claims({}, {}))
