"""What a reproduction still has to train, in units with estimated seconds (`groklab plan`).

A unit is one configuration of a study with all its seeds: on a GPU one stacked population, on a CPU its runs
one after another. Estimates come from the cost model fitted to archived runs (sweep/cost.py); runs an
archive (`--from`) or a tree (`--out`) already holds are not listed.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from groklab.config import make_config
from groklab.errors import ConfigError
from groklab.experiments.reproduction import MAX_SEEDS, plan_target
from groklab.experiments.spec import PROFILES
from groklab.store import read_summary
from groklab.store.run import FINISHED
from groklab.sweep.cost import run_seconds


def units(target: str, profile: str, seeds: int | None = None, source: str | Path | None = None,
          out: str | Path | None = None, device: str = "cpu") -> list[dict]:
    """[{study, unit (a run glob), runs, seconds}] of what is left to train, in the order reproduce trains it."""
    _check(profile, seeds, device)
    where = Path(out) if out is not None else Path(".groklab-plan-nowhere")
    plans = plan_target(target, where, profile, seeds, None, None, source, source is not None, lambda *_: None)
    rows = []
    for plan in plans:
        groups: dict[str, list] = {}
        for s in plan.train:
            if out is not None and read_summary(where / plan.name / s.name).get("status") in FINISHED:
                continue
            groups.setdefault(s.name.rsplit("/", 1)[0], []).append(s)
        for variant, specs in groups.items():
            cfg = make_config(list(specs[0].overrides)).to_dict()
            n = len(specs)
            t = run_seconds(cfg, device, n) if device == "cuda" else n * run_seconds(cfg, device)
            rows.append({"study": plan.name, "unit": f"{variant}/*", "runs": n, "seconds": round(t, 1)})
    return rows


def print_plan(target: str, profile: str, seeds: int | None = None, source=None, out=None, device: str = "cpu",
               jobs: int = 1, echo: Callable = print, slice_s: float | None = None) -> list[dict]:
    """Print units() as a table, and last `N units, about M min on DEVICE` (a CPU's total divided by `jobs`);
    with `slice_s`, the units as results/PLAN.md's slices of one GPU command each instead of the table."""
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ConfigError("jobs", jobs, "must be an integer >= 1")
    if slice_s is not None and not 0 < slice_s <= 600:  # one device command is at most 10 minutes
        raise ConfigError("slices", slice_s, "must be seconds in (0, 600]: one GPU command each")
    rows = units(target, profile, seeds, source, out, device)
    if slice_s is not None:
        for line in markdown(target, rows, slice_s, profile, str(source) if source else None):
            echo(line)
    w = max([len(r["study"]) for r in rows] + [5])
    u = max([len(r["unit"]) for r in rows] + [4])
    if rows and slice_s is None:
        echo(f"{'study':<{w}}  {'unit':<{u}}  {'runs':>5}  {'est. s':>8}")
    for r in rows if slice_s is None else []:
        echo(f"{r['study']:<{w}}  {r['unit']:<{u}}  {r['runs']:>5}  {r['seconds']:>8.0f}")
    total = sum(r["seconds"] for r in rows) / (max(jobs, 1) if device == "cpu" else 1)
    side = f" ({jobs} jobs)" if device == "cpu" and jobs > 1 else ""
    echo(f"{len(rows)} units, about {total / 60:.0f} min on {device}{side}")
    return rows


def _check(profile: str, seeds, device: str) -> None:
    if profile not in PROFILES:
        raise ConfigError("profile", profile, f"allowed: {', '.join(PROFILES)}")
    if seeds is not None and (not isinstance(seeds, int) or isinstance(seeds, bool) or not 1 <= seeds <= MAX_SEEDS):
        raise ConfigError("seeds", seeds, f"must be an integer from 1 to {MAX_SEEDS}")
    if device not in ("cpu", "cuda"):
        raise ConfigError("device", device, "allowed: cpu, cuda")


START_S = 20  # a unit's process start and analysis on a GPU machine (results/PLAN.md's measured units: ~20 s)


def slices(rows: list[dict], limit_s: float) -> list[list[dict]]:
    """The units in order, packed into slices whose estimates (plus START_S each) fit `limit_s`: one GPU command
    each. A unit longer than the limit is a slice of its own (its row says so)."""
    out: list[list[dict]] = []
    for r in rows:
        cost = r["seconds"] + START_S
        if out and sum(x["seconds"] + START_S for x in out[-1]) + cost <= limit_s:
            out[-1].append(r)
        else:
            out.append([r])
    return out


def markdown(target: str, rows: list[dict], limit_s: float, profile: str, archive: str | None) -> list[str]:
    """results/PLAN.md's table for `target`: a row per slice, with the command that runs it on a lent GPU
    (benchmarks/gpu_slice.sh DEADLINE EST UNIT...: a unit starts only if its estimate fits before the deadline)."""
    paper = target.split("/")[0]
    lines = ["| slice | units (study: run glob) | est. min | command |", "| --- | --- | --- | --- |"]
    env = f"ARCHIVE={archive} " if archive else ""
    for i, sl in enumerate(slices(rows, limit_s), 1):
        est = max(round(r["seconds"]) + START_S for r in sl)
        units = " ".join(f"'{paper}/{r['study']}:{r['unit']}'" for r in sl)
        total = sum(r["seconds"] + START_S for r in sl) / 60
        what = "; ".join(f"{r['study']}: `{r['unit']}`" for r in sl)
        over = " (longer than one command: needs a longer window or fewer seeds)" if total * 60 > limit_s else ""
        lines.append(f"| {i} | {what}{over} | {total:.0f} | `{env}bash benchmarks/gpu_slice.sh {int(limit_s)} {est} "
                     f"{units}` |")
    return lines
