"""GrokBench II's anchors (anchors_v2.yaml): each published speed-up claim run in its authors' own setting, the
method at its published values against its paper's own baseline and against the board's baseline tuned in that
setting by the board's tuner: the declaration as validated data, and the runs it draws.

The run is anchors_run.py; the judgement anchors_board.py. Layout of DIR: tune/<anchor>/<method>/k<study>
(sweep.tune's trials of a tuned arm), eval/<anchor>/<arm>/k<study>/s<seed> (a fixed arm is study 0),
evals/<anchor>.npz (the evaluation runs packed as they finish: evals.py), and anchors.json (the declaration as
run, its digest, the profile and every tuned arm's choices): a re-judge reads anchors.json and evals/ alone, each
packed run checked against the overrides the declaration draws again.
"""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from groklab.config import make_config
from groklab.errors import ConfigError
from groklab.experiments.grokbench.protocol import (
    HERE,
    NAME,
    NAMED,
    Method,
    Profile,
    Protocol,
    Tuner,
    first_error,
    read_yaml,
)

FIXED = 0  # the study number of a fixed arm's runs (tuning studies are the declared seeds, disjoint from it)
Prof = Literal["quick", "paper", "tiny"]


class Anchor(BaseModel):
    """One published claim: where it is quoted from, its setting and sizes, its arms."""
    model_config = ConfigDict(extra="forbid")
    paper: str = Field(max_length=500)
    claim: str = Field(max_length=2_000)
    published: str = Field(max_length=2_000)
    setting: list[str] = Field(max_length=64)
    assumed: str = Field(max_length=2_000)
    profiles: dict[Prof, list[str]]
    arms: dict[str, list[str]] = Field(min_length=1)  # fixed arms: overrides on the setting
    methods: list[str] = Field(min_length=1)  # the arms whose claim is judged (fixed or tuned)
    paper_baseline: str  # the fixed arm the paper compared against
    tuned: list[str] = Field(min_length=1)  # methods tuned in this setting (methods_v2.yaml's, or `own`)
    own: dict[str, Method] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _names(self) -> "Anchor":
        every = [*self.arms, *self.tuned]
        bad = [n for n in every if not NAME.fullmatch(n)]
        if bad:
            raise ValueError(f"arm name {ascii(bad[0])[:80]}: {NAMED}")
        if len(set(every)) != len(every):
            raise ValueError("an arm is both fixed and tuned")
        if self.paper_baseline not in self.arms:
            raise ValueError(f"paper_baseline {self.paper_baseline!r} is not a fixed arm ({', '.join(self.arms)})")
        stray = [m for m in self.methods if m not in every]
        if stray:
            raise ValueError(f"method {stray[0]!r} is neither a fixed arm nor a tuned one")
        return self


class AnchorTuner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    budget: int = Field(ge=1, le=100)  # training steps per study, in horizons
    min_steps: int = Field(ge=1)
    eta: int = Field(ge=2, le=10)
    sampler: Literal["qmc", "tpe"] = "qmc"
    studies: list[int] = Field(min_length=1, max_length=20)


class Anchors(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int = Field(ge=1, le=99)
    baseline: str
    draw_seed: int
    level: float = Field(gt=0, le=1)
    persistence: int = Field(ge=0)
    also: float = Field(gt=0, le=1)
    also_persistence: int = Field(ge=0)
    eval_seeds: dict[Prof, list[int]]
    tuner: dict[Prof, AnchorTuner]
    base: list[str] = Field(max_length=64)
    anchors: dict[str, Anchor] = Field(min_length=1)

    @model_validator(mode="after")
    def _disjoint(self) -> "Anchors":
        bad = [n for n in self.anchors if not NAME.fullmatch(n)]
        if bad:
            raise ValueError(f"anchor name {ascii(bad[0])[:80]}: {NAMED}")
        for p, seeds in self.eval_seeds.items():
            studies = set(self.tuner[p].studies) if p in self.tuner else set()
            if len(seeds) < 2 or FIXED in studies:
                raise ValueError(f"{p}: at least 2 evaluation seeds, and no tuning study numbered {FIXED} (the "
                                 "fixed arms' runs are study 0)")
        return self


def load_anchors(path: Path = HERE / "anchors_v2.yaml") -> Anchors:
    try:
        return Anchors.model_validate(read_yaml(Path(path), "anchors"))
    except ValidationError as err:
        raise first_error(err, "anchors") from None


def profile_of(spec: Anchors, name: str, profile: str) -> Profile:
    """The anchor as a one-task v2 profile: base + setting + sizes, its tuner's budget in training steps."""
    a = spec.anchors[name]
    if profile not in a.profiles or profile not in spec.tuner or profile not in spec.eval_seeds:
        raise ConfigError("profile", profile, f"anchor {name} declares {', '.join(a.profiles)}")
    base = [*spec.base, *a.setting, *a.profiles[profile]]
    t = spec.tuner[profile]
    horizon = make_config(base).steps
    return Profile(base=base, tasks={name: []}, eval_seeds=spec.eval_seeds[profile],
                   tuner=Tuner(budget_steps=t.budget * horizon, min_steps=min(t.min_steps, horizon), eta=t.eta,
                               sampler=t.sampler, studies=t.studies))


def protocol_of(spec: Anchors, prof: Profile, profile: str) -> Protocol:
    """The board's Protocol object the tuner reads: the anchors' level and persistence are what it tunes for."""
    return Protocol(version=spec.version, baseline=spec.baseline, threshold=spec.level, also=spec.also,
                    persistence=spec.persistence, draw_seed=spec.draw_seed, profiles={profile: prof},
                    criterion="per study, the complete trial with the highest sweep.tune score at the anchors' level")


def tuned_methods(spec: Anchors, name: str, board: dict[str, Method]) -> dict[str, Method]:
    a = spec.anchors[name]
    every = {**board, **a.own}
    missing = [m for m in a.tuned if m not in every]
    if missing:
        raise ConfigError(f"anchors.{name}.tuned", missing[0], f"a method of methods_v2.yaml or the anchor's own "
                                                                f"({', '.join(sorted(every))})")
    return {m: every[m] for m in a.tuned}


def fixed_runs(spec: Anchors, name: str, prof: Profile) -> dict:
    """{run: {"overrides", "values"}} of every fixed arm on every evaluation seed (study FIXED)."""
    a = spec.anchors[name]
    return {f"eval/{name}/{arm}/k{FIXED}/s{s}": {"overrides": [*prof.base, *ov, f"seed={s}", f"split.seed={s}"],
                                                 "values": {}}
            for arm, ov in a.arms.items() for s in prof.eval_seeds}


def draw_runs(spec: Anchors, name: str, profile: str, methods: dict[str, Method], selection: dict) -> dict:
    """Every evaluation run of one anchor: the fixed arms', then each tuned arm's studies' choices."""
    from groklab.experiments.grokbench.evals import eval_runs

    prof = profile_of(spec, name, profile)
    return {**fixed_runs(spec, name, prof), **eval_runs(prof, methods, [name], selection)}


def check_spec(spec: Anchors, board: dict[str, Method], profile: str, names: list[str]) -> None:
    """Every fixed arm and every tuned arm's fixed trials make a valid config (before anything trains)."""
    from groklab.experiments.grokbench.protocol import corners, fixed_trials, overrides

    for name in names:
        prof = profile_of(spec, name, profile)
        for run, r in fixed_runs(spec, name, prof).items():
            try:
                make_config(r["overrides"])
            except ConfigError as err:
                raise ConfigError(f"anchors.{name}", err.value, f"{run.split('/')[2]}: {err}") from None
        for m, meth in tuned_methods(spec, name, board).items():
            for values in fixed_trials(meth) + corners(meth):
                make_config(overrides(prof, meth, name, values, prof.eval_seeds[0]))


__all__ = ["Anchor", "Anchors", "check_spec", "draw_runs", "fixed_runs", "load_anchors", "profile_of",
           "protocol_of", "tuned_methods"]
