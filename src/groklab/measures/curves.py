"""Grokking events from accuracy curves: t_train, t_test, the gap, and the early-stop window."""
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
    t_train: Optional[int] = None  # first eval step with train acc >= train_thr
    t_test: Optional[int] = None  # first eval step with test acc >= test_thr
    streak_start: Optional[int] = None  # first step of the current run of test acc >= stop_target

    def update(self, step: int, train_acc: float, test_acc: float) -> None:
        if self.t_train is None and train_acc >= self.train_thr:
            self.t_train = step
        if self.t_test is None and test_acc >= self.test_thr:
            self.t_test = step
        if test_acc >= self.stop_target:
            self.streak_start = step if self.streak_start is None else self.streak_start
        else:
            self.streak_start = None

    def should_stop(self, step: int) -> bool:
        return (self.patience is not None and self.streak_start is not None
                and step - self.streak_start >= self.patience)

    @property
    def gap(self) -> Optional[int]:
        return None if self.t_train is None or self.t_test is None else self.t_test - self.t_train

    def state_dict(self) -> dict:
        return asdict(self)

    def load_state_dict(self, state: dict) -> None:
        for key, value in state.items():
            setattr(self, key, value)


def grok_events(steps: Sequence[int], train_acc: Sequence[float], test_acc: Sequence[float],
                train_thr: float = 0.99, test_thr: float = 0.99) -> dict:
    """t_train, t_test and gap of a finished curve (same definitions as the live tracker)."""
    tr = GrokTracker(train_thr, test_thr, patience=None)
    for s, a, b in zip(steps, train_acc, test_acc):
        tr.update(int(s), float(a), float(b))
    return {"t_train": tr.t_train, "t_test": tr.t_test, "gap": tr.gap}
