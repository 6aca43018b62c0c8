"""Penultimate-layer geometry of an image model: do the class means of its features line up by label?

For a sum-of-weights task the labels are ordered numbers; a network that has learned to add should place
the mean feature of each class along a line in label order (like 003's number line for LLM numerals).
We project the class means on their top-2 principal axes and report how much of their variance the first
axis holds, and the rank correlation of the first coordinate with the label.
"""
from __future__ import annotations

import numpy as np
import torch

from groklab.measures.geometry import pca_2d
from groklab.measures.modes import eval_mode


@torch.no_grad()
def class_means(model, X: torch.Tensor, y: torch.Tensor, chunk: int = 1024) -> tuple[torch.Tensor, torch.Tensor]:
    """(labels present [C], mean of model.features over each label's rows [C, d]), in eval mode."""
    with eval_mode(model):
        F = torch.cat([model.features(X[i:i + chunk]).double() for i in range(0, len(X), chunk)])
    labels, inv = torch.unique(y, return_inverse=True)
    sums = torch.zeros(len(labels), F.shape[1], dtype=F.dtype, device=F.device).index_add_(0, inv, F)
    counts = torch.bincount(inv, minlength=len(labels)).to(F.dtype)
    return labels, sums / counts[:, None]


def rank_corr(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rank correlation (no ties expected in continuous coordinates; labels are distinct)."""
    ra, rb = a.argsort().argsort().astype(float), b.argsort().argsort().astype(float)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    den = np.sqrt((ra ** 2).sum() * (rb ** 2).sum())
    return float((ra * rb).sum() / den) if den > 0 else 0.0


def feature_measures(model, X: torch.Tensor, y: torch.Tensor, chunk: int = 1024) -> tuple[dict, dict]:
    """Scalars geometry/class_pc1_share, geometry/class_order (|Spearman(PC1, label)|); arrays
    geometry/class_pca [C, 2] and geometry/class_labels [C]."""
    labels, means = class_means(model, X, y, chunk)
    if len(labels) < 3:
        return {}, {}
    coords, share = pca_2d(means)
    lab = labels.cpu().numpy()
    return ({"geometry/class_pc1_share": float(share[0]), "geometry/class_order": abs(rank_corr(coords[:, 0], lab))},
            {"geometry/class_pca": coords, "geometry/class_labels": lab.astype(np.int64)})
