"""Circular (Fourier) geometry of points indexed by consecutive integers, the contrast to a number line.

For centered rows x_0..x_{p-1} (in R^d), F_k = sum_n x_n exp(-2 pi i k n / p). Frequency k (with its
conjugate p-k) traces the ellipse n -> (2/p) (Re F_k cos(2 pi k n/p) - Im F_k sin(2 pi k n/p)), whose
semi-axes s1 >= s2 are the singular values of [Re F_k, Im F_k]. Its variance (s1^2 + s2^2)/2 splits into a
circular part s2^2 (the radius both axes share) and a flat part (s1^2 - s2^2)/2. Hence:
- power_k: share of the total variance carried by frequency k (sums to 1 over k = 1..p//2);
- round_k = 2 s2^2 / (s1^2 + s2^2): 1 for a circle, 0 for a segment. Any 1-D embedding x_n = f(n) u
  (a number line, whatever its spacing) has round_k = 0 at every k;
- circularity = sum over the top-m frequencies of power_k * round_k: the share of variance lying on
  circles at the m strongest frequencies (perfect circles at <= m frequencies: 1; a line: 0).
fourier_top = sum of the top-m power_k alone; a straight ramp already scores ~0.7 on it at m = 2.
"""
from __future__ import annotations

import numpy as np


def fourier_geometry(X: np.ndarray, top: int = 2) -> dict:
    """Frequency powers, roundness, circularity and top-m power share of rows X [p, d] in index order."""
    X = np.asarray(X, dtype=np.float64)
    X = X - X.mean(0)
    p = len(X)
    F = np.fft.fft(X, axis=0)  # [p, d]
    ks = np.arange(1, p // 2 + 1)
    power, roundness = np.zeros(len(ks)), np.zeros(len(ks))
    for i, k in enumerate(ks):
        s = np.linalg.svd(np.stack([F[k].real, F[k].imag]), compute_uv=False)
        pair = 1.0 if 2 * k == p else 2.0  # k and p-k carry the same power (Nyquist: alone)
        power[i] = pair * float(np.sum(np.abs(F[k]) ** 2))
        roundness[i] = 0.0 if 2 * k == p else 2 * s[1] ** 2 / max(s[0] ** 2 + s[1] ** 2, 1e-300)
    total = power.sum()
    power = power / total if total > 0 else power
    order = np.argsort(-power)[:top]
    return {
        "freqs": ks.tolist(), "power": power.tolist(), "roundness": roundness.tolist(),
        "top_freqs": ks[order].tolist(),
        "fourier_top": float(power[order].sum()),
        "circularity": float(np.sum(power[order] * roundness[order])),
    }


def is_consecutive(n: np.ndarray) -> bool:
    """True when n is a run of consecutive integers (the index set a DFT over n needs)."""
    n = np.asarray(n)
    return len(n) > 2 and bool(np.all(n == np.round(n))) and bool(np.all(np.diff(n) == 1))
