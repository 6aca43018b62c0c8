"""002 Task 4 (Figs 10-11): sums of K operands a_1 + ... + a_K mod p, K = 2, 3, 4.

002 ran p = 23 with the batch growing with K (K = 2: 64; K = 3: 256 and 1024; K = 4: 1024), a Transformer and
an MLP, and a bidirectional RNN at K = 3 with and without weight decay. The repository has no K-operand
Transformer or working MLP code; we use the Task 1 Transformer (input [a_1, +, ..., a_K, =]), the embedding
MLP of Task 2.2 (no operator tokens) and the BiRNN of Task 2.3 with 002's Fig 11 lr 5e-4, all on half of the
p^K table (002's BiRNN code's fraction; the text gives none). gap = t_test - t_train, censored at the horizon.
"""
from __future__ import annotations

from pathlib import Path

from groklab.experiments.investigation.compare import below, draw, lag, table, trend, within
from groklab.experiments.investigation.profile import budget, model
from groklab.experiments.spec import Claim, RunSpec, grid_runs
from groklab.experiments.stats import boot_mean

NAME = "ksum"
TITLE = "K-operand sums mod p: the grokking gap against K and batch size"
PAPER = ("The grokking gap diminishes as K increases in both the Transformer and the MLP, and batch size is not the "
         "dominant factor; the BiRNN learns K > 2 without grokking and does not rely on weight decay.")
SHAPES = {"K2-b64": (2, 64), "K3-b256": (3, 256), "K3-b1024": (3, 1024), "K4-b1024": (4, 1024)}
ARCHS = ("transformer", "mlp")
BIRNN = {"birnn-K3-wd1": ["optim=adamw", "optim.weight_decay=1"],
         "birnn-K3-wd0": ["optim=adam", "optim.weight_decay=0"]}


def runs(profile: str, seeds: int) -> list[RunSpec]:
    p = ["p=11"] if profile == "quick" else ["p=23"]
    common = ["task=sum", "split.frac_train=0.5"] + p
    out = []
    for arch in ARCHS:
        base = model(arch, profile) + common + budget(profile, 2000, 50, 50_000)
        out += grid_runs({f"{arch}-{c}": [f"task.K={k}", f"batch_size={b}"] for c, (k, b) in SHAPES.items()},
                         base, seeds)
    base = model("birnn", profile) + common + ["task.K=3", "batch_size=256", "optim.lr=5e-4"]
    return out + grid_runs(BIRNN, base + budget(profile, 2000, 50, 30_000), seeds)


def analyze(df, out: Path) -> tuple[list[Path], list[Claim]]:
    order = [f"{a}-{c}" for a in ARCHS for c in SHAPES] + list(BIRNN)
    figs = draw(df, out, "ksum", "002 Figs 10-11: K-operand sums", order)
    return figs, claims(table(df))


def claims(t: dict) -> list[Claim]:
    out = []
    for arch in ARCHS:
        c = lambda name: f"{arch}-{name}"  # noqa: E731
        gap = t["gap"]
        out.append(trend(f"{arch}_gap_shrinks_with_K", f"{arch}: the grokking gap shrinks as K grows.",
                         "gap = t_test - t_train (K = 2 at batch 64, 3 at 256, 4 at 1024)", gap,
                         {c("K2-b64"): 2, c("K3-b256"): 3, c("K4-b1024"): 4}, -1))
        mean = lambda name: boot_mean(gap.get(c(name), []))["mean"] or 0.0  # noqa: E731
        k_effect = abs(mean("K2-b64") - mean("K3-b256"))
        out.append(within(f"{arch}_batch_not_the_cause", f"{arch}: batch size is not what shrinks the gap.",
                          "gap at K = 3, batch 1024 vs 256; margin = half the K = 2 -> 3 change of the mean gap",
                          gap, c("K3-b1024"), c("K3-b256"), 0.5 * k_effect))
    cells = list(BIRNN)
    out.append(below("birnn_no_grokking_K3", "The BiRNN learns K = 3 without grokking.",
                     "lag = (onset - t_train) / t_train (< 0: test accuracy rises before the fit)", lag(t, cells),
                     cells, 0.0))
    out.append(within("birnn_no_weight_decay_needed", "The BiRNN does not rely on weight decay to generalize.",
                      "final test accuracy", t["final_test"], "birnn-K3-wd0", "birnn-K3-wd1", 0.05, floor=0.9))
    return out
