"""Learning-rate schedules as plain functions of the step: linear warm-up, then a decay shape."""
from __future__ import annotations

import math


def lr_factor(step: int, schedule: str, warmup: int, decay_end: int, final_frac: float) -> float:
    """Multiplier of the base lr at `step`: ramps (step+1)/warmup up to 1, then decays to `final_frac`
    at `decay_end` (linear, cosine or exponential) and stays there; "constant" does not decay."""
    if step < warmup:
        return (step + 1) / warmup
    if schedule == "constant":
        return 1.0
    t = min(1.0, (step - warmup) / max(decay_end - warmup, 1))  # decay progress in [0, 1]
    if schedule == "linear":
        return 1.0 - (1.0 - final_frac) * t
    if schedule == "cosine":
        return final_frac + (1.0 - final_frac) * 0.5 * (1.0 + math.cos(math.pi * t))
    if schedule == "exp":
        return final_frac ** t
    raise ValueError(f"unknown schedule {schedule!r}")
