"""The early-warning study's protocol (protocol.yaml), validated: the event, the population and its pilot rule,
disjoint seed blocks, the measures (each saying whether it reads test inputs: an oracle, ranked apart), the alarm
rule, the scores and the papers' claims. Everything a prediction could be tuned by after the fact is data fixed
before the runs; the file is frozen (its sha256 in docs/earlywarn.md, checked by a test)."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from groklab.config import make_config
from groklab.config.yaml12 import loads as load_yaml
from groklab.errors import ConfigError
from groklab.experiments.grokbench.protocol import NAME, NAMED
from groklab.store.files import read_text

HERE = Path(__file__).parent
PROTOCOL = HERE / "protocol.yaml"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Event(Strict):
    level: float = Field(gt=0, le=1)
    persistence: int = Field(ge=0)
    fit_level: float = Field(gt=0, le=1)


class Pilot(Strict):
    seeds: list[int] = Field(min_length=2, max_length=100)
    fracs: list[float] = Field(min_length=2, max_length=20)
    rule: str
    found: dict[str, dict[float, int]] = Field(min_length=1)  # setting -> fraction -> grokking pilot seeds
    second_round: dict[str, list[float]] = {}  # setting -> the fractions a second round tried
    dropped: dict[str, list[str]] = {}  # the settings the rule dropped, with their overrides (the pilot reruns them)


class HeldOut(Strict):
    like: str  # the setting whose fraction, signs and thresholds it takes
    overrides: list[str]


class Population(Strict):
    pilot: Pilot
    settings: dict[str, tuple[float, list[str]]] = Field(min_length=1)  # name -> (fraction, overrides)
    held_out: dict[str, HeldOut] = Field(min_length=1)
    base: list[str]
    measured: list[str]


class Seeds(Strict):
    explore: list[int] = Field(min_length=2)
    evaluate: list[int] = Field(min_length=2)
    held_out: list[int] = Field(min_length=2)


class Alarms(Strict):
    false_positive_rate: float = Field(gt=0, lt=1)


class Scores(Strict):
    auroc_at: list[int] = Field(min_length=1)
    primary: int
    bootstrap: dict
    lead: str
    warned_share: str
    fpr: str
    baselines: list[str]
    oracles: list[str] = Field(min_length=1)


class PaperClaim(Strict):
    id: str
    paper: str
    quote: str
    measure: str
    rule: str


class Protocol(Strict):
    version: int = Field(ge=1)
    event: Event
    population: Population
    seeds: Seeds
    # name -> (metrics key, reads test inputs, steps between values, normalised at the fit)
    measures: dict[str, tuple[str, bool, int, Literal["relative", "difference"]]] = Field(min_length=10)
    alarms: Alarms
    scores: Scores
    claims: list[PaperClaim] = []

    @model_validator(mode="after")
    def _sound(self) -> "Protocol":
        pop = self.population
        names = [*pop.settings, *pop.held_out, *self.measures, *(c.id for c in self.claims)]
        bad = [n for n in names if not NAME.fullmatch(n)]
        if bad:
            raise ValueError(f"name {ascii(bad[0])[:80]}: {NAMED}")
        shared = sorted(set(pop.settings) & set(pop.held_out))
        if shared:
            raise ValueError(f"a held-out setting is looked at while designing: {shared[0]!r} is a setting too")
        unlike = [h.like for h in pop.held_out.values() if h.like not in pop.settings]
        if unlike:
            raise ValueError(f"held_out like {unlike[0]!r}: must be one of the settings {sorted(pop.settings)}")
        blocks = {"pilot": pop.pilot.seeds, **self.seeds.model_dump()}
        for a in blocks:
            for b in blocks:
                both = sorted(set(blocks[a]) & set(blocks[b])) if a < b else []
                if both:
                    raise ValueError(f"seed blocks {a} and {b} must be disjoint (both: {both[:3]})")
        rare = [m for m, (_, _, every, _) in self.measures.items() if every < 1]
        if rare:
            raise ValueError(f"measure {rare[0]!r}: its schedule (every) must be >= 1 step")
        oracles = [m for m, (_, reads_test, _, _) in self.measures.items() if reads_test]
        if sorted(oracles) != sorted(self.scores.oracles):
            raise ValueError(f"the oracles (measures reading test inputs: {oracles}) must be those scores.oracles "
                             f"names ({self.scores.oracles}): an oracle is ranked apart")
        if self.scores.primary not in self.scores.auroc_at:
            raise ValueError(f"scores.primary {self.scores.primary} must be one of auroc_at {self.scores.auroc_at}")
        unknown = [m for m in [*self.scores.baselines, *(c.measure for c in self.claims)]
                   if m not in self.measures and m != "fit_step"]
        if unknown:
            raise ValueError(f"measure {unknown[0]!r} is not among the measures")
        for name, shares in pop.pilot.found.items():
            tried = sorted({*pop.pilot.fracs, *pop.pilot.second_round.get(name, [])})
            if sorted(shares) != tried:
                raise ValueError(f"pilot.found {name!r}: fractions {sorted(shares)}, but the pilot tried {tried}")
        chosen, dropped = pilot_choice(pop.pilot.found, len(pop.pilot.seeds))
        for name, (frac, _) in pop.settings.items():
            if chosen.get(name) != frac:
                raise ValueError(f"setting {name!r} at fraction {frac}: the pilot rule picks {chosen.get(name)}")
        if sorted(dropped) != sorted(pop.pilot.dropped) or set(chosen) != set(pop.settings):
            raise ValueError(f"the settings must be those the pilot rule keeps ({sorted(chosen)}; dropped: "
                             f"{sorted(dropped)})")
        return self


def pilot_choice(found: dict[str, dict[float, int]], n: int) -> tuple[dict[str, float], list[str]]:
    """The pilot rule: per setting, the fraction whose share of the n pilot seeds grokking is closest to 1/2
    (ties: the smaller fraction), among shares in [0.25, 0.75]; a setting with none is dropped."""
    chosen, dropped = {}, []
    for name, shares in found.items():
        fit = [(abs(k / n - 0.5), f) for f, k in shares.items() if 0.25 <= k / n <= 0.75]
        if fit:
            chosen[name] = min(fit)[1]
        else:
            dropped.append(name)
    return chosen, dropped


def sha256(path: Path = PROTOCOL) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load(path: Path = PROTOCOL) -> Protocol:
    """The protocol file, validated (one-line error naming the field), every setting a valid config at its
    fraction with the measures on."""
    try:
        proto = Protocol.model_validate(load_yaml(read_text(path)))
    except ValidationError as err:
        e = err.errors()[0]
        raise ConfigError(".".join(["earlywarn", *map(str, e["loc"])]), e.get("input", "..."),
                          e["msg"].removeprefix("Value error, ")) from None
    for name, (frac, overrides) in {**proto.population.settings, **held_out_settings(proto)}.items():
        try:
            make_config([*proto.population.base, *overrides, f"split.frac_train={frac}",
                         *proto.population.measured])
        except ConfigError as err:
            raise ConfigError(f"earlywarn.population.{name}", err.value, str(err)) from None
    return proto


def held_out_settings(proto: Protocol) -> dict[str, tuple[float, list[str]]]:
    """Each held-out setting as (fraction, overrides), its fraction that of the setting it is `like`."""
    pop = proto.population
    return {name: (pop.settings[h.like][0], h.overrides) for name, h in pop.held_out.items()}


def horizon(proto: Protocol) -> int:
    """The runs' horizon: the base's steps."""
    return make_config(list(proto.population.base)).steps
