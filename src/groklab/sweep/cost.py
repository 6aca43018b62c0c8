"""What a run will cost in seconds on a device, before it runs: a linear model of its work whose coefficients
were fitted to archived runs (benchmarks/fit_cost.py writes costs.json: device, torch build, date, the fit's
error). Estimates plan `reproduce --budget` and `groklab plan`; they are never used to judge anything.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

COSTS = Path(__file__).with_name("costs.json")
MEASURES = ("hessian", "spectra", "progress", "token_grads", "geometry", "landscape")


def features(steps: int, rows: int, n_params: int, n_eval: int, every: int, members: int = 1,
             calls: dict | None = None, n_train: int = 0, flops_row: float | None = None) -> list[float]:
    """The work a run (or a stack of `members` runs) does, in the units the coefficients multiply: a start,
    steps, the GFLOP it computes (training rows x the FLOPs of one row's forward and backward, `flops_row`, plus
    the evaluated rows' forwards, a third of that: one rate for both), the million rows it evaluates (each row's
    loss and correctness go to the host for the metrics: a cost per row, not per FLOP), and each measure's calls
    times the parameters and training rows it touches (GFLOP-like). Without `flops_row`, 6 per parameter (a
    dense layer's forward and backward)."""
    calls = calls or {}
    g = 1e-9 * n_params * members
    f = 1e-9 * (6.0 * n_params if flops_row is None else flops_row) * members
    evals = steps / max(every, 1)
    return [1.0, float(steps), steps * rows * f + evals * n_eval * f / 3, 1e-6 * evals * n_eval * members,
            *[calls.get(m, 0) * n_train * g for m in MEASURES]]


@lru_cache(maxsize=1)
def coefficients() -> dict:
    return json.loads(COSTS.read_text())["devices"] if COSTS.is_file() else {}


def seconds(device: str, x: list[float]) -> float | None:
    """The estimate for features `x` on `device` ('cpu', 'cuda'); None when no fit exists for it."""
    c = coefficients().get(device)
    return None if c is None else float(sum(a * b for a, b in zip(c["coef"], x)))


def margin(device: str) -> float:
    """The factor 9 in 10 fitted runs stayed within (wall / estimate at the 90th percentile): what a time
    budget multiplies an estimate by before starting a run; 2 with no fit."""
    c = coefficients().get(device) or coefficients().get("cpu")
    return float(c["fit"]["margin"]) if c else 2.0


@lru_cache(maxsize=256)
def _shape(key: str) -> tuple[int, int, int, float]:
    """(parameters, training rows, evaluated rows, FLOPs of one row's forward and backward) of a config: the
    model built on the meta device (no memory, no time) and one step of two rows traced by torch's
    FlopCounterMode (matmuls and convolutions: per parameter, a ResNet-18 at 224 px does ~165x the work of an
    MLP, a Transformer ~3x)."""
    import torch
    import torch.nn.functional as F
    from torch.utils.flop_counter import FlopCounterMode

    from groklab.config import make_config
    from groklab.data.splits import split_of
    from groklab.data.task import make_task
    from groklab.models import build_model

    cfg = make_config(base=json.loads(key))
    task = make_task(cfg)
    split = split_of(task.table, cfg.split)
    with torch.device("meta"):
        model = build_model(cfg, task)
    n_params = sum(t.numel() for t in model.parameters())
    try:
        with FlopCounterMode(display=False) as count:
            F.cross_entropy(model(task.inputs[:2].to("meta")), task.labels[:2].to("meta")).backward()
        flops_row = count.get_total_flops() / 2
    except (RuntimeError, NotImplementedError, TypeError):  # an op without a meta kernel: the dense estimate
        flops_row = 6.0 * n_params
    return n_params, len(split.train), len(split.train) + len(split.test), float(flops_row)


def shape_of(cfg: dict) -> tuple[int, int, int, float]:
    """_shape() of a resolved config dict, cached across seeds (they change no shape)."""
    key = {k: v for k, v in cfg.items() if k != "seed"}
    key["split"] = {**cfg["split"], "seed": 0}
    return _shape(json.dumps(key, sort_keys=True))


def run_features(cfg: dict, members: int = 1) -> list[float]:
    """features() of a resolved config dict (a Config's to_dict())."""
    n_params, n_train, n_eval, flops_row = shape_of(cfg)
    rows = n_train if cfg["sampler"] == "full" else min(cfg["batch_size"], n_train)
    ms = cfg.get("measures", {})
    calls = {m: cfg["steps"] // ms[m]["every"] + 1 for m in MEASURES if (ms.get(m) or {}).get("every")}
    return features(cfg["steps"], rows, n_params, n_eval, cfg["eval"]["every"], members, calls, n_train, flops_row)


TERMS = ("start", "steps", "compute", "evaluation", "measures")  # what run_terms() splits an estimate into


def run_terms(cfg: dict, device: str | None = None, members: int = 1) -> dict[str, float]:
    """Estimated seconds of one run (or a stack of `members`) of a resolved config on `device` (default: the
    config's; 'auto' reads as cpu), term by term: the unit's start, its steps' fixed cost, their FLOPs, the
    evaluation and the measures. With no fit for the device, the CPU's (an upper bound for a GPU); none: zeros."""
    dev = device or ("cpu" if cfg.get("device", "auto") == "auto" else cfg["device"])
    c = coefficients().get(dev) or coefficients().get("cpu")
    if c is None:
        return dict.fromkeys(TERMS, 0.0)
    part = [a * b for a, b in zip(c["coef"], run_features(cfg, members))]
    return dict(zip(TERMS, (part[0], part[1], part[2], part[3], sum(part[4:]))))


def run_seconds(cfg: dict, device: str | None = None, members: int = 1) -> float:
    """The sum of run_terms(): estimated seconds of one run (or a stack of `members`) of a resolved config."""
    return float(sum(run_terms(cfg, device, members).values()))
