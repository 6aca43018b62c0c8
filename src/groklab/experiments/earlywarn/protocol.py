"""The early-warning study's protocol (protocol.yaml), validated: the event, the population and its pilot rule,
disjoint seed blocks, the measures (each saying whether it reads test inputs: an oracle, ranked apart), the alarm
rule and the scores. Everything a prediction could be tuned by after the fact is data fixed before the runs."""
from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from groklab.config import make_config
from groklab.config.yaml12 import loads as load_yaml
from groklab.errors import ConfigError
from groklab.experiments.grokbench.protocol import NAME, NAMED
from groklab.store.files import read_text

HERE = Path(__file__).parent


class Event(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: float = Field(gt=0, le=1)
    persistence: int = Field(ge=0)


class Pilot(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seeds: list[int] = Field(min_length=2, max_length=100)
    fracs: list[float] = Field(min_length=2, max_length=20)
    rule: str


class Population(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pilot: Pilot
    settings: dict[str, list[str]] = Field(min_length=1)
    held_out: dict[str, list[str]] = Field(min_length=1)
    base: list[str]


class Seeds(BaseModel):
    model_config = ConfigDict(extra="forbid")
    explore: list[int] = Field(min_length=2)
    evaluate: list[int] = Field(min_length=2)
    held_out: list[int] = Field(min_length=2)


class Alarms(BaseModel):
    model_config = ConfigDict(extra="forbid")
    false_positive_rate: float = Field(gt=0, lt=1)
    normalise: str


class Scores(BaseModel):
    model_config = ConfigDict(extra="forbid")
    auroc_at: list[int] = Field(min_length=1)
    bootstrap: dict
    lead: str
    warned_share: str
    baselines: list[str]
    oracles: list[str] = Field(min_length=1)


class Protocol(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int = Field(ge=1)
    event: Event
    population: Population
    seeds: Seeds
    measures: dict[str, tuple[str, bool, int]] = Field(min_length=10)
    alarms: Alarms
    scores: Scores

    @model_validator(mode="after")
    def _sound(self) -> "Protocol":
        pop = self.population
        names = [*pop.settings, *pop.held_out, *self.measures]
        bad = [n for n in names if not NAME.fullmatch(n)]
        if bad:
            raise ValueError(f"name {ascii(bad[0])[:80]}: {NAMED}")
        shared = sorted(set(pop.settings) & set(pop.held_out))
        if shared:
            raise ValueError(f"a held-out setting is looked at while designing: {shared[0]!r} is a setting too")
        blocks = {"pilot": pop.pilot.seeds, **self.seeds.model_dump()}
        for a in blocks:
            for b in blocks:
                both = sorted(set(blocks[a]) & set(blocks[b])) if a < b else []
                if both:
                    raise ValueError(f"seed blocks {a} and {b} must be disjoint (both: {both[:3]})")
        rare = [m for m, (_, _, every) in self.measures.items() if every < 1]
        if rare:
            raise ValueError(f"measure {rare[0]!r}: its schedule (every) must be >= 1 step")
        oracles = [m for m, (_, reads_test, _) in self.measures.items() if reads_test]
        if sorted(oracles) != sorted(self.scores.oracles):
            raise ValueError(f"the oracles (measures reading test inputs: {oracles}) must be those scores.oracles "
                             f"names ({self.scores.oracles}): an oracle is ranked apart")
        return self


def load(path: Path = HERE / "protocol.yaml") -> Protocol:
    """The protocol file, validated (one-line error naming the field), every setting a valid config at every
    pilot fraction."""
    try:
        proto = Protocol.model_validate(load_yaml(read_text(path)))
    except ValidationError as err:
        e = err.errors()[0]
        raise ConfigError(".".join(["earlywarn", *map(str, e["loc"])]), e.get("input", "..."),
                          e["msg"].removeprefix("Value error, ")) from None
    pop = proto.population
    for name, setting in {**pop.settings, **pop.held_out}.items():
        for frac in pop.pilot.fracs:
            try:
                make_config([*pop.base, *setting, f"split.frac_train={frac}"])
            except ConfigError as err:
                raise ConfigError(f"earlywarn.population.{name}", err.value, str(err)) from None
    return proto
