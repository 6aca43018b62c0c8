"""Fourier spectrum of the operand embeddings over Z_p (000 App. C.3, Fig 11).

DFT of the first p rows of E along the token axis, l2 norm over the embedding dimension, frequencies
0..floor(p/2) (the rest mirror them for real E). Key frequencies: the `n_key` strongest nonzero
frequencies; their share is of the energy sum_k |F_k|^2 over all p frequencies with k=0 (the mean
embedding) excluded, so a mirrored pair (k, p-k) counts twice, and a pure cosine at k has share 1.
"""
from __future__ import annotations

import numpy as np
import torch


@torch.no_grad()
def fourier_spectrum(E: torch.Tensor, p: int) -> torch.Tensor:
    """||DFT_t(E[:p])[k]||_2 for k = 0..floor(p/2); shape [floor(p/2) + 1]."""
    F = torch.fft.fft(E[:p].detach().double(), dim=0)  # [p, d]
    return F.abs().square().sum(1).sqrt()[: p // 2 + 1]


def key_frequencies(spectrum: torch.Tensor, p: int, n_key: int = 5) -> tuple[list[int], float]:
    """The n_key strongest frequencies k >= 1 (descending) and the share of non-DC energy they hold."""
    energy = spectrum.double().square()
    weight = torch.full_like(energy, 2.0)
    weight[0] = 0.0
    if p % 2 == 0:
        weight[-1] = 1.0  # the Nyquist frequency has no mirror
    total = (weight * energy).sum()
    order = torch.argsort(energy[1:], descending=True)[:n_key] + 1
    share = ((weight * energy)[order].sum() / total).item() if total > 0 else 0.0
    return order.tolist(), share


def fourier_measures(model, p: int, n_key: int = 5) -> tuple[dict, dict]:
    """Scalars fourier/top_freq, fourier/key_share; arrays fourier/spectrum, fourier/key_freqs."""
    E = model.blocks()["E"]
    if not E or E[0].shape[0] < p:
        return {}, {}
    s = fourier_spectrum(E[0], p)
    keys, share = key_frequencies(s, p, n_key)
    return ({"fourier/top_freq": keys[0] if keys else 0, "fourier/key_share": share},
            {"fourier/spectrum": s.float().numpy(), "fourier/key_freqs": np.array(keys, dtype=np.int32)})
