"""§3 of paper 004: weight decay makes the embedding uniform, and test accuracy follows.

With weight decay 1 vs 0 (everything else as 004's model): MED (mean distance between consecutive operand
embeddings) and MED_cv (their std / mean, the non-uniformity) at the fit of the training set and at the end.

Differences from the paper and its released code:
- Weight decay 0: the paper runs none (§6.1 and the release use 1); wd 0 is our control (AdamW with weight decay
  0: Adam with betas (0.9, 0.98)).
- Uniformity: §3 states it as theory (Thm 3.8, Remark 3.9; formulas lost) with no experiment of its own; ours MED
  (Def. 4.2; the release's variants are listed in med.py) and MED_cv, which is ours.
- Window: "after the training accuracy reaches 100%" (§3) read as from the first eval with train acc >= 0.99 to
  the last eval (a run that never fits: from the first eval).
- Task, p, split: not stated for §3; ours a + b, random 30% (§6.1's setting); sizes, lr, optimizer: the shared
  settings (profile.py). Horizon: not stated; ours 30,000 steps (paper), up to 15,000 (quick:
  profile.QUICK_HORIZON).
- Statistic: both ratios (end / fit) < 1 on every wd 1 seed and not both on any wd 0 seed; "test accuracy
  follows" as U-Acc >= 0.9 on every wd 1 seed and < 0.9 on every wd 0 seed (our threshold). MED is measured
  every 100 steps (quick 50); the release's every epoch.
- Seeds: the release one run (split random.seed(11) in base.py, init unseeded); ours seeds 0..n-1 (quick 5,
  paper 3) for init and split.
"""
from __future__ import annotations

from pathlib import Path

from groklab.experiments.beyond.profile import QUICK_HORIZON, base_overrides
from groklab.experiments.controls import DELAY, Control
from groklab.experiments.levels import every_seed
from groklab.experiments.spec import Claim, RunSpec, grid_runs
from groklab.experiments.variants import curves, per_variant, variant_of

NAME = "uniformity"
CONTROLS = [Control("wd1/*", "weight decay 1", 0.99, rests=("test_accuracy_follows",), delay=DELAY)]
TITLE = "Weight decay makes the embedding uniform (MED falls, spacing evens out) and test accuracy follows"
PAPER = ("The weight decay term encourages uniformity across all tokens in the embedding space when it is "
         "minimized; this uniformity drives grokking.")
VARIANTS = {"wd1": ["optim.weight_decay=1"], "wd0": ["optim.weight_decay=0"]}
GROK = 0.9  # "test accuracy follows": U-Acc at least this with weight decay


def runs(profile: str, seeds: int) -> list[RunSpec]:
    every = "50" if profile == "quick" else "100"
    base = base_overrides(profile, QUICK_HORIZON) + [f"measures.progress.every={every}"]
    return grid_runs(VARIANTS, base, seeds)


def changes(df) -> dict:
    """run -> (MED end / MED at fit, MED_cv end / MED_cv at fit)."""
    out = {}
    for run, g in df.dropna(subset=["progress/MED"]).groupby("run"):
        g = g.sort_values("step")
        fit = g[g["train/acc"] >= 0.99]
        at = fit.iloc[0] if len(fit) else g.iloc[0]
        end = g.iloc[-1]
        out[run] = (end["progress/MED"] / at["progress/MED"], end["progress/MED_cv"] / at["progress/MED_cv"])
    return out


def analyze(df, out: Path, profile: str = "quick") -> tuple[list[Path], list[Claim]]:
    figs = curves(df, out / "uniformity", "§3: weight decay 1 vs 0", list(VARIANTS))
    ch = changes(df) if not df.empty and "progress/MED" in df else {}
    return figs, claims(ch, per_variant(df, "u_or_max", list(VARIANTS)))


def claims(ch: dict, u: dict) -> list[Claim]:
    by = {v: [ch[r] for r in sorted(ch) if variant_of(r) == v] for v in VARIANTS}
    med = {v: [round(a, 4) for a, _ in x] for v, x in by.items()}
    cv = {v: [round(b, 4) for _, b in x] for v, x in by.items()}
    both = lambda m: m[0] < 1 and m[1] < 1  # noqa: E731
    return [every_seed("wd_makes_embedding_uniform", "With weight decay MED falls and the spacing evens out; "
                       "without, neither.", "MED and MED_cv at the end / at the fit of the training set",
                       {v: by.get(v, []) for v in ("wd1", "wd0")}, {"wd1": both, "wd0": lambda m: not both(m)},
                       "both ratios are < 1 with wd 1, and not both with wd 0", shown={"MED ratio": med,
                                                                                       "MED_cv ratio": cv}),
            every_seed("test_accuracy_follows", "Test accuracy follows: it groks with weight decay, not without.",
                       "U-Acc (highest after the fit without grokking)", {v: u.get(v, []) for v in ("wd1", "wd0")},
                       {"wd1": lambda x: None if x is None else x >= GROK,
                        "wd0": lambda x: None if x is None else x < GROK},
                       f"U-Acc >= {GROK} with wd 1 and below it with wd 0")]
