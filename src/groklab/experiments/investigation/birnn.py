"""002 Task 2.3 (Fig 6): a 3-layer bidirectional RNN learns a + b mod 97 without a grokking gap.

002's prose: hidden 128, batch 512, Adam lr 5e-5 without weight decay, "encoding strategies the same as previous
models" (we embed tokens [a, b]; 002's code feeds the raw values as floats, input size 1). Readout: the top
layer's final forward and backward states. Cells: alpha 0.3 / 0.5 / 0.7; AdamW wd 1 (alpha 0.3); lr 2e-5
instead of 5e-5 (alpha 0.3); 5 layers (alpha 0.3).
"""
from __future__ import annotations

from pathlib import Path

from groklab.experiments.investigation.compare import below, contrast, draw, lag, table, within
from groklab.experiments.investigation.profile import budget, model
from groklab.experiments.spec import Claim, RunSpec, grid_runs

NAME = "birnn"
TITLE = "Bidirectional RNN on a + b: alpha, AdamW, a smaller lr, 5 layers"
PAPER = ("BiRNN learns the problem smoothly without a significant grokking process; AdamW with weight decay 1 "
         "makes no real difference; a smaller learning rate smooths the curve; more than 4 layers cause "
         "instability.")
# quick: p = 31 and lr x 20 (1e-3, small lr 4e-4), widths of the quick profile
LR = {"quick": (1e-3, 4e-4), "paper": (5e-5, 2e-5)}


def cells(profile: str) -> dict[str, list[str]]:
    lr, small = LR[profile]
    out = {f"a{a}": [f"split.frac_train={a}", f"optim.lr={lr}"] for a in (0.3, 0.5, 0.7)}
    out["adamw"] = ["split.frac_train=0.3", f"optim.lr={lr}", "optim=adamw", "optim.weight_decay=1"]
    out["small_lr"] = ["split.frac_train=0.3", f"optim.lr={small}"]
    out["L5"] = ["split.frac_train=0.3", f"optim.lr={lr}", "model.depth=5"]
    return out


def runs(profile: str, seeds: int) -> list[RunSpec]:
    p = ["p=31"] if profile == "quick" else ["p=97"]
    return grid_runs(cells(profile), model("birnn", profile) + p + budget(profile, 3000, 50, 30_000), seeds)


def analyze(df, out: Path) -> tuple[list[Path], list[Claim]]:
    figs = draw(df, out, "birnn", "002 Fig 6: BiRNN", list(cells("quick")))
    return figs, claims(table(df))


def claims(t: dict) -> list[Claim]:
    alphas = ["a0.3", "a0.5", "a0.7"]
    return [
        below("no_grokking_gap", "The BiRNN learns without a grokking gap.",
              "lag = (onset - t_train) / t_train (onset: normalised test acc >= 0.1; < 0: test accuracy rises "
              "before the training set is fit)", lag(t, alphas), alphas, 0.0),
        within("weight_decay_changes_little", "AdamW with weight decay 1 makes no real difference.",
               "final test accuracy", t["final_test"], "adamw", "a0.3", 0.05, floor=0.9),
        contrast("small_lr_smooths", "A smaller learning rate smooths the curve.",
                 "drops (test-acc falls >= 0.05 between evals)", t["drops"], "small_lr", "a0.3", -1),
        contrast("five_layers_destabilise", "Stacking 5 layers brings instability.",
                 "drops (test-acc falls >= 0.05 between evals)", t["drops"], "L5", "a0.3", 1),
    ]
