"""Fig. 11 of paper 000: Fourier spectra of the learned operand embeddings for add, mul and div."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from groklab.experiments.embedding.profile import base_overrides
from groklab.experiments.spec import Claim, RunSpec, seeded
from groklab.experiments.stats import median_censored
from groklab.plots.style import STYLE, plt, save
from groklab.store import array_series

NAME = "fig11"
TITLE = "Fourier spectra of learned embeddings: add, mul, div"
PAPER = ("Clear frequency peaks for modular addition and multiplication (the embedding captures the "
         "task's periodic structure); for modular division the spectrum is more diffuse.")
TASKS = ("add", "mul", "div")
N_KEY = 5  # peakedness: share of the non-DC spectral energy in the N_KEY strongest frequencies

QUICK = ["batch_size=512", "steps=3000", "measures.spectra.every=100", f"measures.spectra.n_key={N_KEY}"]
PAPER_SIZES = ["optim.lr=0.01", "batch_size=512", "steps=20000", "measures.spectra.every=500",
               f"measures.spectra.n_key={N_KEY}"]


def runs(profile: str, seeds: int) -> list[RunSpec]:
    base = base_overrides(profile, QUICK, PAPER_SIZES)
    return [s for task in TASKS for s in seeded(task, base + [f"task={task}", "optim=adam"], seeds)]


def final(df, col: str) -> dict:
    """run -> last measured value of `col`."""
    sub = df.dropna(subset=[col]) if col in df else df.iloc[0:0]
    return {run: float(g.sort_values("step")[col].iloc[-1]) for run, g in sub.groupby("run")}


def analyze(df, out: Path) -> tuple[list[Path], list[Claim]]:
    share = final(df, "fourier/key_share") if not df.empty else {}
    per = {task: [share[r] for r in sorted(share) if r.startswith(f"{task}/")] for task in TASKS}
    figs = _plot(out) if share else []
    return figs, claims(per)


def _spectrum(run_dir: Path):
    """The run's last measured Fourier spectrum, or None."""
    if not run_dir.is_dir():
        return None
    steps, values = array_series(run_dir, "fourier/spectrum")
    return values[-1] if len(steps) else None


def _plot(out: Path) -> list[Path]:
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, len(TASKS), figsize=(3.2 * len(TASKS), 2.8), squeeze=False)
        for ax, task in zip(axes[0], TASKS):
            s = _spectrum(out / task / "s0")
            if s is not None:
                ax.bar(np.arange(1, len(s)), s[1:], width=0.9)
            ax.set_title(f"{task} (seed 0)")
            ax.set_xlabel("frequency k")
        axes[0][0].set_ylabel("||DFT(E)[k]||")
        fig.suptitle("Fig. 11: Fourier spectrum of the operand embeddings (end of training)")
        fig.tight_layout()
        return save(fig, out / "fig11", pdf=True)


def claims(per: dict) -> list[Claim]:
    med = {t: median_censored(v) if v else None for t, v in per.items()}
    ok = lambda t: bool(per.get(t)) and bool(per.get("div")) and med[t] > med["div"]  # noqa: E731
    stat = (f"peakedness = share of the non-DC energy sum_k |F_k|^2 in the {N_KEY} strongest frequencies "
            "(fourier/key_share) at the last measure; holds if its median over seeds is higher than div's")
    return [Claim(f"{t}_peaked_vs_div", f"The {t} embedding spectrum is more peaked than div's.", stat,
                  {k: per.get(k, []) for k in (t, "div")}, {f"median_{k}": med.get(k) for k in (t, "div")}, ok(t))
            for t in ("add", "mul")]
