"""Train a study's runs into DIR/<study>/<run>/ (finished runs skipped, unfinished resumed), then judge them.

`run_plan` executes a plan (plan.py): lays out what the archive holds, trains the rest within any time budget,
judges (judge.py) and writes claims.json (partial.json while runs are missing). `execute` is the one place that
decides how runs are trained: it hands them to the sweep machinery.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from groklab.config import make_config, validate
from groklab.engine.setup import resolve_device
from groklab.engine.threads import usable_cpus
from groklab.errors import ConfigError
from groklab.experiments.archive import trained
from groklab.experiments.assumptions import ARM, assumptions_of
from groklab.experiments.judge import judge
from groklab.experiments.looks import looks_of
from groklab.experiments.plan import SEEDS, StudyPlan, TimeBudget, plan_study, select, specs_of  # noqa: F401 (re-exported)
from groklab.experiments.quotes import cite
from groklab.store import (
    RunStore,
    clear_error,
    load_runs,
    make_out,
    read_manifest,
    read_summary,
    write_claims,
    write_error,
    write_manifest,
    write_partial,
)
from groklab.store.archive import unpack
from groklab.store.citation import line, number
from groklab.store.run import differences
from groklab.sweep import Run, SweepBar, plan, run_units
from groklab.sweep.cost import margin, run_seconds

UNFINISHED = (None, "running", "interrupted")  # a run folder's status that is not an outcome yet


def execute(root: Path, configs: dict[str, dict], jobs: int = 1, echo: Callable = print,
            packing: str = "auto") -> dict[str, dict]:
    """Train every run (name -> resolved config dict) below `root` with the sweep machinery: finished
    runs are skipped, unfinished ones resume; `jobs` > 1 trains in a process pool; on a GPU, compatible
    runs are stacked into populations (packing=auto). Returns name -> summary ({"status": "failed"} on a crash)."""
    runs = [Run(name, name, validate(dict(cfg)), root / name) for name, cfg in configs.items()]
    units, done, busy = plan(runs, packing)
    echo(f"  {len(done)} of {len(runs)} runs already finished; training {sum(map(len, units))}"
         + (f"; {len(busy)} being trained by another process" if busy else ""))
    for r in (r for unit in units for r in unit):
        clear_error(r.out)  # a retried run is judged by its new outcome
    bar = SweepBar(len(runs), len(done), show=echo is print)
    try:
        ran = run_units(units, packing, "process" if jobs > 1 else "inprocess", jobs, bar=bar, echo=echo)
    finally:
        bar.close()
    results = {r.name: read_summary(r.out) for r in runs}
    for name, status in ran:
        if status.startswith("failed"):  # the run crashed: keep the reason beside its files
            write_error(root / name, status)
            results[name] = {"status": "failed"}
    return results


def default_jobs() -> int:
    """One single-threaded run per core: the quick models are too small to use two threads well."""
    return max(1, min(usable_cpus(), 8))


def run_figure(module, out: Path, profile: str = "quick", seeds: int = 3, jobs: int = 1,
               echo: Callable = print, overrides: tuple[str, ...] = (), only: str | None = None,
               source: Path | None = None, session: dict | None = None, train_missing: bool = False) -> dict:
    """One study trained (or resumed) and judged: plan_study then run_plan. `source` is an archived study (its
    archive is its parent folder); `only`, a glob over run names, trains that subset (partial.json)."""
    archive = Path(source).parent if source is not None else None
    study = plan_study(module, out, profile, seeds, overrides, only, archive, train_missing)
    return run_plan(study, Path(out), jobs, echo, session)


def run_plan(plan: StudyPlan, out: Path, jobs: int = 1, echo: Callable = print, session: dict | None = None,
             budget: TimeBudget | None = None) -> dict:
    """Lay out what the plan takes from its archive, train what it trains (whole runs while `budget` allows),
    judge once every run is there -- else write its statistics to partial.json without verdicts -- and echo
    each verdict; returns claims.json's (or partial.json's) content. `session` (command, machine) is appended
    to the manifest's list of the calls that built this directory."""
    for arm, k in plan.cut.items():
        echo(f"  {plan.name}: {ARM}{arm} " + (f"whole at {k} seeds in {plan.source}: judged at those" if k else
                                              f"not (wholly) in {plan.source}: judged without it"))
    configs = {s.name: make_config(list(s.overrides)).to_dict() for s in plan.train}  # all validated first
    root = make_out(out) / plan.name
    root.mkdir(parents=True, exist_ok=True)
    manifest, sessions = _begin(plan, root, session)
    part = "" if plan.only is None else f" (--only {plan.only!r}: {len(plan.train)} of {len(plan.every)})"
    verb = f"re-judged from {plan.source}" if plan.source is not None else ""
    echo(f"{plan.name}: {plan.module.TITLE} ({plan.profile}, {plan.seeds} seeds, {len(plan.every)} runs{part}) -> "
         f"{root} {verb}")
    t0 = time.perf_counter()
    resolved: dict = {}  # the laid-out runs' archived configs, as unpack validated them
    results, skipped = _runs(plan, root, configs, jobs, echo, budget, resolved)
    stale = _stale(root, {s.name: make_config(list(s.overrides)).to_dict()
                          for s in plan.every if s.name in set(plan.laid)}, resolved) if plan.source is not None else {}
    if stale:
        first = next(iter(stale.items()))
        echo(f"  {plan.name}: {len(stale)} archived runs were trained with configs this study no longer makes "
             f"(e.g. {first[0]}: {first[1]}); their verdicts describe those runs: retrain them to judge today's")
    if plan.train_missing:  # runs an earlier call trained into this --out count too: judged once every one is there
        results = {s.name: read_summary(root / s.name) for s in plan.every if (root / s.name).is_dir()}
        have = {n for n, r in results.items() if r.get("status") not in UNFINISHED}
        partial = len(have) < len(plan.every)
    else:
        have = (set(configs) | set(plan.laid)) - set(skipped)
        partial = plan.only is not None or bool(skipped)
    df = load_runs(root, archived=True)  # the numbers its archive will keep: both judge the same
    df = df[df["run"].isin(have)] if not df.empty else df  # ignore stray runs of another profile
    looks = looks_of(sessions, plan.seeds, SEEDS[plan.profile])
    figures, claims, controls = judge(plan.module, df, root, plan.profile, len(looks), _first_data(sessions))
    doc = _document(plan, manifest, root, figures, claims, controls, looks, stale, results, t0, df,
                    first_data=_first_data(sessions))
    if sessions:
        sessions[-1]["wall_s"] = doc["wall_s"]
        write_manifest(root, {**manifest, "sessions": sessions})
    if partial:
        note = f"partial: {len(have)} of {len(plan.every)} runs" + (f" ({plan.only!r})" if plan.only else "")
        note += "; not judged"
        doc.update(only=plan.only, trained=sorted(have), of=len(plan.every),
                   claims=[{**c, "holds": None, "reason": "partial", "verdict": "inconclusive (partial)",
                            "note": " ".join(filter(None, [c["note"], note]))} for c in doc["claims"]])
        write_partial(root, doc)
    else:
        write_claims(root, doc)
    for c in doc["claims"]:  # the citable line (store/citation.py), as the report and `groklab cite` print it
        echo(f"  {line(c, doc.get('source'))}")
    return doc


def _begin(plan: StudyPlan, root: Path, session: dict | None) -> tuple[dict, list]:
    """The study's manifest and the calls that built its runs (a re-judged study keeps its archive's training
    sessions; the last re-judging is the one that wrote these claims), written before anything is trained."""
    manifest = {"figure": plan.name, "title": plan.module.TITLE, "paper": plan.module.PAPER, "profile": plan.profile,
                "seeds": plan.seeds, "overrides": list(plan.overrides),
                "runs": {s.name: list(s.overrides) for s in plan.every + plan.aside}}
    if plan.only is not None:
        manifest["only"] = plan.only
    if plan.source is not None:
        manifest["from"] = str(plan.source)
    sessions = _sessions(root) or (_sessions(plan.source) if plan.source is not None else [])
    if plan.source is not None:
        sessions = [x for x in sessions if trained(x)]
    here = ({"from": str(plan.source), **({"train_missing": True} if plan.train_missing else {})}
            if plan.source is not None else {})
    sessions += [{**session, **here, "seeds": plan.seeds}] if session else []
    write_manifest(root, {**manifest, "sessions": sessions})
    return manifest, sessions


def _runs(plan: StudyPlan, root: Path, configs: dict, jobs: int, echo: Callable,
          budget: TimeBudget | None, resolved: dict) -> tuple[dict, list[str]]:
    """(run -> summary, the runs the budget left for a later call): archived runs laid out, the rest trained."""
    if plan.rejudge:
        # the aside runs too: re-archiving keeps them
        laid = unpack(plan.source, [*plan.laid, *(a.name for a in plan.aside)], root, resolved)
        return {name: laid[name] for name in plan.laid}, []
    results = unpack(plan.source, plan.laid, root, resolved) if plan.laid else {}
    if budget is None or budget.seconds is None:
        return {**results, **execute(root, configs, jobs, echo)}, []
    todo = [n for n in configs if read_summary(root / n).get("status") in UNFINISHED]
    device = resolve_device(configs[todo[0]].get("device", "auto")).type if todo else "cpu"
    # a round of `jobs` runs side by side costs about its longest run; on a GPU the study's runs are one round,
    # trained as stacked populations (one stack costs about one member's steps), never split run by run
    rounds = [todo] if device == "cuda" and todo else [todo[i:i + jobs] for i in range(0, len(todo), jobs)]
    for k, names in enumerate(rounds):
        members = len(names) if device == "cuda" else 1
        need = max(run_seconds(configs[n], device, members) for n in names) * margin(device)
        if not budget.fits(need):
            skipped = [n for r in rounds[k:] for n in r]
            budget.skipped += len(skipped)
            echo(f"  {plan.name}: {len(skipped)} runs left for a later call ({budget.left():.0f} s of the budget left; "
                 f"the next round needs about {need:.0f} s)")
            done = {n: read_summary(root / n) for n in configs if n not in set(skipped)}
            return {**results, **done}, skipped
        results.update(execute(root, {n: configs[n] for n in names}, jobs, echo))
    return {**results, **{n: read_summary(root / n) for n in configs if n not in results}}, []


def _document(plan: StudyPlan, manifest: dict, root: Path, figures: list, claims: list, controls: list,
              looks: list, stale: dict, results: dict, t0: float, df=None, first_data: str | None = None) -> dict:
    """The study's claims document: the study, its run health, its claims with the paper's sentences (quotes)."""
    doc = {**{k: manifest[k] for k in ("figure", "title", "paper", "profile", "seeds")},
           "wall_s": round(time.perf_counter() - t0, 1),
           "figures": [Path(f).relative_to(root).as_posix() for f in figures],
           "health": {name: s.get("status", "missing") for name, s in sorted(results.items())},
           "claims": [c.to_dict() for c in claims]}
    if controls:
        doc["controls"] = controls
    if len(looks) > 1:
        doc["looks"] = looks
    if stale:
        doc["stale"] = stale
    if assumptions_of(plan.module):
        doc["assumptions"] = [{**a.to_dict(plan.profile), "in_runs": in_runs(df, a.field)}
                              for a in assumptions_of(plan.module)]
    # the paper's sentence, where, kind, threshold sources, and when each rule was fixed against first_data
    return cite(plan.module.__name__.split(".")[2], doc, first_data)


def _first_data(sessions: list[dict]) -> str | None:
    """When the study's data first existed: the earliest date of a session that trained its runs (a session
    without a machine date -- an archive older than the field -- counts as unknown)."""
    dates = [str(s.get("machine", {}).get("date", "")) for s in sessions if trained(s)]
    return min(dates) if dates and all(dates) else None


def in_runs(df, field: str) -> str | None:
    """The values `field` takes in the study's own runs (its arms' aside), as the report cites them: what the
    runs judged actually used, which for a quick profile is not the paper's value an assumption names."""
    if df is None or df.empty or field not in df:
        return None
    own = df.loc[~df["run"].str.startswith(ARM), field].dropna()
    shown = {number(v) if not isinstance(v, (list, tuple)) else "[" + ", ".join(map(number, v)) + "]" for v in own}
    return ", ".join(sorted(shown, key=_numeric_first)) or None


def _numeric_first(text: str) -> tuple:
    try:
        return 0, float(text), ""
    except ValueError:
        return 1, 0.0, text


def _stale(root: Path, wanted: dict[str, dict], resolved: dict) -> dict[str, str]:
    """Run -> the first difference between an archived run laid out below `root` (its config as unpack
    resolved it, else as read back) and `wanted`, the resolved config the study makes for it today (none: the
    archive is today's study)."""
    out = {}
    for name, cfg in wanted.items():
        have = resolved[name] if name in resolved else _resolved(RunStore(root / name).config())
        diff = differences(have, cfg, ignore=("bar",))
        if diff:
            out[name] = diff[0]
    return out


def _resolved(archived: dict) -> dict:
    """An archived config as today's schema reads it: a field added since takes its default (a new setting
    whose default keeps the old behaviour is no difference); as stored where today's rules refuse it."""
    try:
        return make_config(base=archived).to_dict()
    except ConfigError:
        return archived


def _sessions(root: Path) -> list[dict]:
    """The calls that built this figure directory so far (from its manifest; none when it is new or damaged)."""
    try:
        return list(read_manifest(root).get("sessions", []))
    except ConfigError:
        return []
