"""What a paper figure is made of: runs (name + config overrides), and claims checked on their metrics."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from groklab.store import clean
from groklab.store.schema import verdict_words

PROFILES = ("quick", "paper")


@dataclass(frozen=True)
class RunSpec:
    """One training run of a figure: its directory name below DIR/<fig>/ and its config overrides."""

    name: str
    overrides: tuple[str, ...]


# why a claim is inconclusive
# "not measured": the sentence names a quantity we have not computed (said with what we did measure beside it)
REASONS = ("precondition", "censored", "failures", "underpowered", "no effect seen", "not measured", "partial")


@dataclass
class Claim:
    """A claim of the paper, the statistic that tests it, its value per seed, and the verdict: `holds` True
    (holds), False (does not hold) or None (inconclusive, with `reason` one of REASONS and `note` saying why)."""

    id: str
    text: str  # the paper's claim, in a sentence
    statistic: str  # how it is measured, precisely enough to recompute
    per_seed: dict[str, list] = field(default_factory=dict)  # group -> value per seed (None: not reached)
    aggregate: dict[str, Any] = field(default_factory=dict)  # group -> aggregate (median, ratio, ...)
    holds: bool | None = False
    note: str = ""  # e.g. why the check could not be made
    reason: str = ""  # with holds None: one of REASONS
    # assumption field -> the verdict with its other plausible value (assumptions.py); fields that change it
    sensitivity: dict[str, dict] = field(default_factory=dict)
    depends_on: list[str] = field(default_factory=list)
    # a rule changed after its data were seen (posthoc.revised): since, rule, replaced, and the verdict under it
    post_hoc: dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        if self.holds is None and self.reason not in REASONS:
            raise ValueError(f"claim {self.id}: an inconclusive verdict needs a reason in {REASONS}")

    def inconclusive(self, reason: str, why: str) -> "Claim":
        """This claim made inconclusive (a precondition failed, too many runs censored, ...), saying why."""
        self.holds, self.reason = None, reason
        self.note = "; ".join(filter(None, [self.note, why]))  # two sentences never run together
        self.__post_init__()
        return self

    def to_dict(self) -> dict:
        """The claim's entry in its study's claims file; `sensitivity` and `depends_on` only when an arm judged it,
        `post_hoc` only for a rule changed after its data."""
        d = {k: v for k, v in clean(asdict(self)).items() if v or k not in ("sensitivity", "depends_on", "post_hoc")}
        return {**d, "verdict": verdict_words(self.holds, self.reason, self.depends_on)}


def says(v: tuple) -> str:
    """A verdict (holds, reason, ...) as a phrase after "it": "holds", "does not hold", "is inconclusive (reason)"."""
    return {True: "holds", False: "does not hold"}.get(v[0], f"is inconclusive ({v[1]})")


def verdict_of(holds, reason: str = "") -> str:
    """'holds', 'does not hold', or 'inconclusive (reason)' (one verdict, before any arm is weighed)."""
    return verdict_words(holds, reason)


def seeded(name: str, overrides: list[str], seeds: int, split_seed: bool = True) -> list[RunSpec]:
    """One RunSpec per seed; the split seed follows the init seed so seeds differ in their data too."""
    out = []
    for s in range(seeds):
        extra = [f"seed={s}"] + ([f"split.seed={s}"] if split_seed else [])
        out.append(RunSpec(f"{name}/s{s}", tuple(overrides + extra)))
    return out


def seed_of(run: str) -> int | None:
    """The seed a run name made by `seeded` ends with (<cell>/s<seed>), None for a name without one."""
    head, _, last = run.rpartition("/s")
    return int(last) if head and last.isdigit() else None


def grid_runs(cells: dict[str, list[str]], base: list[str], seeds: int) -> list[RunSpec]:
    """Runs `<cell>/s<seed>` for every cell (name -> its overrides on top of `base`)."""
    return [s for name, extra in cells.items() for s in seeded(name, base + extra, seeds)]
