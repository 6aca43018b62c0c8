"""What each file of a run directory or experiment tree must hold; every reader checks it."""
from __future__ import annotations

from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, field_validator

from groklab.store.names import name_problem

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


class RunLine(Open):
    """One line of an archive's runs.jsonl.gz (its metric rows are checked by `rows_problem`, faster than a model
    per row: an archive holds hundreds of thousands)."""

    run: str
    missing: StrictBool = False
    config: Optional[dict] = None
    summary: Optional[Summary] = None
    error: Optional[str] = None
    metrics: Optional[list] = None


def rows_problem(rows: list) -> Optional[str]:
    """Why metric rows are not groklab's (None when they are): each an object with an integer step >= 0 and
    numbers or null beside it, finite and within float range (a 5,000-digit integer would overflow pandas)."""
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or type(row.get("step")) is not int or row["step"] < 0:
            return f"metrics row {i}: must be an object with an integer step >= 0"
        for key, v in row.items():
            if v is None or key == "step":
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not abs(v) < 1e300:
                return f"metrics row {i}: {ascii(key)[:60]} must be a finite number or null"
    return None


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
            problem = name_problem(name)
            if problem:
                raise ValueError(f"run name {ascii(name)[:80]} {problem}")
        return runs


def verdict_words(holds, reason: str = "", depends_on=()) -> str:
    """A verdict in the words every output uses: 'holds', 'does not hold', 'inconclusive (reason)', or -- when our
    setting and a sensitivity arm at another plausible value of a setting the paper leaves open decide
    opposite ways -- 'depends on an unstated setting (field, ...)': the paper's sentence alone does not fix it; where
    every such field is a reading of the sentence's words ("reading of 'delayed'"), 'depends on the reading of
    'delayed''."""
    if depends_on and holds is not None:
        fields = [str(f) for f in depends_on]
        # a reading of the sentence's own words is no setting (a fresh read, 2026-12-07): 'depends on the reading'
        words = [f[len("reading of "):] if f.startswith("reading of ") else f for f in fields]
        if all(f.startswith(("reading of '", "'")) for f in fields):
            return f"depends on the reading of {', '.join(words)}"
        return f"depends on an unstated setting ({', '.join(fields)})"
    return {True: "holds", False: "does not hold"}.get(holds, f"inconclusive ({reason or 'partial'})")


class Sensitivity(Open):
    """How a claim fares under another value of a setting the paper leaves unstated (reports show these)."""

    judged_with: Optional[str] = None
    verdict: Optional[str] = None


class Fixed(Open):
    """When a claim's rule was fixed (experiments/posthoc.fixed): date, commit, before_data, how."""

    date: Optional[StrictStr] = None
    commit: Optional[StrictStr] = None
    before_data: Optional[StrictBool] = None
    how: StrictStr = ""


class ClaimDoc(Open):
    id: str
    text: str
    statistic: str
    per_seed: dict[str, Any] = {}
    aggregate: dict[str, Any] = {}
    holds: Optional[StrictBool]  # None: inconclusive, `reason` says why
    note: str = ""
    reason: str = ""
    kind: Literal["paper", "measurement"] = "paper"
    quote: Optional[str] = None
    where: Optional[str] = None
    depends_on: list[str] = []
    sensitivity: dict[str, Sensitivity] = {}
    post_hoc: dict[str, StrictStr] = {}  # a rule changed after its data: since, rule, replaced, verdict (why)
    fixed: Optional[Fixed] = None  # when the rule was fixed, and whether before the study's data existed


class Assumption(Open):
    field: str
    ours: str
    why: str
    other: Optional[str] = None
    arm: Optional[str] = None
    extra: list[str] = []


class Control(Open):
    what: str
    runs: str
    reach: Union[StrictInt, StrictFloat]
    best: dict[str, Union[StrictInt, StrictFloat]] = {}
    ok: StrictBool
    delay: Optional[Union[StrictInt, StrictFloat]] = None  # a grokking control: t_test / t_train at least this
    ratio: dict[str, Optional[Union[StrictInt, StrictFloat]]] = {}


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
    assumptions: list[Assumption] = []
    controls: list[Control] = []
    looks: list[StrictInt] = []  # the seed counts the study was looked at, when raised on sight of a verdict


class PartialClaimDoc(ClaimDoc):
    holds: None = None  # a partial run judges nothing


class Partial(Claims):
    """partial.json: the statistics of the runs a `reproduce --only GLOB` (or a `--budget` that did not cover every
    run: no glob) trained; no verdicts."""

    only: Optional[str] = None
    trained: list[str]
    of: StrictInt
    claims: list[PartialClaimDoc]
