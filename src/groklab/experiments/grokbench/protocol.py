"""GrokBench's declared protocol and methods (protocol.yaml, methods.yaml), validated, and the tuning draws.

Everything a comparison could be tuned by after the fact is data fixed before the runs: the ranges each method
draws from, the number of tuning runs (equal for every method and task), the tuning and evaluation seeds (disjoint),
the selection criterion, the threshold. The draws are a Latin hypercube per (method, task), seeded by the
protocol's `draw_seed` and the two names alone, so adding a method or a task changes no other method's draws.
"""
from __future__ import annotations

import math
import re
import zlib
from pathlib import Path
from typing import Literal, Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from groklab.config import make_config
from groklab.config.yaml12 import loads as load_yaml
from groklab.errors import ConfigError
from groklab.store.files import read_text

HERE = Path(__file__).parent
# a method's or task's name is a folder of its runs (tune/<task>/<method>/...), a CSV value and a Markdown cell
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+-]{0,63}")
NAMED = "1-64 letters, digits, '_', '+' or '-', starting with a letter or digit"


class Range(BaseModel):
    """One tuned hyper-parameter: log-uniform, uniform, or one of a list."""
    model_config = ConfigDict(extra="forbid")
    log: Optional[tuple[float, float]] = None
    uniform: Optional[tuple[float, float]] = None
    choice: Optional[list] = None

    @model_validator(mode="after")
    def _one(self) -> "Range":
        given = [k for k in ("log", "uniform", "choice") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of log, uniform, choice (got {given or 'none'})")
        if self.log is not None and not 0 < self.log[0] <= self.log[1]:
            raise ValueError(f"log range {list(self.log)} needs 0 < lo <= hi")
        if self.uniform is not None and not self.uniform[0] <= self.uniform[1]:
            raise ValueError(f"uniform range {list(self.uniform)} needs lo <= hi")
        if self.choice is not None and not self.choice:
            raise ValueError("choice needs at least one value")
        return self

    def at(self, u: float):
        """The value at quantile u in [0, 1) of this range."""
        if self.log is not None:
            lo, hi = self.log
            return float(math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo))))
        if self.uniform is not None:
            lo, hi = self.uniform
            return float(lo + u * (hi - lo))
        return self.choice[min(int(u * len(self.choice)), len(self.choice) - 1)]


# what a method may set or tune: its optimizer and its loss. The task, horizon, split, seeds, model and
# evaluation are the protocol's, the same for every method (a method's `set: [steps=40]` would change the race)
METHOD_KEYS = ("optim.", "loss")


class Method(BaseModel):
    """An optimizer or gradient filter groklab has (`set`) and the ranges its tuning draws from (`tune`); for
    protocol v2, the fixed trials every tuning study runs first: `nested`, the point of its space that is the plain
    optimizer (lambda = 0, c = 1: it may lie outside a log range), and `recipe`, its authors' published values."""
    model_config = ConfigDict(extra="forbid")
    about: str = Field(max_length=2_000)
    set: list[str] = Field(default_factory=list, max_length=64)
    tune: dict[str, Range] = Field(min_length=1, max_length=64)
    nested: dict[str, float | int | str] = Field(default_factory=dict, max_length=64)
    recipe: dict[str, float | int | str] = Field(default_factory=dict, max_length=64)

    @model_validator(mode="after")
    def _own_keys(self) -> "Method":
        keys = [o.split("=", 1)[0].strip() for o in self.set] + list(self.tune)
        fixed = [k for k in keys if not k.startswith(METHOD_KEYS)]
        if fixed:
            raise ValueError(f"{fixed[0]!r} is the protocol's (task, horizon, split, seeds, model, evaluation): a "
                             f"method sets and tunes only keys starting {' or '.join(METHOD_KEYS)}")
        for what in ("nested", "recipe"):
            stray = sorted(set(getattr(self, what)) - set(self.tune))
            if stray:
                raise ValueError(f"{what} sets {stray[0]!r}, which the method does not tune (tuned: "
                                 f"{', '.join(sorted(self.tune))})")
        return self


class Tuner(BaseModel):
    """Protocol v2's tuning (sweep.tune): per method, task and study, successive halving in training steps."""
    model_config = ConfigDict(extra="forbid")
    budget_steps: int = Field(ge=1, le=10**8)  # training steps per method, task and study, every rung counted
    min_steps: int = Field(ge=1)  # the first rung
    eta: int = Field(ge=2, le=10)  # the reduction factor
    sampler: Literal["qmc", "tpe"] = "qmc"
    studies: list[int] = Field(min_length=1, max_length=20)  # one tuning seed per study, each a study of its own


class Heldout(BaseModel):
    """Tasks withheld from tuning and design: each method runs there with its configuration tuned on `source`."""
    model_config = ConfigDict(extra="forbid")
    source: str
    tasks: dict[str, list[str]] = Field(min_length=1)


class Profile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    base: list[str]
    tasks: dict[str, list[str]] = Field(min_length=1)
    # bounded before anything is drawn or trained: 10**9 tuning configurations or 500,000 seeds are typos
    # v1: a Latin hypercube of tuning_configs per method and task, each on tuning_seeds; v2: `tuner` instead
    tuning_configs: Optional[int] = Field(None, ge=1, le=10_000)
    tuning_seeds: Optional[list[int]] = Field(None, min_length=1, max_length=100)
    tuner: Optional[Tuner] = None
    heldout: Optional[Heldout] = None
    eval_seeds: list[int] = Field(min_length=2, max_length=1_000)

    @model_validator(mode="after")
    def _disjoint(self) -> "Profile":
        bad = [t for t in [*self.tasks, *(self.heldout.tasks if self.heldout else {})] if not NAME.fullmatch(t)]
        if bad:
            raise ValueError(f"task name {ascii(bad[0])[:80]}: {NAMED}")
        if self.tuner is not None and (self.tuning_configs is not None or self.tuning_seeds is not None):
            raise ValueError("a profile with a tuner takes no tuning_configs or tuning_seeds")
        if self.tuner is None and (self.tuning_configs is None or self.tuning_seeds is None):
            raise ValueError("give either tuning_configs and tuning_seeds (v1) or tuner (v2)")
        tuning = self.tuning_seeds if self.tuner is None else self.tuner.studies
        both = sorted(set(tuning) & set(self.eval_seeds))
        if both:
            raise ValueError(f"tuning and evaluation seeds must be disjoint (both: {both})")
        if self.heldout is not None:
            if self.heldout.source not in self.tasks:
                raise ValueError(f"heldout.source {self.heldout.source!r} is not a task ({', '.join(self.tasks)})")
            shared = sorted(set(self.heldout.tasks) & set(self.tasks))
            if shared:
                raise ValueError(f"a held-out task is withheld from tuning: {shared[0]!r} is a tuned task too")
        return self

    @property
    def tuning_runs(self) -> int:
        return self.tuning_configs * len(self.tuning_seeds) if self.tuner is None else 0


class Protocol(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int = Field(1, ge=1, le=99)
    # time to grok: the first step from which test accuracy stays >= threshold for `persistence` steps (v1: 0,
    # the first touch; measures.curves.held_from)
    persistence: int = Field(0, ge=0)
    baseline: str
    threshold: float = Field(gt=0, le=1)
    also: float = Field(gt=0, le=1)
    draw_seed: int
    criterion: str
    aggregate: str = "every task"
    profiles: dict[Literal["quick", "paper", "tiny"], Profile]


def read_yaml(path: Path, what: str) -> dict:
    try:
        data = load_yaml(read_text(path))
    except ConfigError:
        raise
    except Exception as e:  # a YAML error, an alias bomb, a document too long: one line naming the file
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:160]
        raise ConfigError(what, str(path), f"not a YAML document groklab reads ({first})") from None
    if not isinstance(data, dict):
        raise ConfigError(what, str(path), "a YAML mapping")
    return data


def load_methods(path: Path = HERE / "methods.yaml") -> dict[str, Method]:
    """The methods file, each entry validated (a bad entry: a one-line error naming it)."""
    out = {}
    for name, entry in read_yaml(path, "methods").items():
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise ConfigError("methods", name, f"a method's name: {NAMED}")
        try:
            out[str(name)] = Method.model_validate(entry)
        except ValidationError as err:
            raise first_error(err, f"methods.{name}") from None
    return out


def load_protocol(path: Path = HERE / "protocol.yaml") -> Protocol:
    try:
        return Protocol.model_validate(read_yaml(path, "protocol"))
    except ValidationError as err:
        raise first_error(err, "protocol") from None


def first_error(err: ValidationError, where: str) -> ConfigError:
    """pydantic's first complaint as groklab's one line: the field's dotted place, its value, the message."""
    e = err.errors()[0]
    place = ".".join([where, *map(str, e["loc"])])
    return ConfigError(place, e.get("input", "..."), e["msg"].removeprefix("Value error, "))


def draws(method: str, m: Method, task: str, n: int, seed: int) -> list[dict]:
    """n configurations of `method`'s tuned keys for `task`: a Latin hypercube (each key's range cut in n strata,
    one draw in each), seeded by (seed, method, task)."""
    from scipy.stats import qmc

    keys = sorted(m.tune)
    key = [seed, zlib.crc32(method.encode()), zlib.crc32(task.encode())]
    u = qmc.LatinHypercube(d=len(keys), seed=np.random.default_rng(key)).random(n)
    return [{k: m.tune[k].at(float(row[j])) for j, k in enumerate(keys)} for row in u]


def overrides(profile: Profile, method: Method, task: str, values: dict, seed: int,
              tasks: dict | None = None) -> list[str]:
    """The run's config overrides: the profile's base, the task's (`tasks`: where to look it up, e.g. held-out
    tasks too), the method's settings, its drawn values, and the seed (init and split alike)."""
    drawn = [f"{k}={_fmt(v)}" for k, v in sorted(values.items())]
    return [*profile.base, *(tasks or profile.tasks)[task], *method.set, *drawn, f"seed={seed}", f"split.seed={seed}"]


def _fmt(v) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def check(protocol: Protocol, methods: dict[str, Method], profile: str) -> None:
    """Every method's every draw makes a valid config at this profile (before anything trains)."""
    if protocol.baseline not in methods:
        raise ConfigError("protocol.baseline", protocol.baseline, f"one of the methods: {', '.join(methods)}")
    prof = protocol.profiles[profile]
    every = {**prof.tasks, **(prof.heldout.tasks if prof.heldout else {})}
    for name, m in methods.items():
        for task in every:
            for values in (draws(name, m, task, prof.tuning_configs, protocol.draw_seed) if prof.tuner is None
                           else fixed_trials(m) + corners(m)):
                try:
                    make_config(overrides(prof, m, task, values, prof.eval_seeds[0], every))
                except ConfigError as err:
                    raise ConfigError(f"methods.{name}", err.value, f"its config fails on {task}: {err}") from None


def fixed_trials(m: Method) -> list[dict]:
    """Protocol v2's trials each tuning study runs first: the nested baseline point, then the published recipe
    (each completed from the ranges' geometric or arithmetic middle where it leaves a key unset)."""
    mid = {k: r.at(0.5) for k, r in m.tune.items()}
    return [{**mid, **point} for point in (m.nested, m.recipe) if point]


def corners(m: Method) -> list[dict]:
    """Every tuned key at its range's low end, then at its high end: configs a checked protocol must accept."""
    return [{k: r.at(u) for k, r in m.tune.items()} for u in (0.0, 1.0 - 1e-12)]


def digest(path: Path) -> str:
    """sha256 of a protocol or methods file as it lies on disk: recorded before any run (frozen: a change after
    is a new version, and the recorded digest says which file a board was run under)."""
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


__all__ = ["Heldout", "Method", "Profile", "Protocol", "Range", "Tuner", "check", "corners", "digest", "draws",
           "fixed_trials", "load_methods", "load_protocol", "overrides"]
