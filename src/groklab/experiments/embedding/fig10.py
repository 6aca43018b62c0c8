"""Fig. 10 of paper 000: rank of E, W and EW over training for Adam (wd 1e-3), Adam-LR, Adam (wd 5e-3)."""
from __future__ import annotations

from pathlib import Path

from groklab.experiments.embedding.profile import base_overrides
from groklab.experiments.spec import Claim, RunSpec, grid_runs
from groklab.experiments.stats import run_table
from groklab.plots.style import STYLE, plt, save

NAME = "fig10"
TITLE = "Rank of E, W and EW during training: Adam wd 1e-3, Adam-LR, Adam wd 5e-3"
PAPER = ("All setups reduce rank(EW) (implicit nuclear-norm regularization); only Adam-LR keeps "
         "changing rank after generalization.")
SETUPS = {"adam_wd1e-3": ["optim=adam", "optim.weight_decay=0.001"],
          "adam_lr_wd1e-3": ["optim=adam", "optim.c=10", "optim.weight_decay=0.001"],
          "adam_lr_adaptive_wd1e-3": ["optim=adam", "optim.c=10", "optim.c_mode=adaptive", "optim.weight_decay=0.001"],
          "adam_wd5e-3": ["optim=adam", "optim.weight_decay=0.005"]}
# no early stop: the claim is about what happens after generalization
QUICK = ["task=mul", "batch_size=512", "steps=1500", "stop.early=false", "measures.spectra.every=100",
         "measures.spectra.rank_rtol=0.01"]
PAPER_SIZES = ["task=mul", "optim.lr=0.01", "batch_size=512", "steps=20000", "stop.early=false",
               "measures.spectra.every=250", "measures.spectra.rank_rtol=0.01"]
RANKS = ("rank/E", "rank/W", "rank/EW")


def runs(profile: str, seeds: int) -> list[RunSpec]:
    base = base_overrides(profile, QUICK, PAPER_SIZES)
    return grid_runs(SETUPS, base, seeds)


def rank_stats(df) -> dict:
    """run -> (rank(EW) first, at t_test, last) with t_test from the run's accuracy curve."""
    if df.empty or "rank/EW" not in df:
        return {}
    t = run_table(df).set_index("run")["t_test"]
    out = {}
    for run, g in df.dropna(subset=["rank/EW"]).groupby("run"):
        g = g.sort_values("step")
        tt = t.get(run)
        at = g[g["step"] <= tt]["rank/EW"].iloc[-1] if tt == tt and tt is not None else None
        out[run] = (float(g["rank/EW"].iloc[0]), None if at is None else float(at), float(g["rank/EW"].iloc[-1]))
    return out


def analyze(df, out: Path) -> tuple[list[Path], list[Claim]]:
    st = rank_stats(df)
    figs = _plot(df, out / "fig10") if st else []
    return figs, claims(st)


def _plot(df, path: Path) -> list[Path]:
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, len(RANKS), figsize=(3.4 * len(RANKS), 3.0), squeeze=False)
        for ax, col in zip(axes[0], RANKS):
            for k, name in enumerate(SETUPS):
                g = df[df["run"] == f"{name}/s0"].dropna(subset=[col]).sort_values("step")
                ax.plot(g["step"].clip(lower=1), g[col], color=f"C{k}", label=name)
            ax.set(xscale="log", title=col, xlabel="step")
        axes[0][0].legend(fontsize=6)
        fig.suptitle("Fig. 10: rank evolution (seed 0; rank = #sigma > 0.01 sigma_max)")
        fig.tight_layout()
        return save(fig, path, pdf=True)


def claims(st: dict) -> list[Claim]:
    drop = {n: [st[r][0] - st[r][2] for r in sorted(st) if r.startswith(f"{n}/")] for n in SETUPS}
    after = {n: [None if st[r][1] is None else abs(st[r][2] - st[r][1]) for r in sorted(st) if r.startswith(f"{n}/")]
             for n in SETUPS}
    c1 = Claim("rank_EW_decreases", "rank(EW) decreases during training in every setup.",
               "rank(EW) at the first minus at the last measure (rank: sigma > 0.01 sigma_max); holds if > 0 "
               "for every seed of every setup", drop, {n: sum(v) / len(v) if v else None for n, v in drop.items()},
               all(v and min(v) > 0 for v in drop.values()))
    moving = {n: (bool(v) and None not in v and sum(x > 0 for x in v) * 2 > len(v)) for n, v in after.items()}
    c2 = Claim("only_adam_lr_changes_rank_after_grokking",
               "Only Adam-LR keeps changing rank(EW) after generalization.",
               "|rank(EW) at the end - at t_test|; a setup 'keeps changing' if it is > 0 on most seeds; holds if "
               "that is true for adam_lr (c = 10) and false for both plain Adam setups", after, moving,
               moving["adam_lr_wd1e-3"] and not moving["adam_wd1e-3"] and not moving["adam_wd5e-3"])
    return [c1, c2]
