"""Grokking events from accuracy curves, on the eval grid, fed one eval row at a time.

- t_train, t_test: first eval step with train (test) accuracy >= its threshold; gap = t_test - t_train.
- go_step (004's GO-epoch, in steps): the first eval step at or after t_train where test accuracy exceeds
  `test_at_fit` (its value at t_train) by at least `rise`. None -- 004's "disappear" -- when it never does
  (or the training set is never fit).
- u_acc (004's U-Acc): the highest test accuracy from go_step on; None without a go_step.
- l_acc (004's L-Acc): the lowest test accuracy after u_acc was first reached (equal to u_acc when it is
  reached at the last eval); u_acc - l_acc is the oscillation after grokking.
- h_acc (H-Acc, ours): with a SQUARE/STRIP holdout, the accuracy on the holdout alone at the eval where u_acc
  was reached. U-Acc mixes the holdout with the test rows outside it, whose share grows with k; H-Acc is what
  004's mechanism (the holdout cannot be inferred) is about.
- onset, t_90, rise_time (002's "starts earlier, rises more gently"): on the normalised test accuracy
  (acc - a0) / (1 - a0), a0 = test accuracy at the first eval (chance at step 0), onset is the first eval step
  where it reaches 0.1 and t_90 the first where it reaches 0.9; rise_time = t_90 - onset. They need no fit, so
  a curve that learns without a plateau has them too.
- drops: how many times test accuracy fell by at least `drop` between consecutive evals (002's oscillation).
- stop: early once test accuracy stayed >= stop_target for `patience` steps ("target"), or, when `plateau` is
  set, once neither accuracy rose by plateau_tol for `plateau` steps ("plateau").
The resolution of every step is the eval schedule (004 evaluates every 100 epochs).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Optional, Sequence


@dataclass
class GrokTracker:
    """Fed one eval row at a time; its fields are plain data, saved in checkpoints."""

    train_thr: float = 0.99
    test_thr: float = 0.99
    stop_target: float = 0.99
    patience: Optional[int] = 1000  # None: never stop early
    rise: float = 0.1  # go_step: test acc above its value at t_train by this much
    t_train: Optional[int] = None  # first eval step with train acc >= train_thr
    t_test: Optional[int] = None  # first eval step with test acc >= test_thr
    streak_start: Optional[int] = None  # first step of the current run of test acc >= stop_target
    test_at_fit: Optional[float] = None  # test acc at t_train
    go_step: Optional[int] = None
    u_acc: Optional[float] = None
    l_acc: Optional[float] = None
    drop: float = 0.05  # a fall of test acc between consecutive evals that counts as a drop
    test_at_start: Optional[float] = None  # a0: test acc at the first eval
    last_test: Optional[float] = None
    onset: Optional[int] = None
    t_90: Optional[int] = None
    drops: int = 0
    h_acc: Optional[float] = None
    holdout: bool = False  # a holdout accuracy was seen: the run reports h_acc
    plateau: Optional[int] = None  # stop once no accuracy rose by plateau_tol for this many steps (None: never)
    plateau_tol: float = 0.01
    level_train: Optional[float] = None  # train / test accuracy at their last rise (the levels to beat)
    level_test: Optional[float] = None
    rose_at: Optional[int] = None  # step of the last rise of either
    stopped_by: Optional[str] = None  # "target" or "plateau", once should_stop said yes

    def update(self, step: int, train_acc: float, test_acc: float, holdout_acc: Optional[float] = None) -> None:
        self.holdout = self.holdout or holdout_acc is not None
        if self.t_train is None and train_acc >= self.train_thr:
            self.t_train, self.test_at_fit = step, test_acc
        if self.t_test is None and test_acc >= self.test_thr:
            self.t_test = step
        if self.go_step is None and self.test_at_fit is not None and test_acc >= self.test_at_fit + self.rise:
            self.go_step = step
        if self.go_step is not None:
            if self.u_acc is None or test_acc > self.u_acc:
                self.u_acc = self.l_acc = test_acc
                self.h_acc = holdout_acc
            else:
                self.l_acc = min(self.l_acc, test_acc)
        self._onset(step, test_acc)
        self._levels(step, train_acc, test_acc)
        if test_acc >= self.stop_target:
            self.streak_start = step if self.streak_start is None else self.streak_start
        else:
            self.streak_start = None

    def _onset(self, step: int, test_acc: float) -> None:
        if self.test_at_start is None:
            self.test_at_start = test_acc
        if self.last_test is not None and self.last_test - test_acc >= self.drop:
            self.drops += 1
        self.last_test = test_acc
        a0 = self.test_at_start
        level = (test_acc - a0) / (1 - a0) if a0 < 1 else 1.0
        if self.onset is None and level >= 0.1:
            self.onset = step
        if self.t_90 is None and level >= 0.9:
            self.t_90 = step

    def _levels(self, step: int, train_acc: float, test_acc: float) -> None:
        """A rise is an accuracy above its level at the last rise by more than plateau_tol (a level, not a
        running maximum, so a slow creep of tol/2 per eval still counts every other eval)."""
        if self.level_train is None or train_acc > self.level_train + self.plateau_tol:
            self.level_train, self.rose_at = train_acc, step
        if self.level_test is None or test_acc > self.level_test + self.plateau_tol:
            self.level_test, self.rose_at = test_acc, step

    def should_stop(self, step: int) -> bool:
        if (self.patience is not None and self.streak_start is not None
                and step - self.streak_start >= self.patience):
            self.stopped_by = "target"
        elif self.plateau is not None and self.rose_at is not None and step - self.rose_at >= self.plateau:
            self.stopped_by = "plateau"
        return self.stopped_by is not None

    @property
    def gap(self) -> Optional[int]:
        return None if self.t_train is None or self.t_test is None else self.t_test - self.t_train

    @property
    def rise_time(self) -> Optional[int]:
        return None if self.onset is None or self.t_90 is None else self.t_90 - self.onset

    def events(self) -> dict:
        return {"t_train": self.t_train, "t_test": self.t_test, "gap": self.gap, "go_step": self.go_step,
                "u_acc": self.u_acc, "l_acc": self.l_acc, "test_at_fit": self.test_at_fit, "onset": self.onset,
                "t_90": self.t_90, "rise_time": self.rise_time, "drops": self.drops,
                **({"h_acc": self.h_acc} if self.holdout else {})}

    def state_dict(self) -> dict:
        return asdict(self)

    def load_state_dict(self, state: dict) -> None:
        for key, value in state.items():  # a checkpoint from before a field existed keeps its default
            setattr(self, key, value)


def grok_events(steps: Sequence[int], train_acc: Sequence[float], test_acc: Sequence[float],
                train_thr: float = 0.99, test_thr: float = 0.99, rise: float = 0.1) -> dict:
    """The events above of a finished curve (the live tracker's definitions)."""
    tr = GrokTracker(train_thr, test_thr, patience=None, rise=rise)
    for s, a, b in zip(steps, train_acc, test_acc):
        tr.update(int(s), float(a), float(b))
    return tr.events()


def rise_over(steps: Sequence[int], train_acc: Sequence[float], test_acc: Sequence[float], floor: float = 0.0,
              train_thr: float = 0.99, rise: float = 0.1) -> dict:
    """The rise of test accuracy after the training set is fit, measured from max(its value at the fit, floor).

    With `floor` = chance, a network that memorized *below* chance (mod-m labels: its neighbours' labels are
    never its own) and is knocked back to chance by a loss spike has not risen. Returns t_fit, at_fit, base,
    t_rise (first eval from t_fit on with test acc >= base + rise; None: no rise) and best (highest test acc
    from t_rise on, or from t_fit on when it never rose; None: never fit)."""
    fit = next((i for i, a in enumerate(train_acc) if a >= train_thr), None)
    if fit is None:
        return {"t_fit": None, "at_fit": None, "base": None, "t_rise": None, "best": None}
    base = max(float(test_acc[fit]), floor)
    up = next((i for i in range(fit, len(test_acc)) if test_acc[i] >= base + rise), None)
    return {"t_fit": int(steps[fit]), "at_fit": float(test_acc[fit]), "base": base,
            "t_rise": None if up is None else int(steps[up]), "best": float(max(test_acc[fit if up is None else up:]))}


def held_from(steps: Sequence[int], acc: Sequence[float], level: float = 0.99,
              persistence: float = 0.0) -> Optional[int]:
    """Time to grok as the field defines it: the first eval step after which accuracy stays >= `level` at every
    eval for at least `persistence` steps, or to the run's end (a streak the run's end cuts short counts: an
    early stop on the target ends a run this way). None when no streak does. With `persistence` 0 it is the
    first touch (t_test). A streak broken by one eval below the level starts again after it: a run that touches
    the level and falls back has not grokked there."""
    start = None
    for s, a in zip(steps, acc):
        if a >= level:
            start = s if start is None else start
            if s - start >= persistence:
                return int(start)
        else:
            start = None
    return None if start is None else int(start)


RISING_WINDOW = 0.25  # the last quarter of a run's steps: long enough to see a trend, late enough to be the end
RISING_MIN = 0.01  # the least fitted rise over that window that counts (a point of accuracy)


def late_trend(steps: Sequence[int], acc: Sequence[float], window: float = RISING_WINDOW,
               level: float = 0.95) -> tuple[float, float, float] | None:
    """The rise of a curve over the last `window` of its steps, fitted: (Theil-Sen slope x the stretch its evals
    span, and the `level` interval's ends times the same); None with fewer than 4 evals there."""
    from scipy.stats import theilslopes

    if len(steps) < 2:
        return None
    end = float(steps[-1])
    start = end - window * (end - float(steps[0]))
    pts = [(float(s), float(a)) for s, a in zip(steps, acc) if float(s) >= start]
    if len(pts) < 4 or pts[-1][0] <= pts[0][0]:
        return None
    x, y = zip(*pts)
    slope, _, lo, hi = theilslopes(y, x, alpha=level)
    span = x[-1] - x[0]
    return float(slope * span), float(lo * span), float(hi * span)


def still_rising(steps: Sequence[int], acc: Sequence[float], window: float = RISING_WINDOW,
                 min_rise: float = RISING_MIN, level: float = 0.95) -> bool:
    """Whether a curve may still be rising where the run ended -- a plateau is not shown: over its evals in the
    last `window` of its steps, the upper end of the Theil-Sen slope's `level` interval (scipy) times the window
    is at least `min_rise` (late_trend). A failure has to be earned: a run that ends below a level it was asked to
    reach is failed only where its curve is shown flat (the whole interval below a rise of `min_rise`), else
    censored there -- the horizon may have cut it off (since 2026-12-06; until then a run also needed the
    interval's lower end above 0 to count as rising, and a noisy late rise of +0.02-0.03 counted as failed). Fewer
    than 4 evals in the window: False (no trend can be read). The same rule for every claim of the form "reaches X
    by the horizon"; a noisy flat curve is "rising" by it too, which the claims' notes say with late_trend's point."""
    return rising(late_trend(steps, acc, window, level), min_rise)


def rising(trend: tuple[float, float, float] | None, min_rise: float = RISING_MIN) -> bool:
    """still_rising's rule on a late_trend() already computed: its interval's upper end reaches `min_rise`."""
    return trend is not None and trend[2] >= min_rise
