"""What a reproduction still has to train, in units with estimated seconds (`groklab plan`).

A unit is what one `reproduce --only GLOBS` call trains. On a CPU: one configuration of a study with all its
seeds, run after run. On a GPU: every configuration of a study that can share one stacked population (the same
shapes and recipe; other seeds, fractions, lrs, weight decays, c: population.stack_key), as many as fit one
device command (CAP_S), since a stack of 30 members costs little more than one of 3. Estimates come from the
cost model fitted to archived runs (sweep/cost.py); runs an archive (`--from`) or a tree (`--out`) already holds
are not listed.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from groklab.config import make_config
from groklab.engine.population import check_stackable, stack_key
from groklab.errors import ConfigError
from groklab.experiments.reproduction import MAX_SEEDS, plan_target
from groklab.experiments.spec import PROFILES
from groklab.store import read_summary
from groklab.store.run import FINISHED
from groklab.sweep.cost import run_seconds

CAP_S = 440  # a GPU unit's estimate at most: with START_S, one slice of 480 s (results/PLAN.md)


def units(target: str, profile: str, seeds: int | None = None, source: str | Path | None = None,
          out: str | Path | None = None, device: str = "cpu", cap_s: float = CAP_S) -> list[dict]:
    """[{study, unit (comma-separated run globs), runs, seconds}] of what is left to train, in the order
    reproduce trains it."""
    _check(profile, seeds, device)
    where = Path(out) if out is not None else Path(".groklab-plan-nowhere")
    plans = plan_target(target, where, profile, seeds, None, None, source, source is not None, lambda *_: None)
    rows = []
    for plan in plans:
        groups: dict[str, dict[str, list]] = {}  # stack (GPU) or configuration -> configuration -> its runs
        for s in plan.train:
            if out is not None and read_summary(where / plan.name / s.name).get("status") in FINISHED:
                continue
            variant = s.name.rsplit("/", 1)[0]
            cfg = make_config(list(s.overrides))
            stacks = device == "cuda" and _stackable(cfg)
            groups.setdefault(stack_key(cfg) if stacks else variant, {}).setdefault(variant, []).append(cfg)
        for by_variant in groups.values():
            unit: dict[str, list] = {}
            for variant, cfgs in by_variant.items():
                if unit and _seconds({**unit, variant: cfgs}, device) > cap_s:
                    rows.append(_row(plan.name, unit, device))
                    unit = {}
                unit[variant] = cfgs
            rows.append(_row(plan.name, unit, device))
    return rows


def _stackable(cfg) -> bool:
    try:
        check_stackable([cfg, cfg])
    except ConfigError:
        return False
    return True


def _seconds(unit: dict[str, list], device: str) -> float:
    """A unit's estimate: on a GPU one stack of all its members, as long as its longest member and as wide as its
    widest (padded) batch; on a CPU its runs one after another."""
    cfgs = [c for cs in unit.values() for c in cs]
    if device != "cuda":
        return sum(run_seconds(c.to_dict(), device) for c in cfgs)
    widest = max(cfgs, key=lambda c: (c.steps, c.batch_size if c.sampler != "full" else 1 << 30))
    return run_seconds(widest.to_dict(), device, len(cfgs))


def _row(study: str, unit: dict[str, list], device: str) -> dict:
    return {"study": study, "unit": ",".join(f"{v}/*" for v in unit), "runs": sum(map(len, unit.values())),
            "seconds": round(_seconds(unit, device), 1)}


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
