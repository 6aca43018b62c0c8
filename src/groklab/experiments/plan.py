"""What a reproduction does with each study, decided once before anything is trained.

`plan_study` is the one reader of `--from` (an archived study), `--only` and `--train-missing`: it reads the
archive's run list once and says, per run, whether it is laid out from the archive, trained here (or resumed),
laid out but kept aside (an arm's archived runs not whole at these seeds), or left out. `runner.run_plan`
executes a plan; `judge.judge` turns the runs' table into verdicts. `TimeBudget` is `--budget`: whole runs are
started only while their estimate (sweep/cost.py) fits what is left.
"""
from __future__ import annotations

import fnmatch
import inspect
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from groklab.config import make_config, parse_override
from groklab.errors import ConfigError
from groklab.experiments.assumptions import arm_of, complete_arms, keeps, with_arms
from groklab.experiments.spec import RunSpec
from groklab.store import read_manifest
from groklab.store.archive import FORMAT, is_archive, lacking, lacking_error, read_index, trained_here

# Default seeds per configuration: with 3 a one-sided rank test reaches p = 0.05 only when every run of one
# arm precedes every run of the other (1 / C(6, 3)); 5 leave room for one overlap (p = 2/252). The quick
# profile costs minutes, so it runs 5; the paper profile keeps 3 where hours force it (claims say
# "underpowered" where 3 cannot decide).
SEEDS = {"quick": 5, "paper": 3}


def specs_of(module, profile: str, seeds: int, overrides: tuple[str, ...] = ()) -> list:
    """The figure's runs and its sensitivity arms' (assumptions.py), with `overrides` (e.g. p=31) appended to
    every run's config. A module whose runs() takes `p` gets the overridden modulus, to rescale what is tied
    to it (004's SQUARE/STRIP k)."""
    kw = {}
    if "p" in inspect.signature(module.runs).parameters:
        ps = [o for o in overrides if parse_override(o)[0] == "p"]
        kw["p"] = make_config([ps[-1]]).p if ps else None  # validated first: one-line error on p=abc
    specs = with_arms(module, profile, module.runs(profile, seeds, **kw))
    return [RunSpec(s.name, tuple(s.overrides) + tuple(overrides)) for s in specs]


def select(specs: list, only: str | None) -> list:
    """The specs whose run name matches the glob `only`, or one of its comma-separated globs (several
    configurations trained as one stacked unit: `groklab plan`); all of them when None."""
    if only is None:
        return specs
    globs = [g for g in only.split(",") if g]
    return [s for s in specs if any(fnmatch.fnmatchcase(s.name, g) for g in globs)]


@dataclass
class StudyPlan:
    """One study at one profile: the runs it is judged on and what becomes of each."""
    module: object
    profile: str
    seeds: int
    overrides: tuple[str, ...]
    every: list[RunSpec]  # the runs the study is judged on (an arm an archive lacks in part: cut, see `cut`)
    train: list[RunSpec]  # trained (or resumed) below out
    laid: list[str] = field(default_factory=list)  # archived runs laid out below out
    aside: list[RunSpec] = field(default_factory=list)  # an arm's archived runs laid out and kept, not judged
    source: Optional[Path] = None  # the archived study
    only: Optional[str] = None
    train_missing: bool = False
    cut: dict = field(default_factory=dict)  # arm -> the seeds it is judged at (None: without it)

    @property
    def name(self) -> str:
        return self.module.NAME

    @property
    def rejudge(self) -> bool:
        """Nothing is trained: the archived runs are laid out and judged."""
        return self.source is not None and not self.train_missing


def plan_study(module, out: str | Path, profile: str, seeds: int | None = None,
               overrides: tuple[str, ...] | None = None, only: str | None = None, archive: str | Path | None = None,
               train_missing: bool = False, whole: bool = False) -> StudyPlan | str:
    """The plan of `module`'s runs, or the line saying why it is left out (an archived study held part-way, when
    a whole paper is re-judged: `whole`). Seeds and overrides default to the archived study's. Raises on a
    request that cannot be met: runs the archive lacks, an --out holding trained runs an archive would
    overwrite."""
    held = read_index(archive)["studies"] if archive is not None and is_archive(archive) else {}
    absent = train_missing and is_archive(archive) and module.NAME not in held  # trained whole, as without --from
    study = archived_study(archive, module.NAME, profile) if archive is not None and not absent else None
    man = read_manifest(study) if study is not None else {}
    n = seeds if seeds is not None else man.get("seeds", SEEDS[profile])
    extra = tuple(overrides) if overrides is not None else tuple(man.get("overrides", ()))
    every = specs_of(module, profile, n, extra)
    chosen = select(every, only)
    plan = StudyPlan(module, profile, n, extra, every, chosen, only=only, train_missing=train_missing)
    if study is None:
        return plan
    lack = set(lacking(study, [s.name for s in every]))  # the archive's run list, read once
    here = Path(out) / module.NAME
    if train_missing:  # the archived runs are laid out, the others trained
        archived = [s.name for s in every if s.name not in lack]
        _refuse_trained(here, archived, f"{module.NAME} the archive also holds", "continue into a new --out")
        plan.train, plan.laid, plan.source = [s for s in chosen if s.name in lack], archived, study
        return plan
    missing = [s.name for s in chosen if s.name in lack and arm_of(s.name) is None]  # a missing arm: left out
    if missing and whole and only is None:
        return (f"{module.NAME}: archived part-way ({len(chosen) - len(missing)} of {len(chosen)} runs): left out; "
                "continue it with --train-missing")
    if missing:
        raise lacking_error(study, missing, len(chosen))
    _refuse_trained(here, [s.name for s in chosen], module.NAME, "re-judge an archive into a new --out")
    cut = complete_arms([s.name for s in chosen], [s.name for s in chosen if s.name in lack])
    plan.aside = [s for s in chosen if not keeps(cut, s.name) and s.name not in lack]
    plan.every = [s for s in every if keeps(cut, s.name)]
    plan.train, plan.source, plan.cut = [], study, cut
    plan.laid = [s.name for s in chosen if keeps(cut, s.name)]
    return plan


def _refuse_trained(here: Path, names: list[str], what: str, instead: str) -> None:
    trained = trained_here(here, names)
    if trained:
        raise ConfigError("out", str(here.parent), f"holds {len(trained)} trained runs of {what} (e.g. {trained[0]}); "
                                                   f"{instead}")


def archived_study(source: str | Path, name: str, profile: str) -> Path:
    """The study `name` of the results archive `source`, checked to hold the requested profile."""
    source = Path(source)
    if not is_archive(source):
        raise ConfigError("from", str(source), "is not a groklab results archive (no manifest.json of format "
                                               f"{FORMAT}); make one with groklab archive")
    index = read_index(source)
    if name not in index["studies"]:
        raise ConfigError("from", str(source), f"holds no study {name!r}; it holds {', '.join(index['studies'])}")
    got = index["studies"][name].get("profile")
    if got != profile:
        raise ConfigError("from", str(source), f"holds {name} at profile {got!r}, not {profile!r}")
    return source / name


@dataclass
class TimeBudget:
    """`--budget SECONDS`: a run (or a round of `jobs` runs) starts only when its estimate times the cost model's
    margin (sweep/cost.py) fits in what is left, so what starts finishes inside the budget; None: no budget."""
    seconds: Optional[float] = None
    start: float = field(default_factory=lambda: time.perf_counter())
    skipped: int = 0  # runs left for the next call

    def left(self) -> float:
        return float("inf") if self.seconds is None else self.seconds - (time.perf_counter() - self.start)

    def fits(self, estimate_s: float, margin: float = 1.0) -> bool:
        return self.seconds is None or estimate_s * margin <= self.left()
