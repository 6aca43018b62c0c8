"""Fig. 8 of paper 000: operand-token frequencies in train and test, and in mini-batches, per split strategy.

The statistics are properties of the data pipeline (split + sampler), so the runs train 0 steps: they
only pin the exact configs; the analysis rebuilds each run's split and batch stream from its config.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import torch

from groklab.config import make_config
from groklab.data import token_counts
from groklab.engine.setup import build
from groklab.experiments.embedding.profile import SKEW, base_overrides
from groklab.experiments.levels import every_seed
from groklab.experiments.posthoc import Revision, revised
from groklab.experiments.spec import Claim, RunSpec, seeded
from groklab.plots.style import STYLE, plt, save
from groklab.store import RunStore

NAME = "fig8"
TITLE = "Operand-token frequencies in train, test and mini-batches under random / uniform / skewed splits"
PAPER = ("Imbalanced sampling leads to uneven token occurrences in mini-batches: some tokens are absent "
         "from many updates while others appear frequently.")
SPLITS = ("random", "uniform", "skewed")
BATCHES = 200  # mini-batches of the epoch sampler inspected per run
ASSUMPTIONS = [replace(SKEW, only=None)]  # token_stats reads each run's folder: the arm trains all (steps = 0)


def runs(profile: str, seeds: int) -> list[RunSpec]:
    base = base_overrides(profile, ["batch_size=64", "steps=0"], ["batch_size=64", "steps=0"])
    return [spec for split in SPLITS for spec in seeded(split, base + ["task=add", f"split={split}"], seeds)]


def token_stats(run_dir: Path) -> dict:
    """Train/test frequency of operand a per token, and per token the share of batches without it."""
    exp = build(make_config(base=RunStore.open(run_dir).config()))
    p, tr = exp.cfg.p, exp.split.train
    f_train = token_counts(exp.table, tr)[0].double()
    f_test = token_counts(exp.table, exp.split.test)[0].double()
    absent, absent_a = (torch.zeros(p, dtype=torch.float64) for _ in range(2))
    ops = exp.table.operands[tr]
    for step in range(BATCHES):
        idx = exp.sampler.batch(step)
        batch = ops if idx is None else ops[idx]
        absent += (torch.bincount(batch.reshape(-1), minlength=p)[:p] == 0).double()  # in any operand position
        absent_a += (torch.bincount(batch[:, 0], minlength=p)[:p] == 0).double()
    return {"train": (f_train / f_train.sum()).tolist(), "test": (f_test / f_test.sum()).tolist(),
            "absent": (absent / BATCHES).tolist(), "absent_a": (absent_a / BATCHES).tolist(),
            "imbalance": float(f_train.max() / f_train.min().clamp(min=1)), "missing": int((f_train == 0).sum())}


def analyze(df, out: Path, profile: str = "quick") -> tuple[list[Path], list[Claim]]:
    stats = {}  # split -> [per seed dict]
    if not df.empty:
        for run, g in df.groupby("run", sort=True):
            stats.setdefault(g["split.name"].iloc[0], []).append(token_stats(out / run))
    figs = _plot(stats, out / "fig8") if stats else []
    return figs, claims(stats)


def _plot(stats: dict, path: Path) -> list[Path]:
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(2, len(SPLITS), figsize=(3.2 * len(SPLITS), 4.6), sharey="row", squeeze=False)
        for j, split in enumerate(SPLITS):
            if split not in stats:
                continue
            s = stats[split][0]  # seed 0, as the paper shows one split
            tok = range(len(s["train"]))
            axes[0][j].bar(tok, s["train"], width=1.0, alpha=0.7, label="train")
            axes[0][j].step(tok, s["test"], where="mid", color="C3", lw=1, label="test")
            axes[0][j].set_title(f"{split}: P(a = token)")
            axes[1][j].bar(tok, s["absent"], width=1.0, color="C2")
            axes[1][j].set_title("share of batches without the token")
            axes[1][j].set_xlabel("operand token a")
        axes[0][0].legend()
        fig.suptitle("Fig. 8: token probabilities (seed 0)")
        fig.tight_layout()
        return save(fig, path, pdf=True)


SPLITS_ORDER = ("skewed", "random", "uniform")


def claims(stats: dict) -> list[Claim]:
    imb = {s: [x["imbalance"] for x in stats.get(s, [])] for s in SPLITS}
    rare = {s: [max(x["absent"]) for x in stats.get(s, [])] for s in SPLITS}
    rare_a = {s: [max(x.get("absent_a", x["absent"])) for x in stats.get(s, [])] for s in SPLITS}
    n = min((len(v) for v in imb.values()), default=0)
    seeds = lambda d, *ss: [tuple(d[x][i] for x in ss) for i in range(n)]  # noqa: E731
    c1 = every_seed("skewed_uneven_train_tokens", "Skewed splits make operand-token frequencies in training uneven.",
                    "max / min count of an operand-a token in the training set",
                    {"skewed, random, uniform": seeds(imb, *SPLITS_ORDER)}, lambda x: x[0] > x[1] > x[2],
                    "skewed > random > uniform", {f"median_{s}": _median(v) for s, v in imb.items()}, shown=imb)
    c2, c2_a = (every_seed("rare_tokens_absent_from_batches",
                           "Under imbalanced sampling some tokens are absent from many mini-batches.",
                           f"for the rarest token, the share of the first {BATCHES} mini-batches without it {where}",
                           {"skewed, uniform": seeds(r, "skewed", "uniform")}, lambda x: x[0] > x[1],
                           "skewed > uniform", {f"median_{s}": _median(v) for s, v in r.items()}, shown=r)
                for r, where in ((rare, "in either operand position"), (rare_a, "as operand a")))
    if rare.get("random") and rare.get("uniform") and rare.get("skewed"):  # a comparison: the baseline said beside
        said = (f"a comparison, not an absolute: the stratified (uniform) split leaves its rarest token out of "
                f"{_median(rare['uniform']):.2f} of the batches too, a random split {_median(rare['random']):.2f}, "
                f"the skewed {_median(rare['skewed']):.2f} (medians over seeds)")
        c2.note = "; ".join(filter(None, [c2.note, said]))
    return [c1, revised(c2, c2_a, ANY_SLOT)]


# the embedding row of a token is updated wherever the token appears: its absence counts both operand positions
ANY_SLOT = Revision("2026-12-06", "a token's absence from a batch counts both operand positions", "operand a only",
                    "a fresh read (2026-12-06): the embedding is shared, so a-only absence overstated it about 3x")


def _median(v: list) -> float | None:
    return float(torch.tensor(v).median()) if v else None
