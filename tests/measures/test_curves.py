"""Grokking events on synthetic curves: t_train / t_test / gap, and 004's GO-epoch, U-Acc, L-Acc."""
import numpy as np

from groklab.measures import grok_events
from groklab.measures.curves import rise_over

STEPS = list(range(0, 1100, 100))


def events(test, train=None, **kw):
    train = train or [0.5] + [1.0] * (len(test) - 1)
    return grok_events(STEPS[:len(test)], train, test, **kw)


def test_a_plateau_then_a_rise():
    e = events([0.01, 0.02, 0.02, 0.03, 0.2, 0.6, 0.9, 1.0, 1.0, 1.0, 1.0])
    assert (e["t_train"], e["test_at_fit"], e["go_step"]) == (100, 0.02, 400)  # 0.2 >= 0.02 + 0.1
    assert (e["u_acc"], e["l_acc"], e["t_test"], e["gap"]) == (1.0, 1.0, 700, 600)


def test_oscillation_after_the_peak_sets_l_acc():
    e = events([0.0, 0.0, 0.3, 0.8, 0.95, 0.7, 0.9, 0.6, 0.93, 0.94, 0.9])
    assert e["go_step"] == 200 and e["u_acc"] == 0.95 and e["l_acc"] == 0.6  # lowest after 0.95 was reached
    late_peak = events([0.0, 0.0, 0.3, 0.5, 0.2, 0.6])
    assert late_peak["u_acc"] == late_peak["l_acc"] == 0.6  # reached at the last eval: nothing after it


def test_never_takes_off_disappears():
    e = events([0.01, 0.03, 0.05, 0.08, 0.1, 0.12, 0.11])  # +0.09 above the value at the fit: below the rise
    assert e["go_step"] is None and e["u_acc"] is None and e["l_acc"] is None and e["t_test"] is None
    assert events([0.01, 0.03, 0.05, 0.09, 0.1, 0.12, 0.11], rise=0.05)["go_step"] == 300
    unfit = events([0.0, 0.5, 0.9], train=[0.1, 0.2, 0.3])  # the training set is never fit: no grokking
    assert unfit["t_train"] is None and unfit["go_step"] is None


def test_onset_rise_time_and_drops_on_the_normalised_test_accuracy():
    e = events([0.02, 0.02, 0.05, 0.2, 0.5, 0.95, 0.99, 0.9, 1.0, 0.8, 1.0])
    # a0 = 0.02: level 0.1 is acc 0.118 (step 300), level 0.9 is acc 0.902 (step 500)
    assert (e["onset"], e["t_90"], e["rise_time"]) == (300, 500, 200)
    assert e["drops"] == 2  # 0.99 -> 0.9 and 1.0 -> 0.8
    flat = events([0.02, 0.03, 0.05, 0.04])
    assert flat["onset"] is None and flat["rise_time"] is None and flat["drops"] == 0


def test_rise_over_measures_from_chance_when_memorization_sits_below_it():
    steps = [0, 100, 200, 300, 400, 500]
    train = [0.2, 1.0, 1.0, 1.0, 1.0, 1.0]
    test = [0.2, 0.08, 0.2, 0.25, 0.35, 0.9]
    ev = rise_over(steps, train, test, floor=0.2)
    assert ev == {"t_fit": 100, "at_fit": 0.08, "base": 0.2, "t_rise": 400, "best": 0.9}
    assert rise_over(steps, train, test)["t_rise"] == 200  # from the value at the fit, back-to-chance is a rise
    flat = rise_over(steps, train, [0.2, 0.08, 0.1, 0.12, 0.1, 0.1], floor=0.2)
    assert flat["t_rise"] is None and flat["best"] == 0.12
    assert rise_over(steps, [0.5] * 6, test)["t_fit"] is None  # never fit: nothing to measure


def _plateau_stop(train, test, window=300, tol=0.01, steps=STEPS):
    """The first eval step at which a tracker with a plateau window says stop (None: never)."""
    from groklab.measures.curves import GrokTracker

    tr = GrokTracker(patience=None, plateau=window, plateau_tol=tol)
    for step, a, b in zip(steps, train, test):
        tr.update(step, a, b)
        if tr.should_stop(step):
            return step, tr.stopped_by
    return None


def test_plateau_counts_from_the_last_rise_of_either_accuracy():
    fit = [0.5, 0.9, 1.0] + [1.0] * 8
    # test flat at 0.3 after the fit (step 200): stop 300 steps after the last rise, at 500
    assert _plateau_stop(fit, [0.0, 0.1, 0.3] + [0.3] * 8) == (500, "plateau")
    # a rise at 400 (0.3 -> 0.5) restarts the window: stop at 700
    assert _plateau_stop(fit, [0.0, 0.1, 0.3, 0.3, 0.5] + [0.5] * 6) == (700, "plateau")
    # a creep of 0.006 per eval beats the level every other eval (a level, not a running maximum): never stops
    assert _plateau_stop(fit, [0.3 + 0.006 * i for i in range(11)]) is None
    # test moves below the tolerance are flat: the window counts from the fit's last rise (200)
    assert _plateau_stop(fit, [0.3, 0.305, 0.3, 0.309, 0.3] + [0.3] * 6) == (500, "plateau")
    # off (the default): never
    assert _plateau_stop(fit, [0.3] * 11, window=None) is None


def test_still_rising_reads_the_last_quarter_of_the_run():
    """A curve cut off mid-rise may still be rising (censored at the horizon), and so may a noisy end whose rise
    cannot be ruled out; a plateau shown flat, a curve at its ceiling and a falling one are not, nor is a run
    with too few evals to read a trend."""
    from groklab.measures.curves import still_rising

    steps = np.arange(0, 30001, 500)
    mid_rise = 0.45 * (1 - np.exp(-steps / 40000))  # 000's no-embedding add at 30,000 steps: +0.02-0.04 late
    assert still_rising(steps, mid_rise)
    assert not still_rising(steps, np.minimum(1.0, steps / 10000))  # reached its ceiling long before the end
    flat = 0.5 + 0.002 * np.random.default_rng(0).standard_normal(len(steps))
    assert not still_rising(steps, flat)  # flat within a fifth of a point: a plateau, shown
    noisy = 0.45 + 0.02 * steps / 30000 + 0.01 * np.random.default_rng(1).standard_normal(len(steps))
    assert still_rising(steps, noisy)  # 000 fig2's quick seeds: +0.02-0.03 late under noise, no plateau shown
    assert not still_rising(steps, 0.9 - steps / 1e6)
    slow = 0.5 + steps * 1e-7  # rising, but by 0.00075 over the window: not a rise that counts
    assert not still_rising(steps, slow)
    assert not still_rising([0, 100, 200], [0.1, 0.2, 0.3])
    # the window is the last quarter of the steps: a rise that ended before it does not count
    early = np.minimum(0.6, steps / 20000)
    assert not still_rising(steps, early)


def test_held_from_is_the_first_streak_that_lasts():
    from groklab.measures.curves import held_from

    steps = list(range(0, 1001, 100))
    acc = [0.1, 0.5, 0.99, 0.97, 0.995, 0.99, 1.0, 1.0, 0.98, 1.0, 1.0]
    assert held_from(steps, acc, 0.99, 0) == 200  # the first touch
    assert held_from(steps, acc, 0.99, 200) == 400  # 200 falls back at 300; 400-600 holds 200 steps
    assert held_from(steps, acc, 0.99, 400) == 900  # 400-700 breaks at 800; 900-1000 runs to the end
    assert held_from(steps, acc[:9], 0.99, 400) is None  # ends below the level: no streak
    assert held_from([], [], 0.99, 100) is None and held_from(steps, acc, 0.95, 0) == 200
