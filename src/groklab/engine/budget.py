"""What a run would need in memory, estimated before anything is allocated, against what the machine has.

A typo such as `model.d_hidden=100000000` would otherwise try to allocate 200 GB and take the machine down
(or be killed by the OS after minutes of swapping). The estimate counts parameters exactly (the model is
built on torch's `meta` device, which allocates nothing) and activations, data and optimizer state
roughly; it only has to catch sizes that are off by orders of magnitude. `--allow-large` (or
GROKLAB_ALLOW_LARGE=1) skips the check.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from contextvars import ContextVar

from groklab.errors import ConfigError

ALLOW_ENV = "GROKLAB_ALLOW_LARGE"
MAX_EVAL_INPUTS = 2 ** 24  # input elements per eval chunk: bounds activation memory for image models
# the fields that make a run big, with their defaults: the one furthest above its default is named
SIZE_FIELDS = (("model.d_hidden", 512), ("model.d_emb", 128), ("model.depth", 1), ("model.width", 64),
               ("batch_size", 512), ("eval.chunk", 16384), ("p", 97), ("task.K", 2), ("task.image", 224))


_allow: ContextVar[bool | None] = ContextVar("allow_large", default=None)  # set by permit_large


def allow_large() -> bool:
    """Whether the size checks are lifted: `permit_large` around this call (the CLI's --allow-large, passed on
    to sweep workers as an argument), else GROKLAB_ALLOW_LARGE."""
    on = _allow.get()
    return on if on is not None else os.environ.get(ALLOW_ENV, "").strip().lower() not in ("", "0", "false", "no")


@contextmanager
def permit_large(on: bool | None = True):
    """Lift (True) or keep (False) the size checks for the calls inside; None: as GROKLAB_ALLOW_LARGE says."""
    token = _allow.set(on)
    try:
        yield
    finally:
        _allow.reset(token)


def available_bytes(device) -> int:
    """Free memory where the run's tensors live (a torch.device): the GPU's free memory, or the OS's
    MemAvailable."""
    if device.type == "cuda":
        import torch

        return int(torch.cuda.mem_get_info(device)[0])
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")


def _activations_per_row(cfg, task) -> int:
    """Elements kept per example for the backward pass (rough, per architecture)."""
    m, n_classes = cfg.model, task.n_classes
    n_ctx = getattr(task, "n_ctx", 1)
    if m.name in ("mlp", "mlp_emb"):
        return n_ctx * m.d_emb + 3 * m.depth * m.d_hidden + 2 * n_classes
    if m.name == "transformer":
        return m.depth * n_ctx * (8 * m.d_emb + 2 * m.d_hidden + m.n_heads * n_ctx) + 2 * n_classes
    if m.name in ("lstm", "birnn"):
        return m.depth * n_ctx * 8 * m.d_hidden * (2 if m.name == "birnn" else 1) + 2 * n_classes
    return 6 * m.width * (cfg.task.image // 2) ** 2 + 2 * n_classes  # resnet18: stem-sized maps, summed


def estimate(cfg, task, n_train: int) -> dict:
    """Bytes a run needs: parameters with gradients and optimizer state, activations, data."""
    import torch

    from groklab.models import build_model

    with torch.device("meta"):
        n_params = sum(t.numel() for t in build_model(cfg, task).parameters())
    width = 8 if cfg.dtype == "float64" else 4
    o = cfg.optim
    copies = 2 + {"sgd": 1, "rmsprop": 1}.get(o.name, 2)  # weights, grads, optimizer moments
    copies += {"ema": 1, "ma": o.grokfast_window}.get(o.grokfast, 0)
    act = _activations_per_row(cfg, task)
    rows = len(task.labels)
    train_rows = n_train if cfg.sampler == "full" else min(cfg.batch_size, n_train)
    eval_rows = min(cfg.eval.chunk, rows, max(1, MAX_EVAL_INPUTS // max(1, task.inputs[0].numel())))
    data = task.inputs.element_size() * task.inputs.numel() * 2  # the table, and train/test copies
    # training keeps every layer's activations and their gradients; evaluation (no grad) about one layer's
    parts = {"params": n_params * width * copies,
             "activations": max(2 * train_rows * act, eval_rows * act // cfg.model.depth) * width,
             "data": data}
    return {"n_params": n_params, "total": sum(parts.values()), **parts}


def _gb(n: float) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e8 else f"{n / 1e6:.0f} MB"


def _culprit(cfg) -> tuple[str, object]:
    """The size field furthest above its default (the likely typo)."""
    def value(key):
        node = cfg
        for part in key.split("."):
            node = getattr(node, part)
        return node
    fields = dict(SIZE_FIELDS)
    if cfg.optim.grokfast == "ma":  # Grokfast-MA keeps a copy of the gradients per step of its window
        fields["optim.grokfast_window"] = 100
    return max(((k, value(k)) for k in fields), key=lambda kv: kv[1] / fields[kv[0]])


def check_memory(cfg, task, n_train: int, device) -> dict:
    """Refuse, with the estimate, a run that needs more memory than `device` has free (unless allowed)."""
    est = estimate(cfg, task, n_train)
    free = available_bytes(device)
    if est["total"] > free and not allow_large():
        key, value = _culprit(cfg)
        raise ConfigError(key, value, f"the run needs about {_gb(est['total'])} ({est['n_params']:,} parameters: "
                                      f"{_gb(est['params'])} with gradients and optimizer state; activations "
                                      f"{_gb(est['activations'])}; data {_gb(est['data'])}), more than the "
                                      f"{_gb(free)} free on {device.type}; use a smaller size, or pass "
                                      f"--allow-large ({ALLOW_ENV}=1) to try anyway")
    return est


# Work a measure may do per call and in a run, before `--allow-large`: each bound is ~10x what the paper
# profiles use, so a typo (n_points=1001, max_iter=10**6, every=1 over 10**7 steps) is refused in one line
# instead of running for days.
MEASURE_LIMITS = {"measures.landscape.n_points^dims": 10_000, "measures.hessian.max_iter": 1_000,
                  "measures.hessian.k": 100, "measures.hessian.trace_samples": 1_000, "calls": 100_000}
# The run's own schedule, on the same footing: the longest study trains 40,000 steps and evaluates a few
# thousand times; steps=10**9 (days) or eval.every=1 over 10**7 steps (10**7 metric rows, GBs) is a typo.
RUN_LIMITS = {"steps": 10**8, "evaluations": 100_000, "checkpoint writes": 100_000, "kept checkpoints": 1_000,
              "model.depth": 1_000}  # 002's deepest model has 8 layers; building 10**5 takes minutes even on meta


def check_work(cfg) -> None:
    """Refuse a measure setting whose work is orders of magnitude beyond any study's (unless allowed), naming
    the field and the largest value allowed."""
    if allow_large():
        return
    m, lim = cfg.measures, MEASURE_LIMITS
    if m.landscape.every:
        evals = m.landscape.n_points ** m.landscape.dims
        if evals > lim["measures.landscape.n_points^dims"]:
            top = int(lim["measures.landscape.n_points^dims"] ** (1 / m.landscape.dims))
            raise ConfigError("measures.landscape.n_points", m.landscape.n_points,
                              f"n_points^dims = {evals:,} train-loss evaluations per measure; at most "
                              f"{lim['measures.landscape.n_points^dims']:,} (n_points <= {top} with dims "
                              f"{m.landscape.dims}); pass --allow-large ({ALLOW_ENV}=1) for more")
    if m.hessian.every:
        for key in ("max_iter", "k", "trace_samples"):
            value, top = getattr(m.hessian, key), lim[f"measures.hessian.{key}"]
            if value > top:
                raise ConfigError(f"measures.hessian.{key}", value, f"at most {top:,} per measure; pass "
                                  f"--allow-large ({ALLOW_ENV}=1) for more")
    for name in ("hessian", "spectra", "progress", "token_grads", "geometry", "landscape", "logits"):
        every = getattr(m, name).every
        if every and cfg.steps // every > lim["calls"]:
            raise ConfigError(f"measures.{name}.every", every,
                              f"measures {cfg.steps // every + 1:,} times over steps={cfg.steps:,}; at most "
                              f"{lim['calls']:,} (every >= {-(-cfg.steps // lim['calls'])}); pass --allow-large "
                              f"({ALLOW_ENV}=1) for more")
    _check_schedule(cfg)


def _check_schedule(cfg) -> None:
    """steps, and how often a run evaluates and checkpoints over them, against RUN_LIMITS."""
    lim, steps, allow = RUN_LIMITS, cfg.steps, f"pass --allow-large ({ALLOW_ENV}=1) for more"
    if steps > lim["steps"]:
        raise ConfigError("steps", steps, f"at most {lim['steps']:,} (days of training at any size); {allow}")
    if cfg.model.depth > lim["model.depth"]:
        raise ConfigError("model.depth", cfg.model.depth, f"at most {lim['model.depth']:,} layers (the model is "
                                                          f"built before its memory is estimated); {allow}")
    for key, every, what, top in (("eval.every", cfg.eval.every, "evaluates", lim["evaluations"]),
                                  ("checkpoint_every", cfg.checkpoint_every, "writes a checkpoint",
                                   lim["checkpoint writes"]),
                                  ("checkpoint_keep", cfg.checkpoint_keep, "keeps a checkpoint",
                                   lim["kept checkpoints"])):
        if every and steps // every > top:
            raise ConfigError(key, every, f"{what} {steps // every:,} times over steps={steps:,}; at most {top:,} "
                                          f"({key} >= {-(-steps // top):,}); {allow}")
