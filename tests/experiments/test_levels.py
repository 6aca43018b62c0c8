"""The shared claim vocabulary for levels and trends: synthetic data whose verdict is known."""
from groklab.experiments import levels
from groklab.survival import Censored

XS = {"x1": 1, "x2": 2, "x3": 3}


def test_comparisons_hold_only_beyond_seed_noise():
    v = {"a": [100, 110, 120], "b": [300, 310, 290], "c": [0.95, 0.96, 0.97], "d": [0.95, 0.97, 0.96],
         "e": [0.1, 0.1, 0.1], "f": [0.1, 0.1, 0.1]}
    assert levels.contrast("x", "", "t", v, "a", "b", -1).holds
    assert not levels.contrast("x", "", "t", v, "a", "b", 1).holds
    assert levels.within("x", "", "acc", v, "c", "d", 0.05, floor=0.9).holds
    assert not levels.within("x", "", "acc", v, "e", "f", 0.05, floor=0.9).holds  # both learned nothing
    assert not levels.within("x", "", "acc", v, "a", "b", 0.05).holds
    trend = {"x1": [1, 2], "x2": [5, 6], "x3": [9, 10]}
    assert levels.trend("x", "", "t", trend, {"x1": 1, "x2": 2, "x3": 3}, 1).holds
    assert levels.trend("x", "", "t", trend, XS, -1).holds is False  # the other way
    one = {"a": [100], "b": [300], "c": [0.95], "d": [0.96]}  # a single seed gives no verdict either way
    assert not levels.contrast("x", "", "t", one, "a", "b", -1).holds
    assert not levels.within("x", "", "acc", one, "c", "d", 0.05).holds
    assert levels.trend("x", "", "t", {"x1": [1], "x2": [5], "x3": [9]}, XS, 1).reason == "precondition"
    assert not levels.contrast("x", "", "acc", {"a": [0.3, 0.31], "b": [0.01, 0.02]}, "a", "b", 1, floor=0.9).holds
    above = levels.below("x", "", "lag", {"a": [Censored(2.0), 1.5, 1.8]}, ["a"], 0.0)
    assert above.holds is False  # a CI of lower bounds wholly above 0 already fails
    mixed = levels.below("x", "", "lag", {"a": [Censored(2.0), -0.5, -0.4]}, ["a"], 0.0)
    assert mixed.holds is None and mixed.reason == "censored"  # its CI spans 0: the bound does not decide
    open_ = levels.below("x", "", "lag", {"a": [Censored(-0.1), -0.5, -0.4]}, ["a"], 0.0)
    assert open_.holds is None and open_.reason == "censored"
    assert levels.below("x", "", "lag", {"a": [-0.5, -0.4, -0.45]}, ["a"], 0.0).holds is True
    wide = levels.below("x", "", "lag", {"a": [-0.5, 0.3, -0.45]}, ["a"], 0.0)
    assert wide.holds is None and wide.reason == "underpowered"




def test_an_equivalence_follows_its_own_stated_rule():
    v = {"same": [0.95, 0.96, 0.97], "ref": [0.96, 0.95, 0.97], "low": [0.46, 0.97, 0.98, 0.99, 0.96],
         "flat": [0.1, 0.11, 0.1], "flat2": [0.1, 0.1, 0.12], "far": [0.2, 0.25, 0.22], "hi": [0.99, 0.992, 0.998]}
    assert levels.within("x", "", "acc", v, "same", "ref", 0.05, floor=0.9).holds is True
    assert levels.within("x", "", "acc", v, "far", "ref", 0.05, floor=0.9).holds is False  # wholly outside
    # two arms that learned nothing: not "the same", but no evidence of a difference either
    assert levels.within("x", "", "acc", v, "flat", "flat2", 0.05, floor=0.9).reason == "precondition"
    # the rule says "does not hold if the CI lies wholly outside": a CI reaching into the margin never does
    # (002's ksum BiRNN: wd 0 at 0.99-1.00 against 0.46-0.99 with wd 1, read "does not hold" until 2026-11-28)
    straddle = levels.within("x", "", "acc", v, "hi", "low", 0.05, floor=0.9)
    assert straddle.holds is None and straddle.aggregate["lo"] < 0.05 < straddle.aggregate["hi"]
    near = levels.within("x", "", "acc", {"a": [0.97, 0.99, 0.95], "b": [0.92, 0.99, 0.96]}, "a", "b", 0.05)
    assert near.holds is None and near.reason == "underpowered"
    # "does not rely on weight decay": no worse without it (non-inferiority), and it generalizes
    assert levels.not_below("x", "", "acc", v, "hi", "low", 0.05, floor=0.9).holds is True
    assert levels.not_below("x", "", "acc", v, "low", "hi", 0.05, floor=0.9).holds is False
    censored = {"a": [Censored(0.04), 0.99, 0.995], "b": [0.99, 0.98, 0.995]}
    assert levels.within("x", "", "acc", censored, "a", "b", 0.05, floor=0.9).reason == "censored"


def test_a_trend_weaker_than_claimed_or_within_noise_is_told_apart():
    clear = {"x1": [1.0, 1.1], "x2": [2.0, 2.1], "x3": [3.0, 3.1]}
    assert levels.trend("x", "", "u", clear, XS, -1, strength=0.5).holds is False  # rises: does not fall
    noisy = {"x1": [3.0, 0.0], "x2": [2.0, 1.2], "x3": [0.1, 3.0]}  # means 1.5, 1.6, 1.55: rho 0.5
    c = levels.trend("x", "", "u", noisy, XS, 1)
    assert c.holds is None and c.reason == "underpowered" and "reaches 0" in c.note
    weak = levels.trend("x", "", "u", noisy, XS, 1, strength=0.8)  # rho 0.5, but its CI reaches 0.8
    assert weak.holds is None and weak.reason == "underpowered"
    kinked = {"x1": [1.0, 1.05], "x2": [3.0, 3.05], "x3": [2.0, 2.05]}  # rho 0.5 on every resample
    short = levels.trend("x", "", "u", kinked, XS, 1, strength=0.8)
    assert short.holds is False and "rho = 0.50" in short.note  # the whole CI short of 0.8: decided
    flat = levels.trend("x", "", "u", {"x1": [1.0, 1.0], "x2": [1.0, 1.0], "x3": [1.0, 1.0]}, XS, 1)
    assert flat.holds is False  # equal means are no trend


def test_every_seed_is_three_valued():
    reach = lambda u: u >= 0.99  # noqa: E731
    assert levels.every_seed("x", "", "U-Acc", {"a": [1.0, 0.995], "b": [0.99]}, reach, "U-Acc >= 0.99").holds
    c = levels.every_seed("x", "", "U-Acc", {"a": [1.0, 0.9], "b": [0.99]}, reach, "U-Acc >= 0.99")
    assert c.holds is False and c.note == "a: 1 of 2 seeds fail" and c.aggregate["seeds passing"]["a"] == "1 of 2"
    open_ = levels.every_seed("x", "", "t", {"a": [100, None]}, lambda t: None if t is None else t < 500, "t < 500")
    assert open_.holds is None and open_.reason == "censored" and "1 of 2 seeds cannot tell" in open_.note
    failed_beats_open = levels.every_seed("x", "", "t", {"a": [900, None]},
                                          lambda t: None if t is None else t < 500, "t < 500")
    assert failed_beats_open.holds is False  # one seed that fails decides, whatever the others
    empty = levels.every_seed("x", "", "U-Acc", {"a": [1.0], "b": []}, reach, "U-Acc >= 0.99")
    assert empty.holds is None and empty.reason == "precondition" and "b" in empty.note
    assert "on every seed of a, b" in empty.statistic


def test_above_reads_censored_values_as_lower_bounds():
    assert levels.above("x", "", "u", {"a": [0.9, 0.92, 0.91]}, ["a"], 0.5).holds is True
    assert levels.above("x", "", "u", {"a": [0.4, 0.45, 0.42]}, ["a"], 0.5).holds is False
    wide = levels.above("x", "", "u", {"a": [0.1, 0.9, 0.95]}, ["a"], 0.5)
    assert wide.holds is None and wide.reason == "underpowered"
    assert levels.above("x", "", "d", {"a": [Censored(3.0), 4.0, 5.0]}, ["a"], 2.0).holds is True  # bounds clear it
    low = levels.above("x", "", "d", {"a": [Censored(0.5), 1.0, 1.2]}, ["a"], 2.0)  # the bound may lie far below
    assert low.holds is None and low.reason == "censored"
    assert levels.above("x", "", "u", {"a": [0.9], "b": []}, ["a", "b"], 0.5).reason == "precondition"


def test_all_of_is_kleene_and():
    yes = levels.above("a", "", "u", {"x": [0.9, 0.92, 0.91]}, ["x"], 0.5)
    no = levels.above("b", "", "u", {"x": [0.1, 0.12, 0.11]}, ["x"], 0.5)
    open_ = levels.above("c", "", "u", {"x": [0.9]}, ["x"], 0.5)  # one seed: no interval
    assert levels.all_of("z", "", {"a": yes, "b": yes}).holds is True
    assert levels.all_of("z", "", {"a": open_, "b": no}).holds is False  # one that fails decides
    both = levels.all_of("z", "", {"a": yes, "c": open_})
    assert both.holds is None and both.reason == "underpowered" and set(both.per_seed) == {"x a", "x c"}
    assert set(levels.all_of("z", "", {"a": yes, "b": yes}).per_seed) == {"x"}  # the same values once


def test_every_seed_reads_numpy_booleans():
    import numpy as np

    ratios = {"wd1": [(np.float64(1.2), np.float64(0.8))]}  # MED rose: the rule fails on this seed
    c = levels.every_seed("x", "", "r", ratios, lambda m: m[0] < 1 and m[1] < 1, "both < 1")
    assert c.holds is False and c.aggregate["seeds passing"]["wd1"] == "0 of 1"


def test_not_below_is_one_sided_non_inferiority():
    v = {"same": [0.97, 0.98, 0.99], "top": [1.0, 1.0, 1.0], "bad": [0.5, 0.55, 0.6], "spread": [0.99, 0.6, 0.99],
         "dead": [0.02, 0.01, 0.02], "dead2": [0.01, 0.02, 0.01]}
    assert levels.not_below("x", "", "acc", v, "same", "top", 0.05).holds is True
    assert levels.not_below("x", "", "acc", v, "top", "bad", 0.05).holds is True  # better is "not below"
    worse = levels.not_below("x", "", "acc", v, "bad", "top", 0.05)
    assert worse.holds is False and worse.aggregate["diff"] < -0.05
    wide = levels.not_below("x", "", "acc", v, "spread", "top", 0.05)  # below by 0.14, but its CI reaches -0.05
    assert wide.holds is None and wide.reason == "underpowered"
    near = {"a": [1.0, 0.9, 1.0, 1.0], "b": [1.0, 1.0, 1.0, 1.0]}  # mean -0.025, CI reaches -0.075
    c = levels.not_below("x", "", "acc", near, "a", "b", 0.05)
    assert c.holds is None and c.reason == "underpowered" and "n = 4, 4" in c.note
    assert levels.not_below("x", "", "acc", v, "dead", "dead2", 0.05, floor=0.9).holds is False
    assert levels.not_below("x", "", "acc", {"a": [1.0]}, "a", "b", 0.05).reason == "precondition"
    assert levels.not_below("x", "", "acc", {"a": [1.0], "b": [1.0]}, "a", "b", 0.05).holds is not True  # 1 seed


def test_a_contrast_with_a_least_effect_is_answered_by_a_narrow_interval():
    """With `smallest`, a CI that rules out every difference that large on the claimed side does not hold (a
    minimum-effect test); a CI wide enough to hold it stays underpowered; a difference beyond noise still holds."""
    flat = {"a": [0.111, 0.112, 0.110, 0.113, 0.111], "b": [0.112, 0.111, 0.113, 0.112, 0.110]}
    plain = levels.contrast("x", "", "share", flat, "a", "b", 1)
    assert plain.holds is None and plain.reason == "underpowered"  # without a least effect: no answer
    c = levels.contrast("x", "", "share", flat, "a", "b", 1, smallest=0.05)
    assert c.holds is False and c.reason == "" and "rules out a difference of 0.05" in c.note
    assert "or below 0.05" in c.statistic
    wide = {"a": [0.1, 0.5, 0.9], "b": [0.3, 0.5, 0.7]}
    assert levels.contrast("x", "", "share", wide, "a", "b", 1, smallest=0.05).reason == "underpowered"
    peaked = {"a": [0.99, 0.98, 0.99], "b": [0.11, 0.12, 0.11]}
    assert levels.contrast("x", "", "share", peaked, "a", "b", 1, smallest=0.05).holds is True
    lower = {"a": [0.50, 0.51, 0.52], "b": [0.511, 0.505, 0.51]}  # sign -1: a below b by at least 0.05?
    assert levels.contrast("x", "", "share", lower, "a", "b", -1, smallest=0.05).holds is False
    one = levels.contrast("x", "", "share", {"a": [0.11], "b": [0.11]}, "a", "b", 1, smallest=0.05)
    assert one.holds is not False  # one seed has no interval to rule anything out
