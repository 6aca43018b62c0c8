"""Which measures run at which step, and running them on a built run (scalars, arrays); the store keeps them.

Convention for any model: blocks()["E"][0] is the token embedding table (rows 0..p-1 the operands),
blocks()["W"] starts with the first layer's weight matrix.
"""
from __future__ import annotations

from typing import Iterable

import torch
import torch.nn.functional as F

from groklab.config import MeasuresConfig
from groklab.data.encoding import operand_rows
from groklab.measures.features import feature_measures
from groklab.measures.fourier import fourier_measures
from groklab.measures.geometry import geometry_measures
from groklab.measures.hessian import hessian_measures
from groklab.measures.landscape import landscape_measures
from groklab.measures.logits import nanda_losses, scale_and_collapse
from groklab.measures.progress import (
    consecutive_diffs,
    grad_measures,
    med,
    norm_measures,
    token_counts,
    token_grad_norms,
)
from groklab.measures.spectra import sv_measures

MEASURES = tuple(k for k in MeasuresConfig.model_fields if k != "seed")  # in the config's order


def measure_schedule(cfg) -> dict[int, list[str]]:
    """step -> measures due there: multiples of each `every` (from step 0) and the last step."""
    due: dict[int, list[str]] = {}
    for name in MEASURES:
        every = getattr(cfg.measures, name).every
        if every:
            for step in sorted(set(range(0, cfg.steps + 1, every)) | {cfg.steps}):
                due.setdefault(step, []).append(name)
    return due


def _generator(seed: int, step: int, salt: int) -> torch.Generator:
    """A generator of its own per (measure seed, step, measure): same values after a resume."""
    return torch.Generator().manual_seed((seed * 1_000_003 + step) * 16 + salt)


def run_measures(exp, step: int, names: Iterable[str]) -> tuple[dict, dict]:
    """Compute the named measures on exp.model at `step`: (flat scalars, arrays), model untouched."""
    cfg, model, m = exp.cfg, exp.model, exp.cfg.measures
    X, y, p = exp.X_train, exp.y_train, cfg.p
    loss_fn = getattr(exp, "loss_fn", None) or F.cross_entropy  # the run's training loss
    scalars, arrays = {}, {}

    def add(pair):
        scalars.update(pair[0])
        arrays.update(pair[1])

    for name in names:
        g = _generator(m.seed, step, MEASURES.index(name))
        if name == "hessian":
            h = m.hessian
            Xh, yh = X, y
            if h.max_rows is not None and h.max_rows < len(y):  # same rows at every step
                rows = torch.randperm(len(y), generator=torch.Generator().manual_seed(m.seed))[:h.max_rows]
                Xh, yh = X[rows.to(X.device)], y[rows.to(X.device)]
            add(hessian_measures(model, Xh, yh, h.blocks, h.k, h.tol, h.max_iter, h.trace_samples, g, loss_fn))
        elif name == "spectra":
            add(sv_measures(model, m.spectra.rank_rtol))
            add(fourier_measures(model, p, m.spectra.n_key))
        elif name == "progress":
            scalars.update(norm_measures(model))
            scalars.update(grad_measures(model, X, y, loss_fn))
            E = model.blocks()["E"]
            if E and E[0].shape[0] >= p:  # 004 Def 4.2; with each operand's own ids, the mean over operands
                rows = operand_rows(p, cfg.encoding, X.shape[1] - 1, cfg.encoding_offset)  # (as 004's code)
                scalars["progress/MED"] = sum(med(E[0], p, r.start) for r in rows) / len(rows)
                d = torch.cat([consecutive_diffs(E[0], p, r.start) for r in rows])  # 004 §3: uniform spacing
                scalars["progress/MED_cv"] = (d.std() / d.mean()).item() if d.mean() > 0 else 0.0
        elif name == "token_grads":
            idx = exp.sampler.batch(step)
            xb, yb = (X, y) if idx is None else (X[idx], y[idx])
            norms = token_grad_norms(model, xb, yb, loss_fn)
            if norms is not None:
                arrays["tokens/grad_norm"] = norms
                arrays["tokens/count"] = token_counts(xb, len(norms))
                scalars["tokens/seen_share"] = float((arrays["tokens/count"][:p] > 0).mean())
            if hasattr(exp.sampler, "entropy"):  # how far from uniform the frequency-aware sampler draws
                scalars["sampler/entropy"] = exp.sampler.entropy()
        elif name == "geometry":
            if hasattr(model, "features"):  # an image model: class means of its penultimate features
                add(feature_measures(model, torch.cat([X, exp.X_test]), torch.cat([y, exp.y_test]),
                                     cfg.eval.chunk))
            else:
                add(geometry_measures(model, p, m.geometry.tsne, m.seed + step))
        elif name == "landscape":
            ls = m.landscape
            add(landscape_measures(model, X, y, ls.blocks, ls.dims, ls.n_points, ls.radius, ls.filter_norm, g,
                                   loss_fn))
        elif name == "logits":
            with torch.no_grad():
                z = torch.cat([model(X[i:i + cfg.eval.chunk]) for i in range(0, len(y), cfg.eval.chunk)])
            scalars.update(scale_and_collapse(z, y))
            scalars.update(nanda_losses(model, exp.task, exp.split.train, m.spectra.n_key, cfg.eval.chunk))
    return scalars, arrays
