"""002 §3.2 (Fig 9): optimizers, dropout and sizes for the p = 59 MLP of 002's released code.

Adam, NAdam, RMSprop and SGD (no momentum) without weight decay, against AdamW with weight decay 1 (002:
"we did not use weight decay in the adaptive gradient optimizers besides AdamW"); dropout after every ReLU
with AdamW. The statistic is the best test accuracy over training, which is what 002's code records. 002's
accuracies are divided by batches x batch size rather than by the number of samples, so its curves top out
at 0.9715 at this size: 0.97 there means 1.0 here.
"""
from __future__ import annotations

from pathlib import Path

from groklab.experiments.controls import Control
from groklab.experiments.investigation.compare import contrast, draw, table, within
from groklab.experiments.investigation.profile import CODE_STEPS, budget, code_mlp
from groklab.experiments.spec import Claim, RunSpec, grid_runs

NAME = "optimizers"
CONTROLS = [Control("adamw/*", "AdamW (the optimizer every other is compared with)", 0.99)]
TITLE = "p = 59 MLP: optimizers, dropout (and, at paper size, weight decay, fraction, sizes)"
PAPER = ("The results demonstrate the crucial part of L2 regularization (weight decay) and the trivial part of "
         "dropout in learning the dataset; only AdamW generalizes.")
OTHERS = ("adam", "nadam", "rmsprop", "sgd")


def cells(profile: str) -> dict[str, list[str]]:
    out = {"adamw": []}
    out.update({o: [f"optim={o}", "optim.weight_decay=0"] + (["optim.momentum=0"] if o == "sgd" else [])
                for o in OTHERS})
    out.update({f"dropout{d}": [f"model.dropout={d}"] for d in (0.2, 0.5)})
    if profile == "paper":
        out.update({f"wd{w}": [f"optim.weight_decay={w}"] for w in (0, 0.2, 0.6)})
        out.update({f"frac{f}": [f"split.frac_train={f}"] for f in (0.3, 0.7)})
        out.update({f"width{w}": [f"model.d_hidden={w}"] for w in (64, 256)})
        out.update({f"emb{e}": [f"model.d_emb={e}"] for e in (32, 128)})
        out.update({f"layers{n}": [f"model.depth={n + 1}"] for n in (2, 3)})
    return out


def runs(profile: str, seeds: int) -> list[RunSpec]:
    return grid_runs(cells(profile), code_mlp(profile) + budget(profile, 3000, 50, CODE_STEPS), seeds)


def analyze(df, out: Path, profile: str = "quick") -> tuple[list[Path], list[Claim]]:
    order = list(cells(profile))
    figs = draw(df, out, "optimizers", "002 Fig 9: optimizers and regularisation, p = 59 MLP", order)
    return figs, claims(table(df))


def claims(t: dict) -> list[Claim]:
    best = t["max_test"]
    out = [contrast(f"adamw_beats_{o}", f"Weight decay is what matters: AdamW (wd 1) generalizes better than {o} "
                    "without weight decay.", "best test accuracy over training", best, "adamw", o, 1, floor=0.9)
           for o in OTHERS]
    return out + [within("dropout_barely_matters", "Dropout plays a trivial part.", "best test accuracy over training",
                         best, "dropout0.5", "adamw", 0.05, floor=0.9)]
