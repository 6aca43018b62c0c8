"""When a run evaluates: every `eval.every` steps, or, with `eval.every` unset, spaced so that evaluating costs
about EVAL_SHARE of the run; plus `eval.log_points` log-spaced early steps, step 0 and the last step.

Cost model: one evaluation is a forward pass over the n_eval rows of the training and test sets; one training
step costs about STEP_FORWARDS forward passes of its batch (forward and backward). The budget then affords
n = share / (1 - share) * STEP_FORWARDS * batch * steps / n_eval evaluations. The log-spaced points take at most
half of them (early resolution for log-x plots), the rest are spaced evenly, in multiples of 100 steps and never
closer than 100; the budget is never below MIN_EVALS, however short the run. Resolution in rows trained is what
the budget fixes: at p = 97 (9,409 rows) a 20,000-step run evaluates every 800 steps at batch 64 (51,200 rows)
and every 100 at batch 512 (51,200 rows). Studies set eval.every themselves; `benchmarks/bench.py` measures the
share at batch 64, 512 and the full batch.
"""
from __future__ import annotations

import math

import numpy as np

from groklab.config import Config

EVAL_SHARE = 0.1
STEP_FORWARDS = 3
MIN_EVERY = 100
MIN_EVALS = 10  # the budget never affords fewer: a short run keeps a curve (and divergence its evals in a row)


def auto_spacing(steps: int, batch: int, n_eval: int, log_points: int) -> tuple[int, int]:
    """(every, log points) for a run of `steps` at `batch` rows a step evaluating `n_eval` rows."""
    afford = max(MIN_EVALS, EVAL_SHARE / (1 - EVAL_SHARE) * STEP_FORWARDS * batch * steps / max(1, n_eval))
    n_log = min(log_points, int(afford // 2))
    regular = max(1, int(afford) - n_log)
    return max(MIN_EVERY, MIN_EVERY * math.ceil(steps / regular / MIN_EVERY)), n_log


def eval_schedule(cfg: Config, n_train: int | None = None, n_eval: int | None = None) -> tuple[set[int], int, int]:
    """(the steps to evaluate at, every, log points). With eval.every unset the sizes of the training set and of
    what is evaluated (train + test rows) are needed."""
    every, n_log = cfg.eval.every, cfg.eval.log_points
    if every is None:
        if n_train is None or n_eval is None:
            raise ValueError("eval.every is unset: the auto schedule needs the data sizes")
        batch = n_train if cfg.sampler == "full" else min(cfg.batch_size, n_train)
        every, n_log = auto_spacing(cfg.steps, batch, n_eval, n_log)
    steps = set(range(0, cfg.steps + 1, every)) | {0, cfg.steps}
    if n_log and cfg.steps > 1:
        steps |= {int(s) for s in np.unique(np.geomspace(1, cfg.steps, n_log).round())}
    return steps, every, n_log
