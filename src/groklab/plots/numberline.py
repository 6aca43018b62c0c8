"""Number-line figures: statistics layer by layer, and projections of chosen layers."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from groklab.plots.style import plt, save


def plot_layers(rows: list[dict], path: str | Path, title: str = "") -> Path:
    """Spearman rho, beta (95% CI) and R^2 of log vs linear fits per layer, one line per method."""
    rows = [r for r in rows if r["component"] == 1]
    layers = list(dict.fromkeys(r["layer"] for r in rows))
    x = {layer: i for i, layer in enumerate(layers)}
    fig, axes = plt.subplots(1, 3, figsize=(15, 3.8))
    for c, method in enumerate(dict.fromkeys(r["method"] for r in rows)):
        rs = [r for r in rows if r["method"] == method]
        xs = np.array([x[r["layer"]] for r in rs])
        col = f"C{c}"
        axes[0].plot(xs, [r["rho"] for r in rs], "o-", color=col, label=method)
        beta = np.array([r["beta"] for r in rs], dtype=float)
        err = np.abs(np.array([[r["beta_lo"] for r in rs], [r["beta_hi"] for r in rs]], dtype=float) - beta)
        axes[1].errorbar(xs, beta, yerr=err, fmt="o-", color=col, capsize=2, label=method)
        axes[2].plot(xs, [r["r2_log"] for r in rs], "o-", color=col, label=f"{method}: log")
        axes[2].plot(xs, [r["r2_lin"] for r in rs], "s--", color=col, mfc="none", label=f"{method}: linear")
    lo, hi = axes[1].get_ylim()
    axes[1].set_ylim(max(lo, -1.5), min(hi, 2.5))  # a flat layer's beta hits its bounds with a huge CI
    axes[1].axhline(1, color="gray", lw=0.8, ls=":")
    axes[1].axhline(0, color="gray", lw=0.8, ls="--")
    for ax, name in zip(axes, ("Spearman rho(z, n)", "beta in z = a + b n^beta (1 linear, 0 log)",
                               "R^2: log fit (solid) vs linear fit (dashed)")):
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("layer")
        ax.set_xticks(range(len(layers)), [str(layer) for layer in layers],
                      fontsize=7 if len(layers) > 20 else 9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    return _save(fig, path)


def plot_scatter(Z: dict, n: np.ndarray, x: np.ndarray, layers: list, path: str | Path, title: str = "") -> Path:
    """Z[layer][method] ([N, dims], 1-D oriented to rise with n) against n: 1-D with the log and linear fits
    over the positive fit abscissa x (n, or n shifted to start at 1), 2-D coloured by log x."""
    methods = list(next(iter(Z.values())))
    fig, axes = plt.subplots(len(layers), len(methods), figsize=(4.4 * len(methods), 3.4 * len(layers)),
                             squeeze=False)
    logx = x.max() / x.min() > 100
    for i, layer in enumerate(layers):
        for j, method in enumerate(methods):
            ax, z = axes[i][j], Z[layer][method]
            if z.shape[1] >= 2:
                sc = ax.scatter(z[:, 0], z[:, 1], c=np.log10(x), s=8, cmap="viridis")
                fig.colorbar(sc, ax=ax, label="log10 n" if x is n else "log10 (n - min n + 1)")
                ax.set_xlabel("z1")
                ax.set_ylabel("z2")
            else:
                z1 = z[:, 0]
                ax.scatter(n, z1, s=8, alpha=0.7)
                xs = np.sort(x)
                for f, label, style in ((np.log(x), "log fit", "-"), (x, "linear fit", "--")):
                    A = np.column_stack([np.ones_like(f), f])
                    coef, *_ = np.linalg.lstsq(A, z1, rcond=None)
                    fs = np.log(xs) if label == "log fit" else xs
                    ax.plot(n[np.argsort(x)], coef[0] + coef[1] * fs, style, lw=1.2, label=label)
                if logx:
                    ax.set_xscale("symlog" if n.min() <= 0 else "log")
                ax.set_xlabel("n")
                ax.set_ylabel("z (oriented)")
                ax.legend(fontsize=7)
            ax.set_title(f"layer {layer}, {method}", fontsize=9)
            ax.grid(alpha=0.3)
    if title:
        fig.suptitle(title, fontsize=10)
    return _save(fig, path)


def _save(fig, path: str | Path) -> Path:
    return save(fig, path, dpi=110)[0]
