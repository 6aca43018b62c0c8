"""Figures of the measures: Hessian E vs W, rank evolution, Fourier spectrum, gradient heat map,
token-frequency bars, embedding scatter, landscape contour. Each takes plain arrays / a DataFrame
from load_runs, writes one PNG and returns its path."""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional, Sequence

import numpy as np

from groklab.plots.style import plt, save


def _save(fig, path) -> Path:
    return save(fig, path, dpi=120)[0]


def _series(df, key: str, line: str):
    if key not in df:
        return
    for name, run in df[df[key].notna()].groupby(line, sort=False):
        run = run.sort_values("step")
        yield name, run["step"].to_numpy(), run[key].to_numpy(dtype=float)


def plot_hessian(df, path, blocks: Sequence[str] = ("E", "W"), line: str = "run") -> Path:
    """hessian/<B>_top against step, one colour per run, one line style per block (000 Fig 7/9)."""
    fig, ax = plt.subplots(figsize=(5.5, 4))
    styles = ["-", "--", ":", "-."]
    runs = list(dict.fromkeys(df[line])) if line in df else []
    for b, style in zip(blocks, styles):
        for name, steps, vals in _series(df, f"hessian/{b}_top", line):
            ax.plot(steps, vals, style, color=f"C{runs.index(name) % 10}", label=f"{name} {b}")
    ax.set(xlabel="step", ylabel="top Hessian eigenvalue", yscale="log", title="Hessian blocks E vs W")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _save(fig, path)


def plot_ranks(df, path, mats: Sequence[str] = ("E", "W", "EW"), kind: str = "rank", line: str = "run") -> Path:
    """<kind>/<M> (rank, erank or srank) against step, a panel per matrix (000 Fig 10)."""
    fig, axes = plt.subplots(1, len(mats), figsize=(4.2 * len(mats), 3.6), squeeze=False)
    for ax, m in zip(axes[0], mats):
        for i, (name, steps, vals) in enumerate(_series(df, f"{kind}/{m}", line)):
            ax.plot(steps, vals, color=f"C{i % 10}", label=str(name))
        ax.set(xlabel="step", title=f"{kind}({m})")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    return _save(fig, path)


def plot_fourier(spectra: Mapping[str, np.ndarray] | np.ndarray, path) -> Path:
    """||DFT(E)[k]|| for k = 0..p/2, a panel per named spectrum (000 Fig 11)."""
    spectra = spectra if isinstance(spectra, Mapping) else {"": spectra}
    fig, axes = plt.subplots(1, len(spectra), figsize=(4.2 * len(spectra), 3.4), squeeze=False)
    for ax, (name, s) in zip(axes[0], spectra.items()):
        ax.bar(np.arange(len(s)), s, width=0.8)
        ax.set(xlabel="frequency k", ylabel="||F_k||", title=name)
    return _save(fig, path)


def plot_grad_heatmap(steps: np.ndarray, grad_norms: np.ndarray, path, p: Optional[int] = None) -> Path:
    """Per-token embedding gradient norms [n_steps, vocab] as a tokens x steps heat map (000 Fig 3)."""
    g = np.asarray(grad_norms)[:, :p] if p else np.asarray(grad_norms)
    fig, ax = plt.subplots(figsize=(7, 4))
    im = ax.imshow(g.T, aspect="auto", origin="lower", cmap="viridis", interpolation="nearest",
                   extent=(steps[0] - 0.5, steps[-1] + 0.5, -0.5, g.shape[1] - 0.5))
    fig.colorbar(im, ax=ax, label="||dL/de_t||")
    ax.set(xlabel="step", ylabel="token t", title="embedding gradient per token")
    return _save(fig, path)


def plot_token_counts(counts: Mapping[str, np.ndarray] | np.ndarray, path, normalise: bool = True) -> Path:
    """Bars of token occurrences (or shares) per named set, side by side (000 Fig 8)."""
    counts = counts if isinstance(counts, Mapping) else {"": counts}
    fig, ax = plt.subplots(figsize=(7, 3.4))
    w = 0.8 / len(counts)
    for i, (name, c) in enumerate(counts.items()):
        c = np.asarray(c, dtype=float)
        ax.bar(np.arange(len(c)) + i * w, c / c.sum() if normalise and c.sum() else c, width=w, label=name)
    ax.set(xlabel="token", ylabel="share" if normalise else "count")
    if len(counts) > 1 or "" not in counts:
        ax.legend(fontsize=7)
    return _save(fig, path)


def plot_embedding_scatter(coords: np.ndarray, path, link: Optional[int] = None, title: str = "") -> Path:
    """2-D token coordinates labelled by token; `link`: lines between t and t+link mod n (002 Fig 13b)."""
    n = len(coords)
    fig, ax = plt.subplots(figsize=(5, 5))
    if link:
        for t in range(n):
            u = (t + link) % n
            ax.plot(coords[[t, u], 0], coords[[t, u], 1], color="0.8", lw=0.6, zorder=0)
    ax.scatter(coords[:, 0], coords[:, 1], c=np.arange(n), cmap="twilight", s=18)
    for t in range(n):
        ax.annotate(str(t), coords[t], fontsize=6, xytext=(2, 2), textcoords="offset points")
    ax.set(title=title, xticks=[], yticks=[])
    return _save(fig, path)


def plot_landscape(alphas: np.ndarray, loss: np.ndarray, path, log10: bool = True) -> Path:
    """Loss along one direction (line) or two (contour), log10-scaled as in 002 Fig 13e-f."""
    z = np.log10(np.maximum(loss, 1e-12)) if log10 else loss
    fig, ax = plt.subplots(figsize=(5, 4.2))
    if np.ndim(loss) == 1:
        ax.plot(alphas, z)
        ax.set(xlabel="alpha", ylabel="log10 loss" if log10 else "loss")
    else:
        cs = ax.contourf(alphas, alphas, z.T, levels=20, cmap="viridis")
        fig.colorbar(cs, ax=ax, label="log10 loss" if log10 else "loss")
        ax.plot([0], [0], "r+")
        ax.set(xlabel="alpha (direction 1)", ylabel="beta (direction 2)")
    return _save(fig, path)
