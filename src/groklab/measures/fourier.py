"""Fourier spectrum of the operand embeddings over Z_p (000 App. C.3, Fig 11).

DFT of the first p rows of E along the token axis, l2 norm over the embedding dimension, frequencies
0..floor(p/2) (the rest mirror them for real E). Key frequencies: the `n_key` strongest nonzero
frequencies; their share is of the energy sum_k |F_k|^2 over all p frequencies with k=0 (the mean
embedding) excluded, so a mirrored pair (k, p-k) counts twice, and a pure cosine at k has share 1.

Discrete-log order: multiplication mod a prime p is addition of discrete logarithms, x * y = g^(i + j) for
x = g^i, y = g^j with g a generator of (Z/p)*. A network that solves it with the Fourier features it uses
for addition has cosines in i, not in x, so the spectrum of the rows 1..p-1 reordered as g^0, g^1, ..., g^(p-2)
(a DFT over Z_(p-1)) is peaked where the token-order one is diffuse. Another generator g^a permutes the
frequencies (k -> k a^-1 mod p-1), so the spectrum's multiset of magnitudes, and the key share, do not depend
on which generator is taken.
"""
from __future__ import annotations

import numpy as np
import torch

from groklab.config.rules import is_prime


@torch.no_grad()
def fourier_spectrum(E: torch.Tensor, p: int) -> torch.Tensor:
    """||DFT_t(E[:p])[k]||_2 for k = 0..floor(p/2); shape [floor(p/2) + 1]."""
    F = torch.fft.fft(E[:p].detach().double(), dim=0)  # [p, d]
    return F.abs().square().sum(1).sqrt()[: p // 2 + 1]


def primitive_root(p: int) -> int:
    """The smallest generator of (Z/p)* for a prime p: g whose order is p - 1 (no g^((p-1)/q) = 1, q | p-1)."""
    if not is_prime(p):
        raise ValueError(f"p={p}: a discrete logarithm needs a prime p")
    n, factors = p - 1, set()
    for q in range(2, n + 1):
        while n % q == 0:
            factors.add(q)
            n //= q
    return next(g for g in range(1, p) if all(pow(g, (p - 1) // q, p) != 1 for q in factors)) if p > 2 else 1


def dlog_order(p: int) -> list[int]:
    """Tokens g^0, g^1, ..., g^(p-2) mod p: the nonzero residues in order of their discrete logarithm."""
    g = primitive_root(p)
    return [pow(g, i, p) for i in range(p - 1)]


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
    """Scalars fourier/top_freq, fourier/key_share; arrays fourier/spectrum, fourier/key_freqs; for a prime p
    also fourier/dlog_key_share and the array fourier/dlog_spectrum (rows in discrete-log order)."""
    E = model.blocks()["E"]
    if not E or E[0].shape[0] < p:
        return {}, {}
    s = fourier_spectrum(E[0], p)
    keys, share = key_frequencies(s, p, n_key)
    scalars = {"fourier/top_freq": keys[0] if keys else 0, "fourier/key_share": share}
    arrays = {"fourier/spectrum": s.float().numpy(), "fourier/key_freqs": np.array(keys, dtype=np.int32)}
    if is_prime(p) and p > 3:
        sd = fourier_spectrum(E[0][dlog_order(p)], p - 1)
        scalars["fourier/dlog_key_share"] = key_frequencies(sd, p - 1, n_key)[1]
        arrays["fourier/dlog_spectrum"] = sd.float().numpy()
    return scalars, arrays
