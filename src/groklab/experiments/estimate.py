"""What a reproduction still has to train, in units with estimated seconds (`groklab plan`).

A unit is what one `reproduce --only GLOBS` call trains. On a CPU: one configuration of a study with all its
seeds, run after run. On a GPU: every configuration of a study that can share one stacked population (the same
shapes and recipe; other seeds, fractions, lrs, weight decays, c: population.stack_key), as many as fit one
device command (cap_s()), since a stack of 30 members costs little more than one of 3; runs that cannot stack
(ResNet-18, dropout outside the MLP) run one after another, and a configuration longer than one command is cut
into groups of seeds (a GPU window returns no checkpoint to resume from). Estimates come from the cost model
fitted to archived runs (sweep/cost.py); runs an archive (`--from`) or a tree (`--out`) already holds are not
listed.
"""
from __future__ import annotations

import shlex
from pathlib import Path
from typing import Callable

from groklab.config import make_config
from groklab.engine.population import check_stackable, stack_key
from groklab.errors import ConfigError
from groklab.experiments.reproduction import MAX_SEEDS, plan_target
from groklab.experiments.spec import PROFILES
from groklab.store import read_summary
from groklab.store.run import FINISHED
from groklab.sweep.cost import TERMS, margin, run_terms

SLICE_S = 480  # one GPU command's work (results/PLAN.md: run with timeout_s 560, the rest for its start and return)
START_S = 20  # a unit's process start and analysis on a GPU machine (results/PLAN.md's measured units: ~20 s)


def cap_s(slice_s: float = SLICE_S) -> float:
    """A GPU unit's estimate at most: times the cost model's margin (9 in 10 fitted runs took less), plus START_S,
    it fits one slice of `slice_s` seconds."""
    return (slice_s - START_S) / margin("cuda")


def need_s(row: dict) -> float:
    """What a unit asks of a slice: its estimate times the margin, plus START_S."""
    return row["seconds"] * margin("cuda") + START_S


def units(target: str, profile: str, seeds: int | None = None, source: str | Path | None = None,
          out: str | Path | None = None, device: str = "cpu", cap: float | None = None) -> list[dict]:
    """[{study, unit (comma-separated run globs), runs, seconds}] of what is left to train, in the order
    reproduce trains it; a GPU unit's estimate at most `cap` (default cap_s())."""
    _check(profile, seeds, device)
    cap = cap_s() if cap is None else cap
    where = Path(out) if out is not None else Path(".groklab-plan-nowhere")
    plans = plan_target(target, where, profile, seeds, None, None, source, source is not None, lambda *_: None)
    rows = []
    for plan in plans:
        groups: dict = {}  # stack (GPU) or configuration -> (stacks?, {configuration: [(run, config)]})
        for s in plan.train:
            if out is not None and read_summary(where / plan.name / s.name).get("status") in FINISHED:
                continue
            variant = s.name.rsplit("/", 1)[0]
            cfg = make_config(list(s.overrides))
            stacks = device == "cuda" and _stackable(cfg)
            key = stack_key(cfg) if stacks else variant
            groups.setdefault(key, (stacks, {}))[1].setdefault(variant, []).append((s.name, cfg))
        for stacks, by_variant in groups.values():
            unit: dict[str, list] = {}  # glob -> its configs
            for variant, named in by_variant.items():
                for glob, cfgs in _parts(variant, named, device, stacks, cap):
                    if unit and _seconds({**unit, glob: cfgs}, device, stacks) > cap:
                        rows.append(_row(plan.name, unit, device, stacks))
                        unit = {}
                    unit[glob] = cfgs
            rows.append(_row(plan.name, unit, device, stacks))
    return rows


def _parts(variant: str, named: list, device: str, stacks: bool, cap: float) -> list[tuple[str, list]]:
    """A configuration's runs as globs that fit `cap` each on a GPU: `variant/*` when all fit one command, else
    consecutive seeds by name (`grok/s0,grok/s1`), as many as fit, at least one. A GPU window returns no
    checkpoint, so a unit longer than one command could never finish; a single run longer than it stays one unit."""
    cfgs = [c for _, c in named]
    if device != "cuda" or _seconds({variant: cfgs}, device, stacks) <= cap:
        return [(f"{variant}/*", cfgs)]
    parts: list[list] = []
    for name, cfg in named:
        if parts and _seconds({"": [c for _, c in parts[-1]] + [cfg]}, device, stacks) <= cap:
            parts[-1].append((name, cfg))
        else:
            parts.append([(name, cfg)])
    return [(",".join(n for n, _ in part), [c for _, c in part]) for part in parts]


def _stackable(cfg) -> bool:
    try:
        check_stackable([cfg, cfg])
    except ConfigError:
        return False
    return True


def _terms(unit: dict[str, list], device: str, stacks: bool = True) -> dict[str, float]:
    """A unit's estimate by term (sweep.cost.TERMS): on a GPU, runs that stack as one stack of all its members, as
    long as its longest member and as wide as its widest (padded) batch; on a CPU, and for runs that cannot stack,
    its runs one after another (each paying its start)."""
    cfgs = [c for cs in unit.values() for c in cs]
    if device != "cuda" or not stacks:
        each = [run_terms(c.to_dict(), device) for c in cfgs]
        return {t: sum(e[t] for e in each) for t in TERMS}
    widest = max(cfgs, key=lambda c: (c.steps, c.batch_size if c.sampler != "full" else 1 << 30))
    return run_terms(widest.to_dict(), device, len(cfgs))


def _seconds(unit: dict[str, list], device: str, stacks: bool = True) -> float:
    return sum(_terms(unit, device, stacks).values())


def _row(study: str, unit: dict[str, list], device: str, stacks: bool) -> dict:
    terms = _terms(unit, device, stacks)
    # the estimate trains every run to its horizon: an upper bound where a stopping rule can end runs sooner
    stops = any(c.stop.early or c.stop.plateau for cs in unit.values() for c in cs)
    return {"study": study, "unit": ",".join(unit), "runs": sum(map(len, unit.values())),
            "seconds": round(sum(terms.values()), 1), "terms": {k: round(v, 1) for k, v in terms.items()},
            "bound": "upper" if stops else "horizon"}


def print_plan(target: str, profile: str, seeds: int | None = None, source=None, out=None, device: str = "cpu",
               jobs: int = 1, echo: Callable = print, slice_s: float | None = None) -> list[dict]:
    """Print units() as a table, and last `N units, about M min on DEVICE` (a CPU's total divided by `jobs`);
    with `slice_s`, the units as results/PLAN.md's slices of one GPU command each instead of the table."""
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ConfigError("jobs", jobs, "must be an integer >= 1")
    if slice_s is not None and not 0 < slice_s <= 600:  # one device command is at most 10 minutes
        raise ConfigError("slices", slice_s, "must be seconds in (0, 600]: one GPU command each")
    rows = units(target, profile, seeds, source, out, device, None if slice_s is None else cap_s(slice_s))
    if slice_s is not None:
        for line in markdown(target, rows, slice_s, profile, str(source) if source else None):
            echo(line)
    _expected(rows, target)
    w = max([len(r["study"]) for r in rows] + [5])
    u = max([len(r["unit"]) for r in rows] + [4])
    if rows and slice_s is None:  # each term of the estimate beside it (sweep.cost.TERMS; costs.json says which
        # terms were measured and which fitted)
        echo(f"{'study':<{w}}  {'unit':<{u}}  {'runs':>5}  {'est. s':>8}  {'bound':>7}  {'expect':>7}  "
             + "  ".join(f"{t:>10}" for t in TERMS))
    for r in rows if slice_s is None else []:
        shown = "-" if r.get("expected") is None else f"{r['expected']:.0f}"
        echo(f"{r['study']:<{w}}  {r['unit']:<{u}}  {r['runs']:>5}  {r['seconds']:>8.0f}  {r['bound']:>7}  "
             f"{shown:>7}  " + "  ".join(f"{r['terms'][t]:>10.0f}" for t in TERMS))
    total = sum(r["seconds"] for r in rows) / (max(jobs, 1) if device == "cpu" else 1)
    side = f" ({jobs} jobs)" if device == "cpu" and jobs > 1 else ""
    upper = sum(r["bound"] == "upper" for r in rows)
    said = (f"; {upper} of them upper bounds (a stopping rule can end their runs before the horizon the estimate "
            "assumes)" if upper else "")
    known = [r for r in rows if r.get("expected") is not None]
    if known and slice_s is None:
        exp = sum(r.get("expected", r["seconds"]) if r.get("expected") is not None else r["seconds"] for r in rows)
        said += (f"; about {exp / (max(jobs, 1) if device == 'cpu' else 1) / 60:.0f} min expected at the share of "
                 f"the horizon the quick archive's runs trained ({len(known)} units)")
    echo(f"{len(rows)} units, about {total / 60:.0f} min on {device}{side}{said}")
    return rows


def _check(profile: str, seeds, device: str) -> None:
    if profile not in PROFILES:
        raise ConfigError("profile", profile, f"allowed: {', '.join(PROFILES)}")
    if seeds is not None and (not isinstance(seeds, int) or isinstance(seeds, bool) or not 1 <= seeds <= MAX_SEEDS):
        raise ConfigError("seeds", seeds, f"must be an integer from 1 to {MAX_SEEDS}")
    if device not in ("cpu", "cuda"):
        raise ConfigError("device", device, "allowed: cpu, cuda")


def slices(rows: list[dict], limit_s: float) -> list[list[dict]]:
    """The units in order, packed into slices whose needs (need_s: estimate x margin + START_S) fit `limit_s`: one
    GPU command each. A unit longer than the limit is a slice of its own (its row says so)."""
    out: list[list[dict]] = []
    for r in rows:
        if out and sum(map(need_s, out[-1])) + need_s(r) <= limit_s:
            out[-1].append(r)
        else:
            out.append([r])
    return out


def markdown(target: str, rows: list[dict], limit_s: float, profile: str, archive: str | None) -> list[str]:
    """results/PLAN.md's table for `target`: a row per slice, with the command that runs it on a lent GPU
    (benchmarks/gpu_slice.sh DEADLINE EST UNIT...: a unit starts only if its estimate fits before the deadline)."""
    paper = target.split("/")[0]
    lines = ["| slice | units (study: run glob) | est. min | command |", "| --- | --- | --- | --- |"]
    env = f"ARCHIVE={shlex.quote(archive)} " if archive else ""  # a folder name is pasted into a shell: quoted
    for i, sl in enumerate(slices(rows, limit_s), 1):
        est = max(round(need_s(r)) for r in sl)
        units = " ".join(f"'{paper}/{r['study']}:{r['unit']}'" for r in sl)
        total = sum(map(need_s, sl)) / 60
        what = "; ".join(f"{r['study']}: `{r['unit']}`" for r in sl)
        over = " (one run longer than one command: needs a longer window)" if total * 60 > limit_s else ""
        lines.append(f"| {i} | {what}{over} | {total:.0f} | `{env}bash benchmarks/gpu_slice.sh {int(limit_s)} {est} "
                     f"{units}` |")
    return lines


def stop_share(study: Path) -> float | None:
    """The median over an archived study's runs of the share of its horizon a run trained (last step / steps):
    how much of an upper-bound estimate a stopping rule left, read from runs that ran (None: no archive there)."""
    from groklab.store.archive import archived_runs, holds_runs

    if not holds_runs(study):
        return None
    shares = [doc["summary"]["steps"] / doc["config"]["steps"] for doc in archived_runs(study)
              if isinstance(doc.get("summary"), dict) and doc["summary"].get("steps") and doc["config"].get("steps")]
    return float(sorted(shares)[len(shares) // 2]) if shares else None


def _expected(rows: list[dict], target: str) -> None:
    """Each upper-bound row's expected seconds: its start, and the rest at the share of the horizon the same study's
    runs trained in the quick archive (results/<package>-quick, where the plan runs in the repository)."""
    package = target.split("/", 1)[0]
    shares: dict = {}
    for r in rows:
        if r["bound"] != "upper":
            continue
        if r["study"] not in shares:
            shares[r["study"]] = stop_share(Path("results") / f"{package}-quick" / r["study"])
        f = shares[r["study"]]
        if f is not None:
            start = r["terms"].get("start", 0.0)
            r["expected"] = round(start + (r["seconds"] - start) * min(f, 1.0), 1)

