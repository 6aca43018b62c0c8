"""What a paper figure is made of: runs (name + config overrides), and claims checked on their metrics."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from groklab.store import clean

PROFILES = ("quick", "paper")


@dataclass(frozen=True)
class RunSpec:
    """One training run of a figure: its directory name below DIR/<fig>/ and its config overrides."""

    name: str
    overrides: tuple[str, ...]


@dataclass
class Claim:
    """A claim of the paper, the statistic that tests it, its value per seed, and the verdict."""

    id: str
    text: str  # the paper's claim, in a sentence
    statistic: str  # how it is measured, precisely enough to recompute
    per_seed: dict[str, list] = field(default_factory=dict)  # group -> value per seed (None: not reached)
    aggregate: dict[str, Any] = field(default_factory=dict)  # group -> aggregate (median, ratio, ...)
    holds: bool = False
    note: str = ""  # e.g. why the check could not be made

    def to_dict(self) -> dict:
        return clean(asdict(self))


# quick: p = 47 and half the table for training (at 30% of p = 47 the MLP did not grok add within
# 6000 steps), a 64/256 MLP, lr 0.01: measured to grok add/sub/mul/div in 400-700 steps at batch 512.
QUICK = ["p=47", "split.test_reserve=0.2", "split.frac_train=0.5", "model.d_emb=64", "model.d_hidden=256",
         "optim.lr=0.01", "eval.every=25", "eval.log_points=30", "stop.patience=200"]
# paper: 000 §5 -- p = 97, 20% reserved as test, 30% of the table for training, d = 128, hidden 512
PAPER = ["p=97", "split.test_reserve=0.2", "split.frac_train=0.3", "model.d_emb=128", "model.d_hidden=512",
         "eval.every=50", "eval.log_points=40", "stop.patience=1000"]


def base_overrides(profile: str, quick: list[str], paper: list[str]) -> list[str]:
    """The profile's shared sizes, then the figure's own overrides for it (no progress bar)."""
    return ["progress=false"] + (QUICK + quick if profile == "quick" else PAPER + paper)


def seeded(name: str, overrides: list[str], seeds: int, split_seed: bool = True) -> list[RunSpec]:
    """One RunSpec per seed; the split seed follows the init seed so seeds differ in their data too."""
    out = []
    for s in range(seeds):
        extra = [f"seed={s}"] + ([f"split.seed={s}"] if split_seed else [])
        out.append(RunSpec(f"{name}/s{s}", tuple(overrides + extra)))
    return out

