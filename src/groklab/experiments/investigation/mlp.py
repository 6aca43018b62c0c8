"""002 Task 2.2 (Figs 4-5): an embedding MLP on a + b -- training fraction, depth and width.

002's prose: embedding + a 3-layer MLP of width 256, no operator tokens, p = 97, AdamW lr 5e-4, wd 1, batch
512. Its repository's notebook for this task (mycode_1229/task2_mlp.ipynb) trains another network: p = 53, half
the table, batch 64, embedding 128, 256 -> 256 with ReLU, 256 -> 128 without activation, 128 -> p, Xavier
init, AdamW lr 1e-3 wd 1, 20,000 steps. We run the prose's (3 ReLU layers of their own); the notebook's is
not built yet. Here depth = number of hidden layers. Cells: alpha at depth 3; depth at alpha 0.5; width at
depth 3.
"""
from __future__ import annotations

from pathlib import Path

from groklab.experiments.controls import Control
from groklab.experiments.investigation.compare import draw, table, trend, within
from groklab.experiments.investigation.profile import budget, model
from groklab.experiments.spec import Claim, RunSpec, grid_runs

NAME = "mlp"
CONTROLS = [Control("a0.5-L3-w128/*", "the baseline MLP (alpha 0.5, 3 layers, width 128)", 0.99)]
TITLE = "Embedding MLP on a + b: training fraction, depth, width"
PAPER = ("The training fraction primarily influences the speed of grokking rather than its overall "
         "effectiveness; extra layers do not grok faster but hurt stability and slow convergence; width has "
         "minimal effect.")
ALPHAS = (0.3, 0.5, 0.7)
DEPTHS = {"quick": (2, 3, 5), "paper": (2, 3, 4, 5)}
WIDTHS = {"quick": (64, 128, 256), "paper": (64, 128, 256, 512)}
WIDTH = {"quick": 128, "paper": 256}


def cells(profile: str) -> dict[str, list[str]]:
    w = WIDTH[profile]
    out = {f"a{a}-L3-w{w}": [f"split.frac_train={a}", "model.depth=3", f"model.d_hidden={w}"] for a in ALPHAS}
    out.update({f"a0.5-L{d}-w{w}": ["split.frac_train=0.5", f"model.depth={d}", f"model.d_hidden={w}"]
                for d in DEPTHS[profile]})
    out.update({f"a0.5-L3-w{x}": ["split.frac_train=0.5", "model.depth=3", f"model.d_hidden={x}"]
                for x in WIDTHS[profile]})
    return out


def runs(profile: str, seeds: int) -> list[RunSpec]:
    p = ["p=59"] if profile == "quick" else ["p=97"]
    return grid_runs(cells(profile), model("mlp", profile) + p + budget(profile, 4000, 50), seeds)


def analyze(df, out: Path, profile: str = "quick") -> tuple[list[Path], list[Claim]]:
    figs = draw(df, out, "mlp", "002 Figs 4-5: MLP, alpha / depth / width", list(cells(profile)))
    return figs, claims(table(df), profile)


def claims(t: dict, profile: str) -> list[Claim]:
    w, depths, widths = WIDTH[profile], DEPTHS[profile], WIDTHS[profile]
    by_a = {f"a{a}-L3-w{w}": a for a in ALPHAS}
    by_d = {f"a0.5-L{d}-w{w}": d for d in depths}
    lo_a, hi_a = f"a{ALPHAS[0]}-L3-w{w}", f"a{ALPHAS[-1]}-L3-w{w}"
    return [
        trend("alpha_changes_speed", "A larger training fraction groks sooner.", "t_test", t["t_test"], by_a, -1),
        within("alpha_not_end_state", "The training fraction does not change the end state.",
               "final test accuracy", t["final_test"], hi_a, lo_a, 0.05, floor=0.9),
        trend("depth_slows", "More layers slow grokking down.", "t_test", t["t_test"], by_d, 1),
        trend("depth_destabilises", "More layers make training less stable.",
              "drops (test-acc falls >= 0.05 between evals)", t["drops"], by_d, 1),
        within("width_matters_little", "Width has minimal effect on what the MLP reaches.", "final test accuracy",
               t["final_test"], f"a0.5-L3-w{widths[-1]}", f"a0.5-L3-w{widths[0]}", 0.05, floor=0.9),
    ]
