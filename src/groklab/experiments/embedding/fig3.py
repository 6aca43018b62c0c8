"""Fig. 3 of paper 000: heat maps of per-token embedding-gradient norms on the training batches."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from groklab.experiments.embedding.profile import WD_MODE, base_overrides, batch, lr, task
from groklab.experiments.levels import below, contrast, every_seed
from groklab.experiments.spec import Claim, RunSpec, seeded
from groklab.experiments.stats import median_censored
from groklab.plots.style import STYLE, plt, save
from groklab.store import array_series

NAME = "fig3"
ABSENT = "#4fa3d9"  # a colour outside magma: absent tokens are not small gradients
TITLE = "Per-token embedding-gradient norms over training steps, random / uniform / skewed splits"
PAPER = ("Gradient heat maps show sparse columns: tokens absent from a sampled batch get no embedding "
         "gradient, so embeddings learn unevenly, more so when token sampling is imbalanced.")
SPLITS = ("random", "uniform", "skewed")

# batch 64 (as Fig. 4's smallest): a batch then misses some operand tokens; measured every 5 steps. The
# training-set gradient of every block (measures.progress) beside it, since 2026-12-06: "embeddings receive
# smaller updates compared to other weights" (§3.3) compares E's with W's
QUICK = ["task=mul", "batch_size=64", "steps=400", "stop.early=false", "measures.token_grads.every=5",
         "measures.progress.every=25"]
PAPER_SIZES = ["task=mul", "optim.lr=0.001", "batch_size=64", "steps=2000", "stop.early=false",
               "measures.token_grads.every=10", "measures.progress.every=100"]
ASSUMPTIONS = [
    task("mul", "Fig. 3 names no task"), lr("0.001", "not stated; Fig. 4's"),
    batch("64", "not stated; the smallest of Fig. 4's batches, where tokens are absent from batches (the figure's "
          "sparse columns)"), WD_MODE,
]


def runs(profile: str, seeds: int) -> list[RunSpec]:
    base = base_overrides(profile, QUICK, PAPER_SIZES)
    return [s for split in SPLITS for s in seeded(split, base + [f"split={split}"], seeds)]


def zero_share(run_dir: Path, p: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(steps, [steps, p] grad norms of the operand tokens, share of (step, token) cells without gradient)."""
    steps, g = array_series(run_dir, "tokens/grad_norm")
    if len(steps) == 0:
        return steps, np.zeros((0, p)), float("nan")
    g = np.asarray(g)[:, :p]
    return steps, g, float((g == 0).mean())


def analyze(df, out: Path, profile: str = "quick") -> tuple[list[Path], list[Claim]]:
    per, maps = {s: [] for s in SPLITS}, {}
    if not df.empty:
        for run, g in df.groupby("run", sort=True):
            split, p = g["split.name"].iloc[0], int(g["p"].iloc[0])
            steps, heat, share = zero_share(out / run, p)
            per[split].append(share)
            maps.setdefault(split, (steps, heat))
    p = int(df["p"].iloc[0]) if not df.empty else None
    figs = _plot(maps, out / "fig3", f"{profile} profile, p = {p}") if maps else []
    return figs, claims(per) + [smaller_updates(df)]


def smaller_updates(df) -> Claim:
    """§3.3: "embeddings receive smaller updates compared to other weights", per weight: log10 of E's RMS gradient
    entry over W's (the first layer, E's partner in the bilinear pair), the median over measured steps > 0 of a
    run; judged on the random split (the paper's default), the others shown beside it."""
    cols = ["grad_rms/E", "grad_rms/W"]
    logs: dict[str, list] = {s: [] for s in SPLITS}
    if not df.empty and all(c in df for c in cols):
        rows = df[df["step"] > 0].dropna(subset=cols)
        for run, g in rows.groupby("run", sort=True):
            r = (g["grad_rms/E"] / g["grad_rms/W"]).to_numpy()
            logs[g["split.name"].iloc[0]].append(round(float(np.log10(np.median(r[r > 0]))), 4) if (r > 0).any()
                                                 else None)
    c = below("embeddings_get_smaller_gradients", "Embeddings receive smaller updates than the other weights (per "
              "weight: E's gradient against W's).", "log10 of the median over measured steps of RMS(dL/dE) / "
              "RMS(dL/dW) on the training set", {k: [x for x in v if x is not None] for k, v in logs.items()},
              ["random"], 0.0)
    c.per_seed = logs
    return c


def _plot(maps: dict, path: Path, where: str = "") -> list[Path]:
    """Gradient norm per token and batch; an exact zero (the token is absent from the batch) in its own colour,
    so absence is not read as a small gradient."""
    import matplotlib as mpl
    from matplotlib.patches import Patch

    cmap = mpl.colormaps["magma"].with_extremes(bad=ABSENT)
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, len(SPLITS), figsize=(3.6 * len(SPLITS), 3.2), squeeze=False)
        for ax, split in zip(axes[0], SPLITS):
            if split not in maps or len(maps[split][0]) == 0:
                continue
            steps, heat = maps[split]
            shown = np.ma.masked_where(heat.T == 0, heat.T)
            im = ax.imshow(shown, aspect="auto", origin="lower", cmap=cmap, interpolation="nearest",
                           extent=(steps[0], steps[-1], -0.5, heat.shape[1] - 0.5))
            ax.set(title=f"{split} (seed 0)", xlabel="step", ylabel="operand token")
            ax.grid(False)
            fig.colorbar(im, ax=ax, fraction=0.046, label="||dL/de_t|| on the batch")
        fig.legend(handles=[Patch(color=ABSENT, label="token absent from the batch (zero gradient)")],
                   loc="lower center", bbox_to_anchor=(0.5, 0.0), frameon=False, fontsize=8)
        fig.suptitle(f"Fig. 3 ({where}): embedding gradient per token and batch")
        fig.tight_layout()
        fig.subplots_adjust(bottom=0.25)  # room for the legend below the step labels
        return save(fig, path, pdf=True, tight=False)


def claims(per: dict) -> list[Claim]:
    med = {s: median_censored(v) if v else None for s, v in per.items()}
    return [
        every_seed("sparse_gradient_columns", "Embedding gradients are sparse: tokens absent from a batch get none.",
                   "share of (measured step, operand token) cells with a zero gradient norm", per,
                   lambda x: x > 0, "it is > 0", med),
        contrast("skewed_sparser_than_uniform", "Imbalanced (skewed) sampling leaves more tokens without gradient.",
                 "the share above", {k: per.get(k, []) for k in ("skewed", "uniform")}, "skewed", "uniform", +1),
    ]
