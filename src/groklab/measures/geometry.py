"""Embedding geometry: 2-D PCA and t-SNE coordinates of the operand token embeddings (002 Fig 13b)."""
from __future__ import annotations

import numpy as np
import torch


@torch.no_grad()
def pca_2d(E: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Rows of E projected on its top-2 principal axes [n, 2], and the variance share of each axis."""
    X = E.detach().double()
    X = X - X.mean(0)
    U, S, _ = torch.linalg.svd(X, full_matrices=False)
    coords = U[:, :2] * S[:2]
    var = S.square()
    share = var[:2] / var.sum() if var.sum() > 0 else torch.zeros(2, dtype=torch.float64)
    return coords.float().cpu().numpy(), share.cpu().numpy()


def tsne_2d(E: torch.Tensor, seed: int = 0, perplexity: float = 30.0) -> np.ndarray:
    """t-SNE coordinates [n, 2] (scikit-learn, `pip install groklab[dev]`); seeded, so repeatable."""
    try:
        from sklearn.manifold import TSNE
    except ImportError as err:  # optional dependency
        raise ImportError("t-SNE needs scikit-learn: pip install scikit-learn") from err
    X = E.detach().double().cpu().numpy()
    perplexity = min(perplexity, (len(X) - 1) / 3)  # sklearn requires perplexity < n
    return TSNE(2, perplexity=perplexity, init="pca", random_state=seed).fit_transform(X).astype(np.float32)


def geometry_measures(model, p: int, tsne: bool = False, seed: int = 0) -> tuple[dict, dict]:
    """Arrays geometry/pca (+ geometry/tsne) of the first p embedding rows; scalar geometry/pca_share."""
    E = model.blocks()["E"]
    if not E:
        return {}, {}
    coords, share = pca_2d(E[0][:p])
    arrays = {"geometry/pca": coords, "geometry/pca_var": share.astype(np.float32)}
    if tsne:
        arrays["geometry/tsne"] = tsne_2d(E[0][:p], seed)
    return {"geometry/pca_share": float(share.sum())}, arrays
