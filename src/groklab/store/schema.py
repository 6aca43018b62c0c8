"""What each file of a run directory or experiment tree must hold; every reader checks it."""
from __future__ import annotations

from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, field_validator

STATUSES = ("running", "completed", "early_stop", "diverged", "interrupted", "failed")
FINISHED = ("completed", "early_stop", "diverged")  # a sweep or experiment skips these
Number = Optional[Union[StrictInt, StrictFloat]]


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class MetricRow(Open):
    """One line of metrics.jsonl: the step and flat slash-keyed numbers (null: not finite)."""

    step: StrictInt = Field(ge=0)

    def check_values(self) -> Optional[str]:
        """The first extra key whose value is not a number or null, as a message."""
        for key, value in (self.model_extra or {}).items():
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                return f"{key}: must be a number or null, not {type(value).__name__}"
        return None


class Summary(Open):
    status: Literal[STATUSES]
    steps: Optional[StrictInt] = Field(None, ge=0)
    t_train: Optional[StrictInt] = None
    t_test: Optional[StrictInt] = None
    gap: Optional[StrictInt] = None


class Manifest(Open):
    """experiment.json: what a figure directory was asked to train."""

    figure: str
    title: str
    paper: str
    profile: str
    seeds: StrictInt
    overrides: list[str] = []
    runs: dict[str, list[str]]

    @field_validator("runs")
    @classmethod
    def _inside(cls, runs: dict) -> dict:
        """Run names are folders below the experiment: relative, no '..' (readers open them)."""
        for name in runs:
            parts = name.split("/")
            if not name or name.startswith("/") or "\\" in name or any(p in ("", ".", "..") for p in parts):
                raise ValueError(f"run name {name[:80]!r} must be a relative path below the experiment, without '..'")
        return runs


class ClaimDoc(Open):
    id: str
    text: str
    statistic: str
    per_seed: dict[str, Any] = {}
    aggregate: dict[str, Any] = {}
    holds: Optional[StrictBool]  # None: inconclusive, `reason` says why
    note: str = ""
    reason: str = ""


class Claims(Open):
    """claims.json: a figure's verdicts."""

    figure: str
    title: str
    paper: str
    profile: str
    seeds: StrictInt
    wall_s: Number = None
    figures: list[str] = []
    health: dict[str, str] = {}
    claims: list[ClaimDoc]


class PartialClaimDoc(ClaimDoc):
    holds: None = None  # a partial run judges nothing


class Partial(Claims):
    """partial.json: the statistics of the runs a `reproduce --only GLOB` trained; no verdicts."""

    only: str
    trained: list[str]
    of: StrictInt
    claims: list[PartialClaimDoc]
