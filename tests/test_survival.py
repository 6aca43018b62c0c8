"""Censoring-aware comparisons of event times on data whose answers are known (textbook and by hand)."""
import pytest

from groklab.survival import Censored, concordance, km_median, logrank

# Freireich et al. (1963), the leukaemia remission data of Gehan (1965), in weeks; C = censored.
C = Censored
MP6 = [6, 6, 6, C(6), 7, C(9), 10, C(10), C(11), 13, 16, C(17), C(19), C(20), 22, 23, C(25), C(32), C(32), C(34),
       C(35)]
PLACEBO = [1, 1, 2, 2, 3, 4, 4, 5, 5, 8, 8, 8, 8, 11, 11, 12, 12, 15, 17, 22, 23]


def test_kaplan_meier_medians_of_the_leukaemia_data():
    assert km_median(MP6, horizon=35)["median"] == 23  # the textbook 6-MP median
    placebo = km_median(PLACEBO, horizon=35)
    assert placebo["median"] == 8 and placebo["events"] == 21
    assert placebo["lo"] <= 8 <= placebo["hi"]


def test_log_rank_of_the_leukaemia_data_is_the_textbook_chi_square():
    from scipy.stats import chi2

    p = logrank(MP6, PLACEBO, horizon=35)
    assert p == pytest.approx(chi2.sf(16.79, 1), rel=0.02)  # chi-square 16.79 on 1 df


def test_gehan_concordance_and_its_exact_permutation_p_value():
    # by hand: every A event precedes every B event
    r = concordance([1, 2, 3], [4, 5, 6], horizon=10)
    assert r["p_a_first"] == 1.0 and r["undecided"] == 0
    assert r["p_value"] == pytest.approx(2 / 20)  # 2 of the C(6, 3) = 20 labelings are as extreme
    assert r["p_a_sooner"] == pytest.approx(1 / 20)  # one-sided: only the observed labeling is as extreme
    assert r["p_b_sooner"] == pytest.approx(1.0)  # the opposite order: every labeling is at least as extreme
    flipped = concordance([4, 5, 6], [1, 2, 3], horizon=10)
    assert flipped["p_a_first"] == 0.0 and flipped["p_b_sooner"] == pytest.approx(1 / 20)
    mixed = concordance([1, 5, 3], [4, 2, 6], horizon=10)  # the two one-sided p-values overlap at the observed
    assert mixed["p_a_sooner"] + mixed["p_b_sooner"] > 1  # labeling: neither order is beyond noise
    # no censoring: the Mann-Whitney probability
    from scipy.stats import mannwhitneyu

    a, b = [3, 5, 9, 12], [4, 8, 10, 15, 20]
    u = mannwhitneyu(a, b).statistic  # pairs with a > b
    assert concordance(a, b, horizon=30)["p_a_first"] == pytest.approx(1 - u / 20)


def test_a_run_that_hovers_below_the_threshold_is_censored_not_slow():
    """Adam-LR reaches the event at 700 on two seeds and never on the third; Adam at 1,350-1,400 on all three.
    A mean with the 20,000-step horizon imputed says Adam-LR is ~5x slower (7,133 vs 1,367); censoring-aware
    statistics say its median is 700 and that a run of it is first in 6 of 9 pairs: the hovering run is later
    than every Adam run (all reached the event before the horizon), never a number of 20,000 steps."""
    adam_lr, adam = [700, None, 700], [1350, 1400, 1350]
    m = km_median(adam_lr, horizon=20000)
    assert m["median"] == 700 and m["events"] == 2 and m["hi"] is None  # the upper bound lies beyond the horizon
    r = concordance(adam_lr, adam, horizon=20000)
    assert r["p_a_first"] == pytest.approx(6 / 9) and r["undecided"] == 0
    late = concordance([700, None, 700], [1350, None, 1350], horizon=20000)  # both hover once: that pair is open
    assert late["undecided"] == 1 and late["p_a_first"] == pytest.approx((6 + 0.5) / 9)  # 6 A-first, 1 tie


def test_no_events_gives_no_median_and_no_test():
    assert km_median([None, None], horizon=100)["median"] is None
    assert logrank([None], [None], horizon=100) is None
    with pytest.raises(ValueError, match="beyond the horizon"):
        km_median([150], horizon=100)


def test_a_monte_carlo_permutation_p_value_is_never_zero():
    """Beyond max_exact label permutations the p-value is estimated from draws, counting the observed labelling
    as one (Phipson & Smyth 2010): complete separation of 10 runs from 10 gives 1/(reps + 1), not 0; the exact
    value, 1/C(20, 10) = 5.4e-6, is below what 999 draws can tell."""
    a, b = list(range(10)), list(range(100, 110))
    r = concordance(a, b, horizon=1000, max_exact=100, reps=999)
    assert r["p_a_first"] == 1.0 and r["p_a_sooner"] == 1 / 1000 and r["p_value"] == 1 / 1000
    assert r["p_b_sooner"] == 1.0
    exact = concordance(a[:4], b[:4], horizon=1000)  # C(8, 4) = 70 labellings: enumerated, the observed among them
    assert exact["p_a_sooner"] == 1 / 70


def test_the_row_sum_null_is_the_pair_loop_null():
    """Mantel's row sums give the exact and Monte Carlo nulls of the pair loop they replaced, draw for draw."""
    import random
    import runpy
    from pathlib import Path

    loop = runpy.run_path(str(Path(__file__).parents[1] / "benchmarks" / "bench_survival.py"))["pair_loop"]
    rnd = random.Random(3)
    for na, nb in ((3, 4), (6, 6), (12, 11)):  # the last is past the exact bound: Monte Carlo
        a = [Censored(1500.0) if rnd.random() < 0.3 else float(rnd.randrange(50, 1500, 50)) for _ in range(na)]
        b = [Censored(1000.0) if rnd.random() < 0.3 else float(rnd.randrange(50, 1500, 50)) for _ in range(nb)]
        assert concordance(a, b, 1600.0, reps=500)["p_a_sooner"] == loop(a, b, 1600.0, reps=500)


def test_stratified_gehan_matches_the_exact_test_on_one_stratum_and_keeps_strata_apart():
    from groklab.survival import arrays, concordance, stratified

    a, b = [100, 200, 300, None], [250, 350, None, None]
    one = stratified([(arrays(a), arrays(b))], reps=20000)
    exact = concordance(a, b, 1000)
    assert one["p_a_first"] == exact["p_a_first"] == 0.75
    assert abs(one["p_value"] - exact["p_value"]) < 0.02 and abs(one["p_a_sooner"] - exact["p_a_sooner"]) < 0.02
    # A first within each stratum, though stratum 2's times all lie above stratum 1's: pooling would blur it
    fast = [(arrays([10, 11, 12]), arrays([20, 21, 22])), (arrays([1000, 1001, 1002]), arrays([2000, 2001, 2002]))]
    got = stratified(fast, reps=4000)
    assert got["p_a_first"] == 1.0 and got["p_a_sooner"] < 0.01 and got["strata"] == 2
    assert stratified([(arrays([]), arrays([1.0]))])["p_a_first"] is None
