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


def seeded(name: str, overrides: list[str], seeds: int, split_seed: bool = True) -> list[RunSpec]:
    """One RunSpec per seed; the split seed follows the init seed so seeds differ in their data too."""
    out = []
    for s in range(seeds):
        extra = [f"seed={s}"] + ([f"split.seed={s}"] if split_seed else [])
        out.append(RunSpec(f"{name}/s{s}", tuple(overrides + extra)))
    return out


def grid_runs(cells: dict[str, list[str]], base: list[str], seeds: int) -> list[RunSpec]:
    """Runs `<cell>/s<seed>` for every cell (name -> its overrides on top of `base`)."""
    return [s for name, extra in cells.items() for s in seeded(name, base + extra, seeds)]
